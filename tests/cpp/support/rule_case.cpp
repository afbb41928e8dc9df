#include "support/rule_case.h"

namespace atbx::test {

void PrintTo(const RuleCase& c, std::ostream* out) {
    *out << c.rule << (c.variant.empty() ? "" : "/") << c.variant;
}

std::vector<RuleCase> AllRuleCases() {
    std::vector<RuleCase> all;
    for (auto* table : {&CommonRuleCases, &PagedAttentionParamRuleCases, &PagedAttentionTensorRuleCases,
                        &PagedAttentionValueRuleCases, &SelfAttentionRuleCases, &SelfAttentionTensorRuleCases,
                        &SelfAttentionValueRuleCases, &ReshapeAndCacheRuleCases, &ApiRuleCases}) {
        std::vector<RuleCase> cases = table();
        all.insert(all.end(), cases.begin(), cases.end());
    }
    return all;
}

}  // namespace atbx::test
