// Every rule case: the valid call passes every rule; the broken call violates exactly the case's rule, with
// the status the case expects, through validation and through the public path.
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/rule_table.h"
#include "support/rule_case.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

const rules::RuleInfo* FindRule(const std::string& id) {
    for (const rules::RuleInfo* info : ops::AllRules()) {
        if (info->id == id) return info;
    }
    return nullptr;
}

class RuleCaseTest : public testing::TestWithParam<RuleCase> {};

TEST_P(RuleCaseTest, ValidCallPassesAndBrokenCallViolatesOnlyTheRule) {
    const RuleCase& c = GetParam();
    const rules::RuleInfo* info = FindRule(c.rule);
    ASSERT_NE(info, nullptr) << c.rule << " is not in the rule table";
    EXPECT_EQ(info->code, c.code) << c.rule << " fails with " << ErrorTypeName(info->code)
                                  << ", the case expects " << ErrorTypeName(c.code);

    TestCall call = c.valid();
    EXPECT_TRUE(ViolatedRules(call).empty()) << "the valid call is not valid:\n" << DescribeViolations(call);

    c.breakRule(call);
    if (c.trigger) {
        const Status st = c.trigger(call);
        EXPECT_EQ(st.rule(), c.rule) << st.ToString();
        EXPECT_EQ(st.code(), c.code) << st.ToString();
        return;
    }
    EXPECT_EQ(ViolatedRules(call), std::vector<std::string>{c.rule}) << DescribeViolations(call);
    if (const std::optional<Status> st = ApiStatus(call)) {
        EXPECT_EQ(st->rule(), c.rule) << st->ToString();
        EXPECT_EQ(st->code(), c.code) << st->ToString();
        EXPECT_FALSE(st->message().empty());
    }
}

std::string CaseName(const testing::TestParamInfo<RuleCase>& info) {
    std::string name = info.param.rule + (info.param.variant.empty() ? "" : "_" + info.param.variant);
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleCaseTest, testing::ValuesIn(AllRuleCases()), CaseName);

}  // namespace
}  // namespace atbx::test
