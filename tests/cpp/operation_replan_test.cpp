// An operation set up once stays usable: Execute with host values that break a rule fails with the rule's
// id and keeps the last valid plan, so Execute with valid values runs again.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "atbx/operation.h"
#include "support/pa_calls.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

TEST(OperationReplan, UsableAgainAfterAFailedReplanOnceValidValuesAreBack) {
    TestCall call = MakePaCall({});
    Operation* raw = nullptr;
    ASSERT_TRUE(CreateOperation(call.Param<infer::PagedAttentionParam>(), &raw, call.platform).ok());
    const std::unique_ptr<Operation> op(raw);
    Context context{call.platform, 1, Backend::kReference};
    const VariantPack pack = call.Pack();
    uint64_t workspaceSize = 0;
    ASSERT_TRUE(op->Setup(pack, workspaceSize, &context).ok());
    ASSERT_TRUE(op->Execute(pack, nullptr, workspaceSize, &context).ok());
    const std::vector<uint8_t> first = call.outputs[0].bytes;

    int32_t& context0 = Elements<int32_t>(call.In("contextLens"))[0];
    const int32_t valid = context0;
    context0 = -1;
    const Status broken = op->Execute(pack, nullptr, workspaceSize, &context);
    EXPECT_EQ(broken.rule(), "pa.host.context_lens_non_negative") << broken.ToString();

    context0 = valid;
    call.outputs[0].bytes.assign(call.outputs[0].bytes.size(), 0xFF);
    const Status again = op->Execute(pack, nullptr, workspaceSize, &context);
    ASSERT_TRUE(again.ok()) << again.ToString();
    EXPECT_EQ(call.outputs[0].bytes, first);
}

}  // namespace
}  // namespace atbx::test
