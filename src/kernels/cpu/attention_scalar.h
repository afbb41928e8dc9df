// Portable fp32 attention kernel ("cpu:scalar"): the CPU path of machines without a SIMD path, and the
// baseline the SIMD kernels are measured against. Each work item's query heads and rows share every K/V row
// it converts; softmax is online over tiles of keys, all in fp32.
#ifndef ATBX_KERNELS_CPU_ATTENTION_SCALAR_H
#define ATBX_KERNELS_CPU_ATTENTION_SCALAR_H

#include <optional>
#include <string>

#include "plan/attention_plan.h"

namespace atbx::kernels::cpu {

std::optional<std::string> ScalarAttentionRefusal(const plan::AttentionPlan& plan);
void ScalarAttention(const plan::AttentionPlan& plan, int threads);

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_ATTENTION_SCALAR_H
