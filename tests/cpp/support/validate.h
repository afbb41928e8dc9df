// Validating a TestCall through an op's rules, and through the public API.
#ifndef ATBX_TESTS_SUPPORT_VALIDATE_H
#define ATBX_TESTS_SUPPORT_VALIDATE_H

#include <optional>
#include <string>
#include <vector>

#include "atbx/status.h"
#include "rules/rule.h"
#include "support/test_call.h"

namespace atbx::test {

// Every stage, param to device values: the violations of the first failing stage.
std::vector<rules::Violation> Violations(TestCall& call);
// Their rule ids.
std::vector<std::string> ViolatedRules(TestCall& call);
// The same, with the messages ("id: message"), for failure output.
std::string DescribeViolations(TestCall& call);

// Names the call's inputs from its param (the slots in ATB order).
void NameInputs(TestCall& call);

// Completes a call whose inputs are set: names its inputs from the param and gives it outputs of the shape
// InferShape gives (zeroed). Fails the test when the inputs do not pass InferShape's rules.
void AttachOutputs(TestCall& call);

// Runs the public path (CreateOperation, Setup) and returns the first failing status, or OK; nothing when the
// op cannot execute yet (no planner).
std::optional<Status> ApiStatus(TestCall& call);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_VALIDATE_H
