// A tensor mask that holds a causal mask: models often pass SelfAttention prefills the full [S, S] (or
// [B, S, S]) NORM mask, 0 on and below the diagonal and one hidden value above it (-10000 in fp16, the flag 1
// in bf16), rather than the compressed 128 x 128 tile. Read as a tensor, every tile is "partial" and a causal
// prefill costs the dense one; decoded to the CausalMask it holds, the kernels skip the tiles above the
// diagonal exactly as for the tile (docs/decisions.md, numeric semantics). A sliding-window NORM mask (hidden
// also before a window of W keys) becomes the windowed CausalMask that SLIDING_WINDOW_COMPRESS's tile gives.
#ifndef ATBX_PLAN_MASK_CAUSAL_FORM_H
#define ATBX_PLAN_MASK_CAUSAL_FORM_H

#include <vector>

#include "plan/mask_policy.h"
#include "plan/work_item.h"

namespace atbx::plan {

// The CausalMask whose Term() equals `mask`'s at every (row, key) the items read (key j of row i of an item
// visible, term +0 or -0, iff p - W < j <= p for p = item.prefix + i and one window W of every row, or no
// window; every hidden element the same bits, not NaN), where `mask` is an ND fp16, bf16 or fp32 TensorMask
// without a head dim and hides at least one key; else `mask` itself. Terms of visible keys may differ in the
// sign of a zero, which no score, exp or sum tells apart.
MaskPolicy CausalFormOf(const MaskPolicy& mask, const std::vector<WorkItem>& items);

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_CAUSAL_FORM_H
