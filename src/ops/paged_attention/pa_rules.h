// PagedAttention's rules: every sentence of the seed constraint page and every ATB check
// (docs/spec/paged_attention.md 4), with the decisions of docs/spec/DECISIONS.md and docs/decisions.md. One
// file per concern.
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_RULES_H
#define ATBX_OPS_PAGED_ATTENTION_PA_RULES_H

#include <span>
#include <vector>

#include "ops/paged_attention/pa_subject.h"
#include "rules/rule.h"

namespace atbx::ops::pa {

using PaRule = rules::Rule<PaSubject>;

std::vector<PaRule> ParamRules();         // pa_rules_param.cpp: ranges, common checks, profile features
std::vector<PaRule> FeatureParamRules();  // pa_rules_param_features.cpp: feature combinations
std::vector<PaRule> DtypeRules();         // pa_rules_dtype.cpp: ATB's dtype/format table, fp16-only products
std::vector<PaRule> RankRules();          // pa_rules_rank.cpp
std::vector<PaRule> CacheShapeRules();    // pa_rules_shape.cpp: heads, head sizes, block sizes
std::vector<PaRule> AuxShapeRules();   // pa_rules_shape_aux.cpp: batch-indexed and quant tensors, fixed masks
std::vector<PaRule> HostValueRules();  // pa_rules_values.cpp: lengths, flags, rows, parallel limits
std::vector<PaRule> MaskRules();       // pa_rules_mask.cpp: mask shapes against what the call reads
std::vector<PaRule> DeviceValueRules();  // pa_rules_values.cpp: block-table entries

// All of them, in evaluation order.
std::span<const PaRule> Rules();

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_RULES_H
