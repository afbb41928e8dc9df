// Rules every operation shares: tensor counts, ranks, positive dims, output descriptors, data pointers and
// sizes.
#ifndef ATBX_RULES_COMMON_RULES_H
#define ATBX_RULES_COMMON_RULES_H

#include <span>

#include "rules/call_subject.h"
#include "rules/rule.h"

namespace atbx::rules {

std::span<const Rule<CallSubject>> CommonRules();
// call.param.platform_known: checked before any stage, since every rule's profiles are looked up by platform.
const Rule<CallSubject>& PlatformRule();

}  // namespace atbx::rules

#endif  // ATBX_RULES_COMMON_RULES_H
