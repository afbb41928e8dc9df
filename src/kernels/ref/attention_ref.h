// Float64 reference attention over an AttentionPlan: every feature the plan can express, in plain loops. It
// is the yardstick every other kernel is tested against.
#ifndef ATBX_KERNELS_REF_ATTENTION_REF_H
#define ATBX_KERNELS_REF_ATTENTION_REF_H

#include <vector>

#include "plan/attention_plan.h"

namespace atbx::kernels::ref {

// The exact result, indexed like the output tensor (plan.outputElements values). Elements no work item writes
// are NaN. Cache writes of the plan are not performed.
std::vector<double> ComputeAttention(const plan::AttentionPlan& plan, int threads);

// Computes the result and stores it into the output tensor, rounded to its dtype (the plan's cache writes are
// dispatch's, before). Output elements no work item writes are left untouched.
void ExecuteAttention(const plan::AttentionPlan& plan, int threads);

}  // namespace atbx::kernels::ref

#endif  // ATBX_KERNELS_REF_ATTENTION_REF_H
