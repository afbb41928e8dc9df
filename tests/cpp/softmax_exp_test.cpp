// The vector e^x each CPU path's softmax uses (Simd::Exp, src/kernels/cpu/simd/), against the float64 e^x:
// within 2 epsilon (relative) over fp32's normal results, exactly 0 below -87.33654 (where results turn
// subnormal, so e^-inf = 0 and a hidden key weighs nothing), +inf past the largest float, NaN for NaN.
// Softmax inputs are s - max <= 0; positive inputs are checked up to 88.3. A path this CPU lacks is skipped
// by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/isa_kernels.h"
#include "support/cpu_path_fixture.h"

namespace atbx::test {
namespace {

using ExpFunction = void (*)(const float*, float*, int64_t);

ExpFunction ExpOf(const std::string& path) {
    if (path == "cpu:avx512") return kernels::cpu::avx512::SoftmaxExp;
    if (path == "cpu:avx2") return kernels::cpu::avx2::SoftmaxExp;
    return kernels::cpu::scalar::SoftmaxExp;
}

std::vector<float> ExpOfEach(const std::string& path, const std::vector<float>& x) {
    std::vector<float> y(x.size(), -1.0f);
    ExpOf(path)(x.data(), y.data(), static_cast<int64_t>(x.size()));
    return y;
}

class SoftmaxExpTest : public CpuPathFixture {};

TEST_P(SoftmaxExpTest, IsWithinTwoEpsilonOfTheExactValue) {
    std::vector<float> x;
    for (double v = -87.3; v <= 88.3; v += 0.00137)  // 128k values, every binade of the results
        x.push_back(static_cast<float>(v));
    x.push_back(0.0f);
    x.push_back(-0.0f);
    x.push_back(-1e-30f);
    const std::vector<float> y = ExpOfEach(GetParam(), x);
    for (size_t i = 0; i < x.size(); ++i) {
        const double exact = std::exp(static_cast<double>(x[i]));
        ASSERT_NEAR(y[i], exact, 2 * std::numeric_limits<float>::epsilon() * exact) << "e^" << x[i];
    }
}

TEST_P(SoftmaxExpTest, IsZeroBelowTheNormalRange) {
    const std::vector<float> x = {-87.34f, -87.5f,    -88.0f,   -100.0f,
                                  -1e4f,   -60000.0f, -3.4e38f, -std::numeric_limits<float>::infinity()};
    for (const float y : ExpOfEach(GetParam(), x))
        EXPECT_EQ(y, 0.0f);
}

TEST_P(SoftmaxExpTest, IsInfinitePastTheLargestFloatAndNanForNan) {
    const std::vector<float> x = {88.8f,
                                  89.0f,
                                  100.0f,
                                  1e30f,
                                  std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  -std::numeric_limits<float>::quiet_NaN()};
    const std::vector<float> y = ExpOfEach(GetParam(), x);
    for (size_t i = 0; i + 2 < x.size(); ++i)
        EXPECT_EQ(y[i], std::numeric_limits<float>::infinity()) << "e^" << x[i];
    EXPECT_TRUE(std::isnan(y[x.size() - 2]));
    EXPECT_TRUE(std::isnan(y[x.size() - 1]));
}

INSTANTIATE_TEST_SUITE_P(Paths, SoftmaxExpTest, testing::Values("cpu:avx512", "cpu:avx2", "cpu:scalar"),
                         PathName);

}  // namespace
}  // namespace atbx::test
