// SelfAttention tensor rules: dtypes and formats (ATB's ini tables), ranks and shapes
// (self_attention.md 5.3).
#include "ops/self_attention/sa_rules.h"

namespace atbx::ops::sa {
namespace {

using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = SaSubject;

Verdict QueryRank(const S& s) {
    const uint64_t rank = s.Rank(Input::kQuery);
    return Require(rank >= 2 && rank <= 4, "query must have 2 to 4 dims, got shape ",
                   ShapeToString(s.Desc(Input::kQuery).shape));
}

}  // namespace

std::vector<SaRule> TensorRules() {
    return {
        {{"sa.rank.query", "SelfAttention", Stage::kRank, ProfileSet::All(), ERROR_INVALID_TENSOR_DIM_NUM,
          "query has 2, 3 or 4 dims", "self_attention.md 2"},
         QueryRank},
    };
}

}  // namespace atbx::ops::sa
