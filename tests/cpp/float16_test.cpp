// fp16 and bf16 conversions against IEEE facts and against exhaustive round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/float16.h"

namespace atbx::core {
namespace {

TEST(Float16, KnownValues) {
    EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
    EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
    EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
    EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
    EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
    EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
    EXPECT_EQ(DoubleToHalf(1.0), 0x3C00);
    EXPECT_EQ(DoubleToHalf(65504.0), 0x7BFF);
    EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);  // halfway to 65536 rounds to even: overflow
    EXPECT_EQ(DoubleToHalf(65519.99), 0x7BFF);
    EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
    EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);  // half the smallest subnormal: ties to even (0)
    EXPECT_EQ(DoubleToHalf(std::ldexp(1.5, -24)), 0x0002);  // 1.5 units: ties to even (2)
    EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3C00);  // tie between 1 and 1+2^-10: even
    EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(3.0, -11)), 0x3C02);  // tie: rounds up to even
    EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11) + 1e-12),
              0x3C01);  // just above the tie: no double rounding
    EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::quiet_NaN()) & 0x7C00, 0x7C00);
    EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::infinity()), 0x7C00);
    EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::infinity()), 0xFC00);
}

TEST(Float16, EveryFiniteHalfRoundTrips) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const auto h = static_cast<uint16_t>(bits);
        if ((h & 0x7C00) == 0x7C00) continue;  // inf and NaN
        ASSERT_EQ(DoubleToHalf(HalfToFloat(h)), h) << "bits " << bits;
    }
}

TEST(Bfloat16, KnownValues) {
    EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
    EXPECT_EQ(Bf16ToFloat(0xC040), -3.0f);
    EXPECT_EQ(DoubleToBf16(1.0), 0x3F80);
    EXPECT_EQ(DoubleToBf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);          // tie: even
    EXPECT_EQ(DoubleToBf16(1.0 + std::ldexp(3.0, -8)), 0x3F82);          // tie: even (up)
    EXPECT_EQ(DoubleToBf16(1.0 + std::ldexp(1.0, -8) + 1e-12), 0x3F81);  // above the tie
    EXPECT_EQ(DoubleToBf16(3.4e38), 0x7F80);                             // beyond the largest finite: inf
    EXPECT_EQ(DoubleToBf16(std::ldexp(1.0, -133)), 0x0001);              // smallest subnormal
    EXPECT_EQ(DoubleToBf16(std::numeric_limits<double>::infinity()), 0x7F80);
    EXPECT_EQ(DoubleToBf16(-std::numeric_limits<double>::infinity()), 0xFF80);  // bf16 alibi masks hold -inf
}

TEST(Bfloat16, EveryFiniteBf16RoundTrips) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const auto b = static_cast<uint16_t>(bits);
        if ((b & 0x7F80) == 0x7F80) continue;
        ASSERT_EQ(DoubleToBf16(Bf16ToFloat(b)), b) << "bits " << bits;
    }
}

}  // namespace
}  // namespace atbx::core
