// PagedAttention rank rules (docs/spec/paged_attention.md 4.3 InferShape ranks, 4.4 Setup, 4.5 kernel): every
// dim a later stage reads exists. Mask ranks depend on the mask type and are checked with the mask's shape
// (pa_rules_shape_aux.cpp, pa_rules_mask.cpp).
#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

Verdict CheckRank(const S& s, Input input, uint64_t rank) {
    if (!s.Has(input)) return Pass();
    return Require(s.Rank(input) == rank, InputName(input), " must have ", rank, " dims, got shape ",
                   ShapeToString(s.Desc(input).shape));
}

Verdict CoreRanks(const S& s) {
    if (auto v = CheckRank(s, Input::kQuery, 3)) return v;
    if (auto v = CheckRank(s, Input::kKeyCache, 4)) return v;
    if (auto v = CheckRank(s, Input::kValueCache, 4)) return v;
    if (auto v = CheckRank(s, Input::kBlockTables, 2)) return v;
    return CheckRank(s, Input::kContextLens, 1);
}

Verdict AuxRanks(const S& s) {
    for (Input input : {Input::kBatchRunStatus, Input::kKDescale, Input::kKOffset, Input::kVDescale,
                        Input::kVOffset, Input::kQSeqLen, Input::kPScale, Input::kLogN}) {
        if (auto v = CheckRank(s, input, 1)) return v;
    }
    return CheckRank(s, Input::kRazorOffset, 2);
}

}  // namespace

std::vector<PaRule> RankRules() {
    return {
        MakeRule("pa.rank.core", Stage::kRank, kAll, ERROR_INVALID_TENSOR_DIM_NUM,
                 "query 3-D, keyCache and valueCache 4-D, blockTables 2-D, contextLens 1-D",
                 "docs/spec/paged_attention.md 4.3 (InferShapeDimCheck), 4.4", CoreRanks),
        MakeRule("pa.rank.aux_tensors", Stage::kRank, kAll, ERROR_INVALID_TENSOR_DIM,
                 "batchRunStatus, qSeqLen, kDescale, kOffset, vDescale, vOffset, pScale and logN 1-D; "
                 "razorOffset 2-D",
                 "docs/spec/paged_attention.md 4.4 (RazorDimCheck, LogNDimCheck), 4.5 (descale [headNum] / "
                 "[Hk*D])",
                 AuxRanks),
    };
}

}  // namespace atbx::ops::pa
