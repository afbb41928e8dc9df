// Cases for the rules the operation API enforces outside validation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "atbx/operation.h"
#include "support/pa_calls.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

TestCall Decode() {
    return MakePaCall({});
}
void Unchanged(TestCall&) {}

std::unique_ptr<Operation> Create(TestCall& c) {
    Operation* op = nullptr;
    EXPECT_TRUE(CreateOperation(c.Param<Param>(), &op, c.platform).ok());
    return std::unique_ptr<Operation>(op);
}

Status CreateWithoutOutPointer(TestCall& c) {
    return CreateOperation(c.Param<Param>(), nullptr, c.platform);
}

Status ExecuteWithoutSetup(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context;
    return Create(c)->Execute(pack, nullptr, 0, &context);
}

// A workspace one byte short of what Setup reports (the CPU kernels need one).
Status ExecuteWithShortWorkspace(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context{c.platform, 1, Backend::kCpu};
    std::unique_ptr<Operation> op = Create(c);
    uint64_t workspaceSize = 0;
    if (Status st = op->Setup(pack, workspaceSize, &context); !st.ok()) return st;
    EXPECT_GT(workspaceSize, 0u);
    std::vector<uint8_t> workspace(workspaceSize);
    return op->Execute(pack, workspace.data(), workspaceSize - 1, &context);
}

Status SetupWithNoCpuPath(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context{c.platform, 1, Backend::kCpu};
    uint64_t workspaceSize = 0;
    setenv("ATBX_CPU_PATH", "none", 1);
    const Status st = Create(c)->Setup(pack, workspaceSize, &context);
    unsetenv("ATBX_CPU_PATH");
    return st;
}

// Long contexts on the reference backend keep each Execute busy for milliseconds.
TestCall LongDecode() {
    PaShape shape;
    shape.headSize = 128;
    shape.contextLens = {1500, 1700, 1900, 2047};
    return MakePaCall({}, shape);
}

// One thread executes the operation over and over; this thread calls Setup on the same operation until one
// call lands inside an Execute (each Execute takes milliseconds, so the first attempts do). Returns that
// status, or the last one when none collided within the time limit.
Status SetupWhileAnotherThreadExecutes(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context{c.platform, 1, Backend::kReference};
    std::unique_ptr<Operation> op = Create(c);
    uint64_t workspaceSize = 0;
    if (Status st = op->Setup(pack, workspaceSize, &context); !st.ok()) return st;
    std::atomic<bool> stop = false;
    std::thread executor([&] {
        while (!stop.load()) {
            Context executorContext{c.platform, 1, Backend::kReference};
            if (!op->Execute(pack, nullptr, workspaceSize, &executorContext).ok()) std::this_thread::yield();
        }
    });
    Status st;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
        st = op->Setup(pack, workspaceSize, &context);
    } while (st.rule() != "call.concurrent_use" && std::chrono::steady_clock::now() < deadline);
    stop = true;
    executor.join();
    return st;
}

Status SetupWithUnknownBackend(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context{c.platform, 1, static_cast<Backend>(7)};
    uint64_t workspaceSize = 0;
    return Create(c)->Setup(pack, workspaceSize, &context);
}

// A Context whose platform is none of the profiles, with a block id past the caches: validation must not
// be switched off (no rule's profile set contains such a platform), so nothing is read with the block id.
Status SetupWithUnknownContextPlatform(TestCall& c) {
    Elements<int32_t>(c.In("blockTables"))[0] = 1 << 30;
    const VariantPack pack = c.Pack();
    Context context{static_cast<Platform>(9), 1, Backend::kReference};
    uint64_t workspaceSize = 0;
    const std::unique_ptr<Operation> op = Create(c);
    const Status setup = op->Setup(pack, workspaceSize, &context);
    if (setup.ok()) return op->Execute(pack, nullptr, 0, &context);
    return setup;
}

}  // namespace

std::vector<RuleCase> ApiRuleCases() {
    return {
        {"call.create.out_pointer", ERROR_INVALID_OPERATION_ADDR, "", Decode, Unchanged,
         CreateWithoutOutPointer},
        {"call.execute.after_setup", ERROR_INVALID_PARAM, "", Decode, Unchanged, ExecuteWithoutSetup},
        {"call.execute.workspace_size", ERROR_INVALID_PARAM, "", Decode, Unchanged,
         ExecuteWithShortWorkspace},
        {"call.concurrent_use", ERROR_INVALID_OPERATION_ADDR, "", LongDecode, Unchanged,
         SetupWhileAnotherThreadExecutes},
        {"call.param.platform_known", ERROR_INVALID_PARAM, "context", Decode, Unchanged,
         SetupWithUnknownContextPlatform},
        {"call.setup.backend_known", ERROR_INVALID_PARAM, "", Decode, Unchanged, SetupWithUnknownBackend},
        {"dispatch.cpu.unsupported", ERROR_OPERATION_NULL_RUNNER, "", Decode, Unchanged, SetupWithNoCpuPath},
    };
}

}  // namespace atbx::test
