// ReshapeAndCache's rules: every ATB check (docs/spec/self_attention.md 4.3) and docs/spec/DECISIONS.md 19.
// Split by stage.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULES_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULES_H

#include <span>
#include <vector>

#include "ops/reshape_and_cache/rac_subject.h"
#include "rules/rule.h"

namespace atbx::ops::rac {

using RacRule = rules::Rule<RacSubject>;

std::vector<RacRule> ParamRules();   // rac_rules_param.cpp
std::vector<RacRule> DtypeRules();   // rac_rules_dtype.cpp: dtypes and formats (ATB's ini tables)
std::vector<RacRule> TensorRules();  // rac_rules_tensor.cpp: ranks and shapes
std::vector<RacRule> ValueRules();   // rac_rules_values.cpp: slots, windows, lengths read from device tensors

std::span<const RacRule> Rules();

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULES_H
