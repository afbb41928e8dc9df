// What SelfAttention's rule files share: short names for the rule vocabulary, the subject, the rule table's
// constructor and profile sets (sa_rules.h), and the sizes the rules derive from descriptors and host values
// (sa_geometry.h).
#ifndef ATBX_OPS_SELF_ATTENTION_SA_RULE_SUPPORT_H
#define ATBX_OPS_SELF_ATTENTION_SA_RULE_SUPPORT_H

#include "ops/self_attention/sa_geometry.h"
#include "ops/self_attention/sa_rules.h"
#include "rules/rule.h"

namespace atbx::ops::sa {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = SaSubject;

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_RULE_SUPPORT_H
