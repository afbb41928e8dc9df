// Test fixtures for the cpu:amx path: skipped, with the missing CPU feature named, where this CPU lacks it.
#ifndef ATBX_TESTS_SUPPORT_AMX_FIXTURE_H
#define ATBX_TESTS_SUPPORT_AMX_FIXTURE_H

#include <gtest/gtest.h>

#include <string>

#include "support/run_call.h"

namespace atbx::test {

inline constexpr const char* kAmx = "cpu:amx";

template <class Base = testing::Test>
class AmxFixture : public Base {
  protected:
    void SetUp() override {
        const std::string missing = MissingCpuFeature(kAmx);
        if (!missing.empty()) GTEST_SKIP() << kAmx << " does not run here: " << missing;
    }
};

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_AMX_FIXTURE_H
