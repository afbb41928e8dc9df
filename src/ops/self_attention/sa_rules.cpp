#include "ops/self_attention/sa_rules.h"

namespace atbx::ops::sa {

std::span<const SaRule> Rules() {
    static const std::vector<SaRule> rules = [] {
        std::vector<SaRule> all;
        for (auto* part : {&ParamRules, &ModeRules, &PlatformRules, &DtypeRules, &RankRules, &ShapeRules,
                           &HeadSizeRules, &MaskRules, &HostRules, &DeviceRules}) {
            std::vector<SaRule> more = part();
            all.insert(all.end(), more.begin(), more.end());
        }
        return all;
    }();
    return rules;
}

}  // namespace atbx::ops::sa
