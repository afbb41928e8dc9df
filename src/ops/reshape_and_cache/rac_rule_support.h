// What ReshapeAndCache's rule files share: short names for the rule vocabulary, the subject, and the op name
// every rule of the table carries.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULE_SUPPORT_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULE_SUPPORT_H

#include "ops/reshape_and_cache/rac_rules.h"
#include "rules/rule.h"

namespace atbx::ops::rac {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = RacSubject;

inline constexpr const char* kOp = "ReshapeAndCache";

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_RULE_SUPPORT_H
