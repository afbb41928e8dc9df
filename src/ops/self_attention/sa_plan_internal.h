// The SelfAttention planner's parts, one concern per file: call geometry and batches (sa_plan_batches.cpp),
// key/value sources and the cache writes before attention (sa_plan_sources.cpp), the mask
// (sa_plan_mask.cpp). sa_plan.cpp puts them together.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_PLAN_INTERNAL_H
#define ATBX_OPS_SELF_ATTENTION_SA_PLAN_INTERNAL_H

#include <cstdint>
#include <vector>

#include "ops/self_attention/sa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::sa::planning {

// Head counts and sizes of the call, and how its query and output rows are laid out.
struct Geometry {
    int64_t heads = 0;     // H
    int64_t kvHeads = 0;   // Hk
    int64_t headDim = 0;   // D: channels of q and K per head
    int64_t headDimV = 0;  // Dv: channels of V and of the output per head
    bool bnsd =
        false;  // q and output are [B, H, rows, D] (inputLayout TYPE_BNSD), else token rows [N, H * D]
    int64_t bnsdRows = 0;    // BNSD: rows of every batch in q and the output
    int64_t outputRows = 0;  // token layouts: rows of the output
};

Geometry GeometryOf(const SaSubject& s);

// One batch of the call (or the padding after the last one): where its rows sit and what they attend.
struct BatchSpan {
    int32_t batch = 0;
    int64_t row = 0;      // token layouts: first row of the batch in q and the output
    int32_t rows = 0;     // rows the batch owns in the output: its query rows, then padding
    int32_t qLen = 0;     // query rows that attend
    int32_t kvBegin = 0;  // keys [kvBegin, kvEnd) take part in the softmax
    int32_t kvEnd = 0;
    int64_t kvSequence = 0;    // the sources' kvSequence of the batch (plan::KvSource)
    int64_t prefix = 0;        // absolute position of query row 0 (bottom-right alignment in PREFIX_ENCODER)
    bool runs = false;         // false: every row of the batch is written as zeros
    bool writesCache = false;  // FA-cache: the batch's new tokens go into the caches first
};

// The batches of the call in order, then a padding span when the output has rows after the last batch.
std::vector<BatchSpan> BatchSpans(const SaSubject& s, const Geometry& g);

// Element offset of row 0, head 0 of a batch in q (width D) or the output (width Dv).
int64_t FirstElement(const Geometry& g, const BatchSpan& span, int64_t width);
// Query or output rows: [N, H * width] token rows, or [B, H, rows, width].
plan::RowAccess RowsOf(const Geometry& g, int64_t width);

plan::KvSource KeySource(const SaSubject& s, const Geometry& g);
plan::KvSource ValueSource(const SaSubject& s, const Geometry& g);
// FA-cache: the new key and value rows of every batch that writes, copied into cacheK and cacheV at
// [layerId][b][tokenOffset - seqLen + t].
plan::CacheWritePlan CacheWrites(const SaSubject& s, const Geometry& g, const std::vector<BatchSpan>& spans);

plan::MaskPolicy MaskPolicyFor(const SaSubject& s);

// Atlas inference and Atlas training products: FRACTAL_NZ caches, token rows padded to 16.
bool NzProduct(const SaSubject& s);

}  // namespace atbx::ops::sa::planning

#endif  // ATBX_OPS_SELF_ATTENTION_SA_PLAN_INTERNAL_H
