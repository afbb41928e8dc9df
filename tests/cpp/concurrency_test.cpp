// Threads (README "Threads", docs/decisions.md): calls on different operations run concurrently and give the
// results a single thread gets; one operation hammered by many threads at once answers each call with a
// correct result or a clean error (call.concurrent_use, or call.execute.after_setup when another thread's
// Setup replaced the plan), never memory corruption. The tsan preset runs this file under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "atbx/operation.h"
#include "support/pa_calls.h"
#include "support/rac_calls.h"
#include "support/run_call.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

// Kernel threads per call. Under ThreadSanitizer, 1: the OpenMP runtime is not built with TSan, so its own
// synchronisation between team threads would be reported; the threads under test are this file's.
#if defined(__SANITIZE_THREAD__)
constexpr int kKernelThreads = 1;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr int kKernelThreads = 1;
#else
constexpr int kKernelThreads = 2;
#endif
#else
constexpr int kKernelThreads = 2;
#endif

constexpr int kThreads = 8;
constexpr int kCallsPerThread = 6;

// One call of each operation family: decode with GQA, SPEC, ALIBI; SelfAttention with the KV cache in the op
// and PA_ENCODER; ReshapeAndCache ND and with head compression.
std::vector<TestCall> MixedCalls() {
    using Pa = infer::PagedAttentionParam;
    Pa spec;
    spec.calcType = Pa::CALC_TYPE_SPEC;
    spec.maskType = Pa::MASK_TYPE_SPEC;
    PaShape specShape;
    specShape.contextLens = {17, 40, 5, 33};
    specShape.qSeqLen = {1, 3, 2, 4};
    Pa alibi;
    alibi.maskType = Pa::MASK_TYPE_ALIBI;
    using Sa = infer::SelfAttentionParam;
    return {
        MakePaCall({}),
        MakePaCall(spec, specShape),
        MakePaCall(alibi),
        MakeSaCall(FlashParam(Sa::ENCODER, Sa::MASK_TYPE_NORM)),
        MakeSaCall(PaEncoderParam()),
        MakeRacCall(RacParam(0)),
        MakeRacCall(RacParam(1)),
    };
}

// Every byte a call writes: its outputs and its inputs (caches are updated in place).
std::vector<std::vector<uint8_t>> Written(const TestCall& call) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const io::HostTensor& t : call.outputs)
        bytes.push_back(t.bytes);
    for (const io::HostTensor& t : call.inputs)
        bytes.push_back(t.bytes);
    return bytes;
}

// The operation of a call, created on the call's platform.
std::unique_ptr<Operation> Create(const TestCall& call) {
    Operation* raw = nullptr;
    const Status st = std::visit(
        [&](const auto& param) { return CreateOperation(param, &raw, call.platform); }, call.param);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return std::unique_ptr<Operation>(raw);
}

TEST(Concurrency, DistinctOperationsOnManyThreadsMatchOneThread) {
    const std::vector<TestCall> calls = MixedCalls();
    std::vector<std::vector<std::vector<uint8_t>>> expected;
    for (const TestCall& call : calls) {
        TestCall serial = call;
        const RunResult result = Execute(serial, Backend::kAuto, kKernelThreads);
        ASSERT_TRUE(result.status.ok()) << result.status.ToString();
        expected.push_back(Written(serial));
    }
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kCallsPerThread; ++i) {
                const size_t which = static_cast<size_t>(t + i) % calls.size();
                TestCall call = calls[which];
                const RunResult result =
                    Execute(call, t % 2 == 0 ? Backend::kAuto : Backend::kCpu, kKernelThreads);
                if (!result.status.ok()) {
                    failures[t] = result.status.ToString();
                } else if (Written(call) != expected[which]) {
                    failures[t] = "call " + std::to_string(which) + " wrote other bytes than on one thread";
                }
            }
        });
    }
    for (std::thread& thread : threads)
        thread.join();
    for (int t = 0; t < kThreads; ++t)
        EXPECT_EQ(failures[t], "") << "thread " << t;
}

// Many threads call Setup and Execute on one operation with one variant pack. Each call returns NO_ERROR or
// call.concurrent_use; afterwards the operation still computes the single-threaded result.
void HammerOneOperation(const TestCall& valid) {
    TestCall serial = valid;
    ASSERT_TRUE(Execute(serial, Backend::kAuto, kKernelThreads).status.ok());
    const std::vector<std::vector<uint8_t>> expected = Written(serial);

    TestCall shared = valid;
    const VariantPack pack = shared.Pack();
    std::unique_ptr<Operation> op = Create(shared);
    std::atomic<int> succeeded = 0;
    std::atomic<int> refused = 0;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Context context{shared.platform, kKernelThreads, Backend::kAuto};
            for (int i = 0; i < kCallsPerThread; ++i) {
                uint64_t workspaceSize = 0;
                Status st = op->Setup(pack, workspaceSize, &context);
                if (st.ok()) st = op->Execute(pack, nullptr, workspaceSize, &context);
                if (st.ok()) {
                    ++succeeded;
                } else if (st.rule() == "call.concurrent_use" || st.rule() == "call.execute.after_setup") {
                    EXPECT_EQ(st.code(), st.rule() == "call.concurrent_use" ? ERROR_INVALID_OPERATION_ADDR
                                                                            : ERROR_INVALID_PARAM);
                    EXPECT_FALSE(st.message().empty());
                    ++refused;
                } else {
                    failures[t] = st.ToString();
                }
            }
        });
    }
    for (std::thread& thread : threads)
        thread.join();
    for (int t = 0; t < kThreads; ++t)
        EXPECT_EQ(failures[t], "") << "thread " << t;
    EXPECT_EQ(succeeded + refused, kThreads * kCallsPerThread);
    EXPECT_GT(succeeded, 0);
    // Every successful Execute wrote the same result; one more on this thread must too.
    EXPECT_EQ(Written(shared), expected);
    uint64_t workspaceSize = 0;
    Context context{shared.platform, kKernelThreads, Backend::kAuto};
    ASSERT_TRUE(op->Setup(pack, workspaceSize, &context).ok());
    ASSERT_TRUE(op->Execute(pack, nullptr, workspaceSize, &context).ok());
    EXPECT_EQ(Written(shared), expected);
}

TEST(Concurrency, OnePagedAttentionOperationOnManyThreads) {
    HammerOneOperation(MakePaCall({}));
}

TEST(Concurrency, OneSelfAttentionOperationOnManyThreads) {
    HammerOneOperation(MakeSaCall(PaEncoderParam()));
}

TEST(Concurrency, OneReshapeAndCacheOperationOnManyThreads) {
    HammerOneOperation(MakeRacCall(RacParam(0)));
}

// Threads set up one operation with packs of their own (different tensors and context lengths): each Setup
// replaces the plan, so an Execute either finds its own plan, or is refused (the plan is another thread's, or
// another thread is inside the operation), never served from a plan being replaced.
TEST(Concurrency, OneOperationSetUpWithManyPacks) {
    std::vector<TestCall> calls;
    for (int t = 0; t < kThreads; ++t) {
        PaShape shape;
        shape.contextLens = {17 + t, 40 - t, 1 + t, 33};
        shape.seed = 100 + static_cast<uint64_t>(t);
        calls.push_back(MakePaCall({}, shape));
    }
    std::unique_ptr<Operation> op = Create(calls[0]);
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            Context context{calls[t].platform, kKernelThreads, Backend::kAuto};
            const VariantPack pack = calls[t].Pack();
            for (int i = 0; i < kCallsPerThread; ++i) {
                uint64_t workspaceSize = 0;
                Status st = op->Setup(pack, workspaceSize, &context);
                if (st.ok()) st = op->Execute(pack, nullptr, workspaceSize, &context);
                if (!st.ok() && st.rule() != "call.concurrent_use" && st.rule() != "call.execute.after_setup")
                    failures[t] = st.ToString();
            }
        });
    }
    for (std::thread& thread : threads)
        thread.join();
    for (int t = 0; t < kThreads; ++t)
        EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace atbx::test
