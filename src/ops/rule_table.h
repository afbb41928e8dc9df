// The rule table: every rule of every operation, for `atbx rules`, docs/constraints.md and the tests that
// check each rule has a case that triggers it.
#ifndef ATBX_OPS_RULE_TABLE_H
#define ATBX_OPS_RULE_TABLE_H

#include <string>
#include <vector>

#include "rules/rule.h"

namespace atbx::ops {

// Common rules, then each op's, in evaluation order; then the rules the API enforces outside validation
// (Execute without Setup, kernel selection).
std::vector<const rules::RuleInfo*> AllRules();

// The table as Markdown (docs/constraints.md is this text).
std::string RuleTableMarkdown();
// The table as tab-separated text, one rule per line.
std::string RuleTableText();

}  // namespace atbx::ops

#endif  // ATBX_OPS_RULE_TABLE_H
