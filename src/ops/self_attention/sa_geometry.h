// Sizes of a SelfAttention call derived from its descriptors and host values, shared by the rules, the output
// shape and the planner. Descriptor sizes are valid once Stage::kRank has passed (the ranks are known); host
// sizes once Stage::kHostValues runs. A size the descriptors do not determine (a hidden size its heads do not
// divide) is nullopt: the rule that checks the divisibility reports it, the others pass.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_GEOMETRY_H
#define ATBX_OPS_SELF_ATTENTION_SA_GEOMETRY_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/self_attention/sa_subject.h"

namespace atbx::ops::sa {

using Size = std::optional<int64_t>;

// Profiles with FRACTAL_NZ caches and masks and 16-row token padding (atlas-inference, atlas-training).
bool NzPlatform(Platform platform);
bool IsAlibiCompress(Param::MaskType maskType);  // ALIBI_COMPRESS, _SQRT, _LEFT_ALIGN: these take slopes
bool IsSwaMask(Param::MaskType maskType);        // SLIDING_WINDOW_NORM, SLIDING_WINDOW_COMPRESS
// Sliding-window attention is on: windowSize > 0 with a sliding-window mask type.
bool SwaEnabled(const Param& param);
int64_t RoundUp16(int64_t value);
// a * b of non-negative sizes, saturating at INT64_MAX: hostile dims must not overflow.
int64_t SatMul(int64_t a, int64_t b);
// ceil(a / b) for a >= 0 and b > 0, without overflow.
int64_t CeilDiv(int64_t a, int64_t b);

// Index of the head dim of q, key, value or a cache, or -1 when the tensor packs heads into a hidden dim:
// [N, H*D] (2-D q/k/v), [L, B, S, Hk*D] (ND FA cache), [NB, BS, Hk*D] (3-D PREFIX cache), NZ caches.
int HeadDimIndex(const SaSubject& s, Input input);
// Hidden size of a cache row: the last dim (ND BSND caches) or dims[2] * dims[4] (NZ [L, B, H*D/16, S, 16]).
int64_t CacheHidden(const SaSubject& s, Input cache);
// Per-head size of q (heads = headNum), key/value or a cache (kvHeadNum): the last dim when the tensor has a
// head dim, else hidden / heads (nullopt when the heads do not divide it).
Size HeadSizeOf(const SaSubject& s, Input input);

struct HeadSizes {
    Size q;  // query
    Size k;  // keys (key, cacheK, or the PREFIX key cache)
    Size v;  // values; mlaVHeadSize for MLA
};
HeadSizes HeadSizesOf(const SaSubject& s);

// Token rows of a packed q/k/v: dims[0] of [N, ...], dims[0] * dims[1] of a 4-D FA tensor [b, s, H, D].
int64_t TokenRows(const SaSubject& s, Input input);

// FA caches: [L, B, S, hidden] (ND), [B, S, hidden] (dynamic batch), [L, B, hidden/16, S, 16] (NZ),
// BNSD [L, B, Hk, S, D] (ND) or [L, B*Hk, D/16, S, 16] (NZ).
struct CacheShape {
    bool hasLayers = true;  // false for the dynamic-batch cache
    int64_t layers = 0;
    Size batch;  // nullopt when an NZ BNSD cache's dims[1] is not a multiple of kvHeadNum
    int64_t maxSeq = 0;
};
CacheShape CacheShapeOf(const SaSubject& s, Input cache);

// Number of sequences: the last dim of seqLen.
int64_t BatchOf(const SaSubject& s);

// Mask dims as the kernels read them. ND [..., rows, cols]; FRACTAL_NZ [lead, cols/16, rows, 16].
struct MaskShape {
    bool nz = false;
    uint64_t leadingDims = 0;  // dims before rows and cols (ND) or the one leading dim (NZ)
    int64_t lead[2] = {1, 1};  // their sizes
    int64_t rows = 0;
    int64_t cols = 0;
};
MaskShape MaskShapeOf(const SaSubject& s);

// Host lengths: query rows and key rows of each sequence.
const std::vector<int32_t>& QueryLens(const SaSubject& s);
const std::vector<int32_t>& KeyLens(const SaSubject& s);  // tokenOffset in the FA modes, else kvSeqLen
int64_t MaxOf(const std::vector<int32_t>& values);        // 0 for an empty list

// Dynamic batch: batch b has batchRunStatus[b] == 0. Its new tokens are not written and it attends to nothing
// (docs/spec/self_attention.md 3.9), so its tokenOffset is never read.
bool BatchSkipped(const SaSubject& s, size_t b);
// A host length as the caller gave it: uint32 tensors are read into int32, so values above INT32_MAX come
// back as their uint32 value for messages.
int64_t AsGiven(const SaSubject& s, int32_t value);

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_GEOMETRY_H
