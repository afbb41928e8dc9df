// fp16 and bf16 conversions against IEEE facts and against exhaustive round trips.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/float16.h"
#include "support/product_scales.h"

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

// Every value of a 16-bit format (widen) times each scale, rounded to fp32 to odd and then by bits (narrow),
// gives the bits of the exact product rounded directly (direct); rounding the product to nearest in fp32
// first rounds some of them twice, which the scales must show.
template <class Widen, class Direct, class Narrow>
void ExpectProductsRoundedOnce(Widen widen, Direct direct, Narrow narrow) {
    int64_t roundedTwice = 0;
    for (float scale : test::ProductScales(48)) {
        for (uint32_t bits = 0; bits < 0x10000; ++bits) {
            const double product = double{widen(static_cast<uint16_t>(bits))} * scale;
            const uint16_t once = direct(product);
            ASSERT_EQ(narrow(RoundToOddFloat(product)), once) << "bits " << bits << " scale " << scale;
            roundedTwice += narrow(static_cast<float>(product)) != once ? 1 : 0;
        }
    }
    EXPECT_GT(roundedTwice, 0) << "no product here tells rounding to odd from rounding to nearest";
}

TEST(Float16, ProductsRoundedToOddThenByBitsAreRoundedOnce) {
    ExpectProductsRoundedOnce(HalfToFloat, DoubleToHalf, FloatToHalf);
}

TEST(Bfloat16, ProductsRoundedToOddThenByBitsAreRoundedOnce) {
    ExpectProductsRoundedOnce(Bf16ToFloat, DoubleToBf16, FloatToBf16);
}

// Every fp32 value that is an fp16 or bf16 value, and the midpoints between neighbours, narrow as
// DoubleToHalf and DoubleToBf16 narrow them (the midpoints to even).
TEST(Float16, FloatToHalfMatchesTheDoubleRounding) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float value = HalfToFloat(static_cast<uint16_t>(bits));
        ASSERT_EQ(FloatToHalf(value), DoubleToHalf(value)) << "bits " << bits;
        const float next = HalfToFloat(static_cast<uint16_t>(bits + 1));
        if (std::isfinite(value) && std::isfinite(next) && (bits & 0x7FFF) != 0x7BFF && bits != 0x7FFF) {
            const float mid = value + (next - value) / 2;
            ASSERT_EQ(FloatToHalf(mid), DoubleToHalf(mid)) << "midpoint above bits " << bits;
        }
    }
    EXPECT_EQ(FloatToHalf(65519.996f), 0x7BFF);
    EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);
}

TEST(Bfloat16, FloatToBf16MatchesTheDoubleRounding) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float value = Bf16ToFloat(static_cast<uint16_t>(bits));
        ASSERT_EQ(FloatToBf16(value), DoubleToBf16(value)) << "bits " << bits;
        const float mid = std::bit_cast<float>((bits << 16) | 0x8000u);
        ASSERT_EQ(FloatToBf16(mid), DoubleToBf16(mid)) << "midpoint above bits " << bits;
    }
}

}  // namespace
}  // namespace atbx::core
