// The parts of the public API that code ported from ATB calls around the operations: CreateContext and
// DestroyContext, GetName, and the backend names a context is configured by.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>

#include "atbx/context.h"
#include "atbx/operation.h"
#include "support/pa_calls.h"
#include "support/rac_calls.h"
#include "support/run_call.h"
#include "support/sa_valid_calls.h"

namespace atbx::test {
namespace {

// The operation of the call's param, created as a user would.
std::unique_ptr<Operation> CreateFor(const TestCall& call) {
    Operation* raw = nullptr;
    const Status status = std::visit(
        [&](const auto& param) { return CreateOperation(param, &raw, call.platform); }, call.param);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return std::unique_ptr<Operation>(raw);
}

TEST(PublicApi, CreateContextRefusesANullOutPointer) {
    const Status status = CreateContext(nullptr);
    EXPECT_EQ(status.code(), ERROR_INVALID_CONTEXT_ADDR) << status.ToString();
    EXPECT_NE(status.message().find("null"), std::string::npos) << status.ToString();
}

TEST(PublicApi, CreateContextGivesTheDefaults) {
    Context* context = nullptr;
    ASSERT_TRUE(CreateContext(&context).ok());
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(context->platform, Platform::kAtlasA2);
    EXPECT_EQ(context->threads, 0);
    EXPECT_EQ(context->backend, Backend::kAuto);
    EXPECT_EQ(context->cpuPath, nullptr);
    EXPECT_TRUE(DestroyContext(context).ok());
}

// A context from CreateContext runs a call on the CPU backend: Setup and Execute under it meet ATB's
// precision standard against the float64 reference.
TEST(PublicApi, ACreatedContextRunsACall) {
    PaShape shape;
    shape.headSize = 128;
    shape.contextLens = {300, 17, 129};
    TestCall call = MakePaCall({}, shape);
    const std::vector<double> reference = ReferenceResult(call);
    Context* context = nullptr;
    ASSERT_TRUE(CreateContext(&context).ok());
    context->backend = Backend::kCpu;
    context->threads = 2;
    const std::unique_ptr<Operation> op = CreateFor(call);
    const VariantPack pack = call.Pack();
    uint64_t workspaceSize = 0;
    ASSERT_TRUE(op->Setup(pack, workspaceSize, context).ok());
    EXPECT_EQ(op->KernelName().rfind("cpu:", 0), 0u) << op->KernelName();
    std::vector<uint8_t> workspace(workspaceSize);
    const Status executed = op->Execute(pack, workspace.data(), workspaceSize, context);
    EXPECT_TRUE(executed.ok()) << executed.ToString();
    EXPECT_EQ(PrecisionFailure(call, reference, 128, 300), "");
    EXPECT_TRUE(DestroyContext(context).ok());
}

TEST(PublicApi, DestroyingANullContextIsANoOp) {
    EXPECT_TRUE(DestroyContext(nullptr).ok());
}

TEST(PublicApi, OperationsAreNamedAsInAtb) {
    EXPECT_EQ(CreateFor(MakePaCall({}))->GetName(), "PagedAttentionOperation");
    EXPECT_EQ(CreateFor(SaCall("fa_encoder"))->GetName(), "SelfAttentionOperation");
    EXPECT_EQ(CreateFor(MakeRacCall(RacParam(0)))->GetName(), "ReshapeAndCacheOperation");
}

TEST(PublicApi, BackendNamesParseBack) {
    for (Backend backend : {Backend::kAuto, Backend::kReference, Backend::kCpu})
        EXPECT_EQ(ParseBackend(BackendName(backend)), backend) << BackendName(backend);
    EXPECT_STREQ(BackendName(Backend::kReference), "ref");
    EXPECT_EQ(ParseBackend("gpu"), std::nullopt);
    EXPECT_EQ(ParseBackend(""), std::nullopt);
    EXPECT_STREQ(BackendName(static_cast<Backend>(7)), "unknown");
}

}  // namespace
}  // namespace atbx::test
