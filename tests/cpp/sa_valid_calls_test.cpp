// Every call of the SelfAttention catalogue is valid: it passes every rule of its platform, param to device
// values, and InferShape gives its output; and it runs on the reference and the CPU backend.
#include <gtest/gtest.h>

#include "support/run_call.h"
#include "support/sa_valid_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

class SaValidCallTest : public testing::TestWithParam<SaValidCall> {};

TEST_P(SaValidCallTest, PassesEveryRule) {
    TestCall call = GetParam().make();
    ASSERT_EQ(call.outputs.size(), 1u);
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

TEST_P(SaValidCallTest, RunsOnTheReferenceAndTheCpuBackend) {
    TestCall call = GetParam().make();
    EXPECT_EQ(RunOnEveryBackend(call), "");
}

std::string Name(const testing::TestParamInfo<SaValidCall>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(SelfAttention, SaValidCallTest, testing::ValuesIn(SaValidCalls()), Name);

}  // namespace
}  // namespace atbx::test
