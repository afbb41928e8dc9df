// SelfAttention param rules (CreateOperation): self_attention.md 5.1, 5.2, the seed, DECISIONS.md.
#include <algorithm>

#include "ops/self_attention/sa_rules.h"

namespace atbx::ops::sa {
namespace {

using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = SaSubject;

Verdict RsvZero(const S& s) {
    const auto& rsv = s.param->rsv;
    const auto* nonZero = std::find_if(std::begin(rsv), std::end(rsv), [](uint8_t b) { return b != 0; });
    return Require(nonZero == std::end(rsv), "rsv must be all zero, rsv[", nonZero - std::begin(rsv), "] is ",
                   nonZero == std::end(rsv) ? 0 : static_cast<int>(*nonZero));
}

Verdict HeadNumPositive(const S& s) {
    return Require(s.param->headNum > 0, "headNum must be > 0, got ", s.param->headNum);
}

}  // namespace

std::vector<SaRule> ParamRules() {
    const auto kAll = ProfileSet::All();
    return {
        {{"sa.param.rsv_zero", "SelfAttention", Stage::kParam, kAll, ERROR_INVALID_PARAM, "rsv is all zero",
          "self_attention.md 5.1 (OP_PARAM_RSV_CHECK)"},
         RsvZero},
        {{"sa.param.head_num_positive", "SelfAttention", Stage::kParam, kAll, ERROR_INVALID_PARAM,
          "headNum > 0", "self_attention.md 5.1"},
         HeadNumPositive},
    };
}

}  // namespace atbx::ops::sa
