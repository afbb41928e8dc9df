#include "ops/paged_attention/pa_rules.h"

namespace atbx::ops::pa {

std::span<const PaRule> Rules() {
    static const std::vector<PaRule> rules = [] {
        std::vector<PaRule> all;
        for (auto* part : {&ParamRules, &FeatureParamRules, &DtypeRules, &RankRules, &CacheShapeRules,
                           &AuxShapeRules, &HostValueRules, &MaskRules, &DeviceValueRules}) {
            std::vector<PaRule> more = part();
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }();
    return rules;
}

}  // namespace atbx::ops::pa
