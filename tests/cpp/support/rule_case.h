// RuleCase: one rule of the table, a valid call that passes it, and the one change that breaks that rule and
// no other. Every rule in the table has at least one (rule_coverage_test.cpp checks this).
#ifndef ATBX_TESTS_SUPPORT_RULE_CASE_H
#define ATBX_TESTS_SUPPORT_RULE_CASE_H

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "atbx/status.h"
#include "support/test_call.h"

namespace atbx::test {

struct RuleCase {
    std::string rule;     // the id the broken call must violate, alone
    ErrorType code;       // the status ATB gives for it (e.g. a CSV negative row's category)
    std::string variant;  // tells apart several cases of one rule; "" for the only one
    std::function<TestCall()> valid;
    std::function<void(TestCall&)> breakRule;
    // For rules the API enforces outside validation (Execute before Setup ...): performs the call and returns
    // its status. Unset: the broken call is validated, and set up through the public path.
    std::function<Status(TestCall&)> trigger = nullptr;
};

// Prints "rule/variant" in test output instead of the struct's bytes.
void PrintTo(const RuleCase& c, std::ostream* out);

// The tables, one per file (rule_cases_<op>.cpp).
std::vector<RuleCase> CommonRuleCases();
std::vector<RuleCase> PagedAttentionParamRuleCases();   // rule_cases_pa_param.cpp
std::vector<RuleCase> PagedAttentionTensorRuleCases();  // rule_cases_pa_tensor.cpp
std::vector<RuleCase> PagedAttentionValueRuleCases();   // rule_cases_pa_values.cpp
std::vector<RuleCase> SelfAttentionRuleCases();         // rule_cases_sa.cpp: param stage
std::vector<RuleCase> SelfAttentionTensorRuleCases();   // rule_cases_sa_tensor.cpp
std::vector<RuleCase> SelfAttentionValueRuleCases();    // rule_cases_sa_values.cpp
std::vector<RuleCase> ReshapeAndCacheRuleCases();
std::vector<RuleCase> ApiRuleCases();

std::vector<RuleCase> AllRuleCases();

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_RULE_CASE_H
