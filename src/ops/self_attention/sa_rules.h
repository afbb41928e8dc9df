// SelfAttention's rules: every sentence of the seed constraint page and every ATB check (self_attention.md
// 5), with the decisions of DECISIONS.md. Split by stage, one file each.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_RULES_H
#define ATBX_OPS_SELF_ATTENTION_SA_RULES_H

#include <span>
#include <vector>

#include "ops/self_attention/sa_subject.h"
#include "rules/rule.h"

namespace atbx::ops::sa {

using SaRule = rules::Rule<SaSubject>;

std::vector<SaRule> ParamRules();   // sa_rules_param.cpp
std::vector<SaRule> TensorRules();  // sa_rules_tensor.cpp: dtypes, formats, ranks, shapes
std::vector<SaRule> ValueRules();   // sa_rules_values.cpp: host values and indices read from device tensors

std::span<const SaRule> Rules();

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_RULES_H
