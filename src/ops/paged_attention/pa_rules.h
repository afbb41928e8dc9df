// PagedAttention's rules: every sentence of the seed constraint page and every ATB check
// (paged_attention.md 4), with the decisions of DECISIONS.md. Split by stage, one file each.
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_RULES_H
#define ATBX_OPS_PAGED_ATTENTION_PA_RULES_H

#include <span>
#include <vector>

#include "ops/paged_attention/pa_subject.h"
#include "rules/rule.h"

namespace atbx::ops::pa {

using PaRule = rules::Rule<PaSubject>;

std::vector<PaRule> ParamRules();   // pa_rules_param.cpp
std::vector<PaRule> TensorRules();  // pa_rules_tensor.cpp: dtypes, formats, ranks, shapes
std::vector<PaRule> ValueRules();   // pa_rules_values.cpp: host values and block-table entries

// All of them, in evaluation order.
std::span<const PaRule> Rules();

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_RULES_H
