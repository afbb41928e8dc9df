// PagedAttention planner: turns a validated call into an AttentionPlan (docs/spec/paged_attention.md 3,
// docs/spec/DECISIONS.md).
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_PLAN_H
#define ATBX_OPS_PAGED_ATTENTION_PA_PLAN_H

#include "ops/paged_attention/pa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::pa {

// The subject must have passed every rule; its pack holds the data.
plan::AttentionPlan BuildPlan(const PaSubject& subject);

// Reads again what the plan holds of device tensors' values, which may differ from what Setup saw (Execute
// calls it with the values it is given): a compressed mask's hidden value and the caches' dequantisation
// scales and offsets. Allocates nothing.
void RebuildPlan(const PaSubject& subject, plan::AttentionPlan* plan);

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_PLAN_H
