// SelfAttention planner: turns a validated call into an AttentionPlan (docs/spec/self_attention.md 2-3,
// docs/spec/DECISIONS.md 12-18). Every mode, layout and mask form is decoded here; kernels only read the
// plan.
//
// Every output element is written: rows that attend get the attention result; rows that do not (dynamic-batch
// batches with status 0, batches without keys, the rows Atlas inference pads each batch or the whole query
// to, BNSD rows past a batch's length) are written as zeros.
//
// The planner relies on the rules for everything it reads:
//  - the ranks and shapes of the mode's inputs (docs/spec/self_attention.md 2): head sizes that divide, the
//  output of the
//    inferred shape, caches with the batch and layer dims it indexes;
//  - host values: one seqLen / kvSeqLen / tokenOffset / batchRunStatus entry per batch, lengths >= 0,
//    tokenOffset >= seqLen, keys within the cache (tokenOffset <= S, kv_b within the packed or per-batch key
//    rows), query rows within q; layerId within the cache's layers; block-table entries within the paged
//    cache for every block a batch reads;
//  - masks that cover every row and key read (top-left: max q rows and max kv columns; decoders row 0; a
//    compressed tile at least its 2 first elements; [H, rows, 128] alibi tiles with rows beyond every query's
//    absolute position); alibi-compress masks (and slopes) only in PA_ENCODER and PREFIX_ENCODER, CAUSAL_MASK
//    only in PREFIX_ENCODER;
//  - logN, slopes and quant scales at least as long as they are indexed (max q or B; H).
#ifndef ATBX_OPS_SELF_ATTENTION_SA_PLAN_H
#define ATBX_OPS_SELF_ATTENTION_SA_PLAN_H

#include "ops/self_attention/sa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::sa {

// The subject must have passed every rule; its pack holds the data. The plan's mask is the one the mask
// tensor's shape, parameters and compressed value give, which the reference and every kernel compute with.
plan::AttentionPlan BuildPlan(const SaSubject& subject);

// Sets the plan's mask again from the mask tensor's values, which may differ from what Setup saw (Execute
// calls it with the values it is given), in the fastest form they allow: a tensor that holds a causal mask
// as that CausalMask (plan/mask_causal_form.h), any other with the bound on its terms above the diagonal
// (plan/mask_diagonal_bound.h), whose scan runs on `threads` threads. Allocates nothing.
void RebuildPlan(const SaSubject& subject, plan::AttentionPlan* plan, int threads);

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_PLAN_H
