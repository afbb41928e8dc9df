// Cases for the rules the operation API enforces outside validation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

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

Status SetupWithNoCpuPath(TestCall& c) {
    const VariantPack pack = c.Pack();
    Context context{c.platform, 1, Backend::kCpu};
    uint64_t workspaceSize = 0;
    setenv("ATBX_CPU_PATH", "none", 1);
    const Status st = Create(c)->Setup(pack, workspaceSize, &context);
    unsetenv("ATBX_CPU_PATH");
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
        {"call.param.platform_known", ERROR_INVALID_PARAM, "context", Decode, Unchanged,
         SetupWithUnknownContextPlatform},
        {"call.setup.backend_known", ERROR_INVALID_PARAM, "", Decode, Unchanged, SetupWithUnknownBackend},
        {"dispatch.cpu.unsupported", ERROR_OPERATION_NULL_RUNNER, "", Decode, Unchanged, SetupWithNoCpuPath},
    };
}

}  // namespace atbx::test
