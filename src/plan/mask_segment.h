// The vectorised kernels' view of a MaskPolicy (the reference reads Term() per key):
// - AddMaskTerms: the terms of keys [j0, j0 + n) of one query row added to fp32 scores, dtype resolved once
//   per segment; equal to adding static_cast<float>(Term()) key by key.
// - ClassifyTile: whether keys [j0, j1) are visible, hidden or mixed for rows [rowBegin, rowEnd) of an item.
// A -inf term hides its key: the score becomes -inf whatever it was (NaN included), so keys a -inf mask hides
// are never read. Finite "hidden" values (ATB's -60000) are ordinary terms: such keys are computed, never
// skipped, and still count in a row that has no other key (docs/decisions.md, numeric semantics).
#ifndef ATBX_PLAN_MASK_SEGMENT_H
#define ATBX_PLAN_MASK_SEGMENT_H

#include <cstdint>

#include "plan/mask_policy.h"

namespace atbx::plan {

enum class MaskKind { kNone, kTensor, kCausal, kAlibi, kAlibiTile };
MaskKind KindOf(const MaskPolicy& mask);

void AddMaskTerms(const MaskPolicy& mask, const WorkItem& item, int64_t head, int64_t row, int64_t j0,
                  int32_t n, float* scores);

enum class TileClass {
    kVisible,  // every term 0 (or no mask)
    kHidden,   // every term -inf: the tile can be skipped exactly
    kPartial,  // anything else: terms are added key by key
};
TileClass ClassifyTile(const MaskPolicy& mask, const WorkItem& item, int64_t rowBegin, int64_t rowEnd,
                       int64_t j0, int64_t j1);

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_SEGMENT_H
