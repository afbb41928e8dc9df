// SelfAttention prefill rows: causal PA_ENCODER prefills (one sequence or a batch of mixed lengths; the
// causal tile, the full causal mask, or an ALiBi mask; int8 QKV), a PREFIX_ENCODER prefill over a paged
// prefix, and a sliding-window prefill.
#ifndef ATBX_TOOLS_ATBX_BENCH_PREFILL_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_PREFILL_ROW_H

#include <cstdint>
#include <string>
#include <vector>

#include "atbx/types.h"
#include "bench/bench_row.h"

namespace atbx::cli::bench {

enum class PrefillKind {
    kCausal,         // PA_ENCODER, NORM mask with isTriuMask 1 (the causal [128, 128] tile)
    kPrefix,         // PREFIX_ENCODER over `prefix` cached tokens, CAUSAL_MASK (bottom-right causal)
    kSlidingWindow,  // PA_ENCODER, SLIDING_WINDOW_COMPRESS mask of `window` tokens
    kDense,          // PA_ENCODER without a mask: every key of the sequence (what causal rows compare with)
    kFullMask,       // PA_ENCODER, the full [1, S, S] NORM mask many models pass in place of the causal tile
    kAlibi,          // PA_ENCODER, an ALiBi mask [H, S, S] (each head's bias, hidden above the diagonal)
    kInt8Qkv,        // kCausal with int8 Q, K and V (QUANT_QKV_ONLINE, per-head descales; fp16 out and mask)
};

struct PrefillShape {
    std::string family;
    int32_t heads = 32;
    int32_t kvHeads = 8;
    int32_t headSize = 128;
    int32_t headSizeV = 128;
    bool mla = false;  // combined K/V (mlaVHeadSize): V is the first headSizeV channels of K
    std::vector<int32_t> seqLens = {512};  // new tokens per sequence
    PrefillKind kind = PrefillKind::kCausal;
    int32_t prefix = 0;  // kPrefix: cached tokens before the new ones
    int32_t window = 0;  // kSlidingWindow
    aclDataType dtype = ACL_FLOAT16;
    bool cold = false;  // prefill reads its inputs once and is compute-bound: warm unless said otherwise
};

RowSpec PrefillRow(const PrefillShape& shape);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_PREFILL_ROW_H
