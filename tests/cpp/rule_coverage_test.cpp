// The rule table is complete and consistent: every rule has a case that triggers it, ids are unique and name
// their op, and every rule says what must hold and where it comes from.
#include <gtest/gtest.h>

#include <set>

#include "ops/rule_table.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

TEST(RuleTable, EveryRuleHasACaseThatTriggersIt) {
    std::set<std::string> covered;
    for (const RuleCase& c : AllRuleCases())
        covered.insert(c.rule);
    for (const rules::RuleInfo* info : ops::AllRules()) {
        EXPECT_TRUE(covered.count(std::string(info->id))) << info->id << " has no rule case";
    }
}

TEST(RuleTable, IdsAreUniqueAndNameTheirOp) {
    std::set<std::string_view> seen;
    for (const rules::RuleInfo* info : ops::AllRules()) {
        EXPECT_TRUE(seen.insert(info->id).second) << "duplicate id " << info->id;
        const std::string_view id = info->id;
        const std::string_view op = info->op;
        const bool named = (op == "PagedAttention" && id.starts_with("pa.")) ||
                           (op == "SelfAttention" && id.starts_with("sa.")) ||
                           (op == "ReshapeAndCache" && id.starts_with("rac.")) ||
                           (op == "*" && (id.starts_with("call.") || id.starts_with("dispatch.")));
        EXPECT_TRUE(named) << id << " does not name its op " << op;
    }
}

TEST(RuleTable, EveryRuleStatesItsConditionAndSource) {
    for (const rules::RuleInfo* info : ops::AllRules()) {
        EXPECT_FALSE(info->condition.empty()) << info->id;
        EXPECT_FALSE(info->source.empty()) << info->id;
        EXPECT_NE(info->code, NO_ERROR) << info->id;
    }
}

}  // namespace
}  // namespace atbx::test
