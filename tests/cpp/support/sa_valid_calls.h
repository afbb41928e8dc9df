// A catalogue of valid SelfAttention calls, one per mode, feature and accepted mask layout on every platform
// profile. Rule cases start from them; sa_valid_calls_test.cpp checks that each passes every rule.
#ifndef ATBX_TESTS_SUPPORT_SA_VALID_CALLS_H
#define ATBX_TESTS_SUPPORT_SA_VALID_CALLS_H

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/test_call.h"

namespace atbx::test {

struct SaValidCall {
    std::string name;
    std::function<TestCall()> make;
};

// Prints the call's name in test output.
void PrintTo(const SaValidCall& call, std::ostream* out);

std::vector<SaValidCall> SaValidCalls();

// The catalogue's call of that name; fails the test for an unknown name.
TestCall SaCall(std::string_view name);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_SA_VALID_CALLS_H
