// MaskPolicy: the term added to a logit, one of the mask kinds. Every kind has
//   double Term(const WorkItem&, int64_t head, int64_t row, int64_t key) const
// which the reference and the fast kernels both call, so their semantics cannot drift apart.
#ifndef ATBX_PLAN_MASK_POLICY_H
#define ATBX_PLAN_MASK_POLICY_H

#include <cstdint>
#include <variant>

#include "plan/mask_alibi.h"
#include "plan/mask_alibi_tile.h"
#include "plan/mask_causal.h"
#include "plan/mask_tensor.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct NoMask {
    double Term(const WorkItem&, int64_t, int64_t, int64_t) const { return 0.0; }
};

using MaskPolicy = std::variant<NoMask, TensorMask, CausalMask, AlibiMask, AlibiTileMask>;

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_POLICY_H
