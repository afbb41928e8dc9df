// ReshapeAndCache tensor rules: dtypes, formats, ranks and shapes (self_attention.md 4.3).
#include "ops/reshape_and_cache/rac_rules.h"

namespace atbx::ops::rac {
namespace {

using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = RacSubject;

Verdict SlotMappingRank(const S& s) {
    return Require(s.Rank(Input::kSlotMapping) == 1, "slotMapping must have 1 dim, got shape ",
                   ShapeToString(s.Desc(Input::kSlotMapping).shape));
}

}  // namespace

std::vector<RacRule> TensorRules() {
    return {
        {{"rac.rank.slot_mapping", "ReshapeAndCache", Stage::kRank, ProfileSet::All(),
          ERROR_INVALID_TENSOR_DIM_NUM, "slotMapping is 1-D", "self_attention.md 4.3 DimCheck"},
         SlotMappingRank},
    };
}

}  // namespace atbx::ops::rac
