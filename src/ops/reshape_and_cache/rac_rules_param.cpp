// ReshapeAndCache param rules (CreateOperation): self_attention.md 4.3.
#include <algorithm>

#include "ops/reshape_and_cache/rac_rules.h"

namespace atbx::ops::rac {
namespace {

using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = RacSubject;

Verdict RsvZero(const S& s) {
    const auto& rsv = s.param->rsv;
    const auto* nonZero = std::find_if(std::begin(rsv), std::end(rsv), [](uint8_t b) { return b != 0; });
    return Require(nonZero == std::end(rsv), "rsv must be all zero, rsv[", nonZero - std::begin(rsv), "] is ",
                   nonZero == std::end(rsv) ? 0 : static_cast<int>(*nonZero));
}

}  // namespace

std::vector<RacRule> ParamRules() {
    return {
        {{"rac.param.rsv_zero", "ReshapeAndCache", Stage::kParam, ProfileSet::All(), ERROR_INVALID_PARAM,
          "rsv is all zero", "self_attention.md 4.3"},
         RsvZero},
    };
}

}  // namespace atbx::ops::rac
