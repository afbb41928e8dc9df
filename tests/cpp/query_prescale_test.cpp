// Queries times qScale rounded to their dtype (kernels/cpu/query_prescale.h), each instruction set's that the
// CPU runs (the others skipped by name): every fp16 and bf16 value and a spread of fp32 ones, times scales
// whose products fall on and around the narrow formats' ties, overflow and underflow, in rows of every length
// from 1 to 37 (so that each vector width meets every tail), against the exact product rounded once by
// core/float16.cpp's encoders, bit for bit; nothing past a row is written.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/float16.h"
#include "kernels/cpu/query_prescale.h"
#include "support/product_scales.h"

namespace atbx::test {
namespace {

using kernels::cpu::PrescaleFn;

struct PrescalePath {
    std::string name;
    PrescaleFn prescale;
    std::vector<bool core::CpuFeatures::*> features;
    friend void PrintTo(const PrescalePath& p, std::ostream* out) { *out << p.name; }
};

std::vector<PrescalePath> Paths() {
    return {
        {"baseline", kernels::cpu::baseline::PrescaleQueries, {}},
        {"avx2", kernels::cpu::avx2::PrescaleQueries, {&core::CpuFeatures::avx2, &core::CpuFeatures::f16c}},
        {"avx512", kernels::cpu::avx512::PrescaleQueries, {&core::CpuFeatures::avx512f}}};
}

class PrescaleTest : public testing::TestWithParam<PrescalePath> {
  protected:
    void SetUp() override {
        for (bool core::CpuFeatures::*feature : GetParam().features) {
            if (!(core::HostCpu().*feature))
                GTEST_SKIP() << GetParam().name << " does not run here: this CPU lacks one of its features";
        }
    }
};

// Runs `prescale` over `elements` (of `dtype`, given as raw storage) in rows of 1, 2, ... 37 elements and
// checks each result against expected(i): the same bits, or a NaN where that is a NaN.
template <class T, class Expected>
void ExpectRounded(PrescaleFn prescale, const std::vector<T>& elements, aclDataType dtype, float scale,
                   Expected expected) {
    std::vector<float> out(elements.size() + 1);
    const auto n = static_cast<int64_t>(elements.size());
    constexpr float kPoison = -12345.0f;
    for (int64_t at = 0, row = 1; at < n; at += row, row = row % 37 + 1) {
        const int64_t count = std::min(row, n - at);
        out[at + count] = kPoison;
        prescale(elements.data() + at, dtype, count, scale, out.data() + at);
        ASSERT_EQ(out[at + count], kPoison) << "a row of " << count << " wrote past its end";
    }
    for (int64_t i = 0; i < n; ++i) {
        const float want = expected(elements[i]);
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(out[i])) << "element " << i << " scale " << scale;
        } else {
            ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(want))
                << "element " << i << " (" << expected(elements[i]) << ") scale " << scale << ": " << out[i];
        }
    }
}

std::vector<uint16_t> EveryBitPattern() {
    std::vector<uint16_t> bits(0x10000);
    for (uint32_t b = 0; b < 0x10000; ++b)
        bits[b] = static_cast<uint16_t>(b);
    return bits;
}

TEST_P(PrescaleTest, Fp16ProductsAreRoundedOnce) {
    const std::vector<uint16_t> halves = EveryBitPattern();
    for (float scale : ProductScales(8)) {
        ExpectRounded(GetParam().prescale, halves, ACL_FLOAT16, scale, [scale](uint16_t h) {
            return core::HalfToFloat(core::DoubleToHalf(double{core::HalfToFloat(h)} * scale));
        });
    }
}

TEST_P(PrescaleTest, Bf16ProductsAreRoundedOnce) {
    const std::vector<uint16_t> values = EveryBitPattern();
    for (float scale : ProductScales(8)) {
        ExpectRounded(GetParam().prescale, values, ACL_BF16, scale, [scale](uint16_t b) {
            return core::Bf16ToFloat(core::DoubleToBf16(double{core::Bf16ToFloat(b)} * scale));
        });
    }
}

TEST_P(PrescaleTest, Fp32ProductsAreRoundedOnce) {
    std::vector<float> values = {0.0f,
                                 -0.0f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::max(),
                                 std::numeric_limits<float>::denorm_min(),
                                 std::numeric_limits<float>::min()};
    std::mt19937 rng(9);
    std::uniform_int_distribution<uint32_t> bits;
    while (values.size() < 20000)
        values.push_back(std::bit_cast<float>(bits(rng)));
    for (float scale : ProductScales(8)) {
        ExpectRounded(GetParam().prescale, values, ACL_FLOAT, scale,
                      [scale](float q) { return static_cast<float>(double{q} * scale); });
    }
}

// The scales above put some products where rounding to fp32 to nearest and then to fp16 would round twice:
// the rows above tell a path that does so from one that does not.
TEST(PrescaleQueries, SomeProductsWouldBeRoundedTwiceThroughFp32) {
    int roundedTwice = 0;
    for (float scale : ProductScales(8)) {
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const double product = double{core::HalfToFloat(static_cast<uint16_t>(h))} * scale;
            roundedTwice +=
                core::FloatToHalf(static_cast<float>(product)) != core::DoubleToHalf(product) ? 1 : 0;
        }
    }
    EXPECT_GT(roundedTwice, 0);
}

INSTANTIATE_TEST_SUITE_P(Isa, PrescaleTest, testing::ValuesIn(Paths()), testing::PrintToStringParamName());

TEST(PrescaleQueries, TheHostPrescaleIsTheWidestTheCpuRuns) {
    const core::CpuFeatures& cpu = core::HostCpu();
    const PrescaleFn expected = cpu.avx512f            ? kernels::cpu::avx512::PrescaleQueries
                                : cpu.avx2 && cpu.f16c ? kernels::cpu::avx2::PrescaleQueries
                                                       : kernels::cpu::baseline::PrescaleQueries;
    EXPECT_EQ(kernels::cpu::HostPrescaleQueries(), expected);
}

}  // namespace
}  // namespace atbx::test
