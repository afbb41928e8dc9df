#include "ops/reshape_and_cache/rac_rules.h"

namespace atbx::ops::rac {

std::span<const RacRule> Rules() {
    static const std::vector<RacRule> rules = [] {
        std::vector<RacRule> all = ParamRules();
        for (auto* part : {&DtypeRules, &TensorRules, &ValueRules}) {
            std::vector<RacRule> more = part();
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }();
    return rules;
}

}  // namespace atbx::ops::rac
