// SelfAttention planner: turns a validated call into an AttentionPlan (self_attention.md 2-3, DECISIONS.md
// 12-18). Every mode, layout and mask form is decoded here; kernels only read the plan.
//
// Every output element is written: rows that attend get the attention result; rows that do not (dynamic-batch
// batches with status 0, batches without keys, the rows Atlas inference pads each batch or the whole query
// to, BNSD rows past a batch's length) are written as zeros.
//
// The planner relies on the rules for what it reads: the input ranks and shapes of the mode (head dims that
// divide, caches and masks that cover every row and key a batch reads, [H, rows, 128] alibi tiles with rows
// beyond every query's absolute position), host values that fit (seqLen / kvSeqLen / tokenOffset >= 0,
// tokenOffset >= seqLen, lengths within the caches), layerId within the cache's layers, and block-table
// entries within the paged cache.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_PLAN_H
#define ATBX_OPS_SELF_ATTENTION_SA_PLAN_H

#include "ops/self_attention/sa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::sa {

// The subject must have passed every rule; its pack holds the data.
plan::AttentionPlan BuildPlan(const SaSubject& subject);

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_PLAN_H
