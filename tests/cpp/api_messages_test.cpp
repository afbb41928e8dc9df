// Messages name what was given: unsigned host values as the caller wrote them, unknown enums as unknown.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atbx/operation.h"
#include "support/pa_calls.h"
#include "support/sa_edits.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

TEST(ApiMessages, Uint32LengthsAreShownAsGiven) {
    TestCall call = Valid("fa_uint32_lengths")();
    Elements<int32_t>(call.In("seqLen"))[2] = static_cast<int32_t>(0x80000001u);
    const std::vector<rules::Violation> violations = Violations(call);
    ASSERT_FALSE(violations.empty());
    EXPECT_NE(violations[0].message.find("2147483649"), std::string::npos) << violations[0].message;
    EXPECT_EQ(violations[0].message.find("-2147483647"), std::string::npos) << violations[0].message;
}

TEST(ApiMessages, UnknownBackendAndPlatformAreNamedAsSuch) {
    TestCall call = MakePaCall({});
    Operation* raw = nullptr;
    ASSERT_TRUE(CreateOperation(call.Param<infer::PagedAttentionParam>(), &raw, call.platform).ok());
    const std::unique_ptr<Operation> op(raw);
    const VariantPack pack = call.Pack();
    uint64_t workspaceSize = 0;
    Context badBackend{call.platform, 1, static_cast<Backend>(5)};
    const Status backend = op->Setup(pack, workspaceSize, &badBackend);
    EXPECT_NE(backend.message().find("unknown backend 5"), std::string::npos) << backend.ToString();
    Context badPlatform{static_cast<Platform>(-3), 1, Backend::kAuto};
    const Status platform = op->Setup(pack, workspaceSize, &badPlatform);
    EXPECT_NE(platform.message().find("unknown platform -3"), std::string::npos) << platform.ToString();
}

}  // namespace
}  // namespace atbx::test
