// The bound on a tensor mask's terms above the diagonal that lets the kernels skip its upper tiles. ALiBi
// masks [H, S, S] (each head's bias below the diagonal, -10000 or -inf above it), padding masks that also
// hide the upper triangle, and every other tensor mask that CausalFormOf cannot decode to a CausalMask are
// read per element; where every term above a row's diagonal lies far enough below the term of the row's own
// key, the kernels' norm bound proves those keys weigh exactly 0 (docs/decisions.md, numeric semantics) and
// their tiles are skipped as a causal mask's are.
#ifndef ATBX_PLAN_MASK_DIAGONAL_BOUND_H
#define ATBX_PLAN_MASK_DIAGONAL_BOUND_H

#include <vector>

#include "plan/mask_policy.h"
#include "plan/work_item.h"

namespace atbx::plan {

// Terms that come within 104 of the own key's prove no key weightless, whatever the logits: e^x is 0 in fp32
// only below -104 (the kernels' bound, docs/decisions.md).
constexpr double kWeightlessGap = -104.0;

// `mask` with TensorMask::diagonalGap set where `mask` is an ND fp16, bf16 or fp32 TensorMask whose items
// read keys above some row's diagonal: the largest term(h, i, j) - term(h, i, p) over every head h, row i and
// key j > p = item.prefix + i the items read, with p among the item's keys (-inf where every such term is).
// Left empty where the items read no such key, where one such term is NaN, where an own key's term is not
// finite, or where the gap is kWeightlessGap or more (the scan stops there: a mask visible above its
// diagonal costs one row's scan); every other mask is returned as it is.
// The scan runs on `threads` threads (core::ParallelFor) and allocates nothing.
MaskPolicy WithDiagonalBound(const MaskPolicy& mask, const std::vector<WorkItem>& items, int threads);

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_DIAGONAL_BOUND_H
