// A test fixture parameterised by a CPU path name ("cpu:avx2" ...): skipped, with the missing CPU feature
// named, where this CPU lacks the path.
#ifndef ATBX_TESTS_SUPPORT_CPU_PATH_FIXTURE_H
#define ATBX_TESTS_SUPPORT_CPU_PATH_FIXTURE_H

#include <gtest/gtest.h>

#include <string>

#include "support/run_call.h"

namespace atbx::test {

class CpuPathFixture : public testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        const std::string missing = MissingCpuFeature(GetParam());
        if (!missing.empty()) GTEST_SKIP() << GetParam() << " does not run here: " << missing;
    }
    const char* Path() const { return GetParam().c_str(); }
};

// "avx512" for "cpu:avx512": the instance's name in test output.
inline std::string PathName(const testing::TestParamInfo<std::string>& path) {
    return path.param.substr(path.param.find(':') + 1);
}

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_CPU_PATH_FIXTURE_H
