// How the schedule groups a sequence's kv heads into tasks and the order in which the threads take them
// (src/kernels/cpu/kernel_call.h, kMaxGroupLanes and KernelCall::order): up to 128 lanes of kv heads per
// task, and where a sequence's kv heads still take several tasks over the same keys, those tasks handed out
// side by side, chunk by chunk; elsewhere in the schedule's order. Row blocks over keys beyond L2 are wide
// (RowBlockWidth). Where the threads keep what they computed for an item (its converted tiles, its tiles' key
// norms), an item's tasks are taken one after another. Every task is taken exactly once, and such calls meet
// the precision standard on every path with the same bits on 2 and 3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/kernel_call.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "support/every_path.h"
#include "support/pa_calls.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using PaParam = infer::PagedAttentionParam;

// A decode step of qLen query tokens (SPEC) of `group` query heads per kv head, 128 channels, over one
// sequence of `context` keys in blocks of 16.
TestCall Step(int32_t qLen, int32_t context, int32_t kvHeads = 16, int32_t group = 4) {
    PaParam param;
    param.headNum = group * kvHeads;
    param.kvHeadNum = kvHeads;
    param.qkScale = static_cast<float>(1.0 / std::sqrt(128.0));
    if (qLen > 1) {
        param.calcType = PaParam::CALC_TYPE_SPEC;
        param.maskType = PaParam::MASK_TYPE_SPEC;
    }
    PaShape shape;
    shape.headSize = 128;
    shape.contextLens = {context};
    shape.qSeqLen = {qLen};
    return MakePaCall(param, shape);
}

// The call's schedule on `threads` threads: its tasks in hand-out order; *cachesKvTiles where given: whether
// the threads keep converted K and V tiles (KernelCall::cachesKvTiles).
template <class Param = PaParam>
std::vector<kernels::cpu::Task> TasksInOrder(const TestCall& call, int threads,
                                             bool* cachesKvTiles = nullptr) {
    TestCall copy = call;
    const VariantPack pack = copy.Pack();
    using Spec = typename ops::SpecOf<Param>::type;
    ops::CallValidation<Spec> validation(std::get<Param>(call.param), call.platform);
    validation.SetPack(pack);
    EXPECT_TRUE(validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues).empty());
    const plan::AttentionPlan plan = Spec::BuildPlan(validation.subject());
    const auto width = kernels::cpu::RowBlockWidth::kWide;
    std::vector<char> workspace(kernels::cpu::CallWorkspaceBytes(plan, threads, width));
    const kernels::cpu::KernelCall prepared =
        kernels::cpu::PrepareCall(plan, threads, width, workspace.data());
    if (cachesKvTiles != nullptr) *cachesKvTiles = prepared.cachesKvTiles;
    std::vector<int32_t> order(prepared.order, prepared.order + prepared.taskCount);
    std::vector<int32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int32_t> every(sorted.size());
    std::iota(every.begin(), every.end(), 0);
    EXPECT_EQ(sorted, every) << "every task is taken exactly once";
    std::vector<kernels::cpu::Task> tasks;
    for (int32_t index : order)
        tasks.push_back(prepared.tasks[index]);
    return tasks;
}

// 4 tokens x 4 heads per kv head: 16 lanes each, so 8 of the 16 kv heads per task (kMaxGroupLanes) and two
// tasks per key chunk (1500 keys: three chunks). They are taken chunk by chunk, the two kv-head groups of a
// chunk one after the other.
TEST(TaskOrder, TheKvHeadGroupsOfASequenceAreTakenSideBySide) {
    const std::vector<kernels::cpu::Task> tasks = TasksInOrder(Step(4, 1500), 2);
    ASSERT_EQ(tasks.size(), 6u);
    for (size_t i = 0; i < tasks.size(); i += 2) {
        EXPECT_EQ(tasks[i].kvBegin, tasks[i + 1].kvBegin) << "hand-outs " << i << " and " << i + 1;
        EXPECT_EQ(tasks[i].rowBegin, tasks[i + 1].rowBegin);
        EXPECT_EQ(tasks[i].itemCount, 8);
        EXPECT_EQ(tasks[i + 1].item, tasks[i].item + tasks[i].itemCount) << "the next group of kv heads";
        if (i > 0) {
            EXPECT_GT(tasks[i].kvBegin, tasks[i - 1].kvBegin) << "chunks in key order";
        }
    }
}

// 4 tokens over 8 kv heads (8 x 16 lanes) and one token over 16 (16 x 4 lanes): every kv head in one task,
// so the order is the schedule's (chunk by chunk).
TEST(TaskOrder, OneGroupPerSequenceKeepsTheScheduleOrder) {
    for (const auto& [qLen, kvHeads] : {std::pair{4, 8}, std::pair{1, 16}}) {
        const std::vector<kernels::cpu::Task> tasks = TasksInOrder(Step(qLen, 1500, kvHeads), 2);
        ASSERT_EQ(tasks.size(), 3u);
        for (size_t i = 0; i < tasks.size(); ++i) {
            EXPECT_EQ(tasks[i].itemCount, kvHeads);
            if (i > 0) {
                EXPECT_GT(tasks[i].kvBegin, tasks[i - 1].kvBegin);
            }
        }
    }
}

// The side-by-side order computes what the schedule's would: every path against the reference, and the same
// bits on 2 and 3 threads.
TEST(TaskOrder, SideBySideGroupsMeetTheStandardOnEveryPath) {
    for (const TestCall& call : {Step(4, 1500), Step(3, 4097), Step(4, 700, 8)}) {
        const PathReport report = CheckEveryPath(call, 2, 3);
        EXPECT_TRUE(report.failure.empty()) << report.failure;
        EXPECT_FALSE(report.ran.empty());
    }
}

// Each item's tasks, in hand-out order, are taken one after another: once the order leaves an item it never
// returns to it. `items`: how many items the tasks cover.
void ExpectEachItemTakenWhole(const std::vector<kernels::cpu::Task>& tasks, size_t items) {
    std::vector<int32_t> finished;
    for (size_t i = 0; i < tasks.size(); ++i) {
        EXPECT_EQ(std::count(finished.begin(), finished.end(), tasks[i].item), 0)
            << "hand-out " << i << " returns to item " << tasks[i].item;
        if (i + 1 < tasks.size() && tasks[i + 1].item != tasks[i].item) finished.push_back(tasks[i].item);
    }
    EXPECT_EQ(finished.size() + 1, items) << "every item taken whole";
}

// 32 tokens of GQA 4 over 4 kv heads and 300 keys: two row blocks of kMaxLanes per kv head, whose converted
// keys and values fit half of L2, so the threads keep an item's converted tiles (KernelCall::cachesKvTiles).
// A thread holds one item's, so the tasks of an item are taken one after another, not side by side with the
// other kv heads'.
TEST(TaskOrder, TheTasksOfAnItemWhoseTilesTheThreadsKeepAreTakenTogether) {
    bool cachesKvTiles = false;
    const std::vector<kernels::cpu::Task> tasks = TasksInOrder(Step(32, 300, 4), 2, &cachesKvTiles);
    ASSERT_TRUE(cachesKvTiles);
    ExpectEachItemTakenWhole(tasks, 4);
}

// A causal prefill of one sequence over 2 kv heads (GQA 4, head size 128) whose keys, converted, exceed half
// of L2, its mask tile as models pass it (-10000: a finite term, KernelCall::skipsBoundedTiles): the threads
// keep each item's tile key norms (KeyNormTag) but not its tiles, and take its tasks one after another too.
TestCall LongCausalPrefill() {
    infer::SelfAttentionParam p = PaEncoderParam();
    p.headNum = 8;
    p.kvHeadNum = 2;
    p.maskType = infer::SelfAttentionParam::MASK_TYPE_NORM_COMPRESS;
    p.isTriuMask = 1;
    const auto tokens = static_cast<int32_t>(kernels::cpu::Level2CacheBytes() / 1024 + 100);
    TestCall call = MakeSaCall(p, MakeSaShape(128, {tokens}, ACL_FLOAT16));
    UseModelMaskTile(call, 0);
    return call;
}

TEST(TaskOrder, TheTasksOfAnItemWhoseKeyNormsTheThreadsKeepAreTakenTogether) {
    bool cachesKvTiles = true;
    const std::vector<kernels::cpu::Task> tasks =
        TasksInOrder<infer::SelfAttentionParam>(LongCausalPrefill(), 2, &cachesKvTiles);
    ASSERT_FALSE(cachesKvTiles);
    ExpectEachItemTakenWhole(tasks, 2);
}

TEST(TaskOrder, ItemsTakenTogetherMeetTheStandardOnEveryPath) {
    for (const TestCall& call : {Step(32, 300, 4), LongCausalPrefill()}) {
        const PathReport report = CheckEveryPath(call, 2, 3);
        EXPECT_TRUE(report.failure.empty()) << report.failure;
        EXPECT_FALSE(report.ran.empty());
    }
}

// Keys of one sequence that, converted to fp32 at head size 128 (1 KiB a key and its value), take twice this
// core's L2: the row blocks over them may be wide (kernel_call.h, RowBlockWidth).
int32_t LongContext() {
    return static_cast<int32_t>(2 * kernels::cpu::Level2CacheBytes() / 1024 + 100);
}

// 16 tokens of GQA 16 over one kv head: 256 lanes, four row blocks of kMaxLanes. Over a long context they are
// wider (at most kMaxWideLanes), so that each key is read by fewer of them; over a short one they stay.
TEST(TaskOrder, RowBlocksOverKeysBeyondL2AreWide) {
    for (const int32_t context : {LongContext(), 300}) {
        SCOPED_TRACE("context " + std::to_string(context));
        const std::vector<kernels::cpu::Task> tasks = TasksInOrder(Step(16, context, 1, 16), 2);
        ASSERT_FALSE(tasks.empty());
        for (const kernels::cpu::Task& task : tasks) {
            const int lanes = 16 * (task.rowEnd - task.rowBegin);
            if (context == 300) {
                EXPECT_LE(lanes, kernels::cpu::kMaxLanes);
            } else {
                EXPECT_GT(lanes, kernels::cpu::kMaxLanes);
                EXPECT_LE(lanes, kernels::cpu::kMaxWideLanes);
            }
        }
    }
}

TEST(TaskOrder, WideRowBlocksMeetTheStandardOnEveryPath) {
    const PathReport report = CheckEveryPath(Step(16, LongContext(), 1, 16), 2, 3);
    EXPECT_TRUE(report.failure.empty()) << report.failure;
    EXPECT_FALSE(report.ran.empty());
}

}  // namespace
}  // namespace atbx::test
