// The software model of the AMX tile instructions (src/kernels/cpu/amx_tile_model.h) that builds configured
// with ATBX_AMX_MODEL run cpu:amx on (tests/CMakeLists.txt compiles this file in those builds only):
// TDPBF16PS against float64 on random bf16 tiles of odd shapes (two bf16 values multiply exactly in fp32, so
// the model's sums differ from float64 by their roundings alone), loads and stores with strides that touch no
// byte the configuration leaves out, denormals in and out, and the hardware's faults as aborts naming the
// instruction.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "kernels/cpu/amx_tile_model.h"

namespace atbx::test {
namespace {

namespace model = kernels::cpu::amx::model;

// LDTILECFG's operand with palette 1: tile t gets tiles[t] = (rows, bytes per row).
struct TileConfig {
    alignas(64) unsigned char bytes[64] = {};
};

TileConfig Palette1(const std::vector<std::pair<int, int>>& tiles) {
    TileConfig config;
    config.bytes[0] = 1;
    for (size_t t = 0; t < tiles.size(); ++t) {
        const auto rowBytes = static_cast<uint16_t>(tiles[t].second);
        std::memcpy(config.bytes + 16 + 2 * t, &rowBytes, sizeof rowBytes);
        config.bytes[48 + t] = static_cast<unsigned char>(tiles[t].first);
    }
    return config;
}

// x's upper half: exact for the values drawn here, which carry 8 significant bits.
uint16_t Bf16(float x) {
    return static_cast<uint16_t>(std::bit_cast<uint32_t>(x) >> 16);
}

float Float(uint16_t bf16) {
    return std::bit_cast<float>(static_cast<uint32_t>(bf16) << 16);
}

// A value of 8 significant bits in [-limit, limit].
float DrawBf16Value(std::mt19937& rng, float limit) {
    std::uniform_real_distribution<float> draw(-limit, limit);
    return Float(Bf16(draw(rng)));
}

// C [rows, columns] fp32 += A [rows, pairs x 2] B [pairs, columns x 2] on tiles 0 (C), 1 (A) and 2 (B).
std::vector<float> TileProduct(const std::vector<float>& c, const std::vector<uint16_t>& a,
                               const std::vector<uint16_t>& b, int rows, int pairs, int columns) {
    const TileConfig config = Palette1({{rows, 4 * columns}, {rows, 4 * pairs}, {pairs, 4 * columns}});
    model::LoadConfig(config.bytes);
    model::Load(0, c.data(), 4 * columns);
    model::Load(1, a.data(), 4 * pairs);
    model::Load(2, b.data(), 4 * columns);
    model::DotBf16(0, 1, 2);
    std::vector<float> out(c.size(), std::nanf(""));
    model::Store(0, out.data(), 4 * columns);
    model::Release();
    return out;
}

TEST(AmxTileModel, DotBf16MeetsFloat64WithinTheRoundingOfItsSums) {
    std::mt19937 rng(2718);
    const int rows = 13, pairs = 11, columns = 9;  // below the 16 x 64-byte maximum in each dimension
    std::vector<uint16_t> a(rows * 2 * pairs), b(pairs * 2 * columns);
    std::vector<float> c(rows * columns);
    for (uint16_t& x : a)
        x = Bf16(DrawBf16Value(rng, 4.0f));
    for (uint16_t& x : b)
        x = Bf16(DrawBf16Value(rng, 4.0f));
    for (float& x : c)
        x = DrawBf16Value(rng, 100.0f);
    const std::vector<float> out = TileProduct(c, a, b, rows, pairs, columns);
    for (int m = 0; m < rows; ++m) {
        for (int n = 0; n < columns; ++n) {
            double exact = c[m * columns + n], magnitude = std::fabs(exact);
            for (int k = 0; k < pairs; ++k) {
                for (int half = 0; half < 2; ++half) {
                    const double product = double{Float(a[(m * pairs + k) * 2 + half])} *
                                           double{Float(b[(k * columns + n) * 2 + half])};
                    exact += product;
                    magnitude += std::fabs(product);
                }
            }
            // 2 * pairs additions in fp32, each rounding by at most 2^-24 of a sum below `magnitude`.
            EXPECT_NEAR(out[m * columns + n], exact, 2 * pairs * std::ldexp(magnitude, -24))
                << m << ", " << n;
        }
    }
}

TEST(AmxTileModel, DotBf16OfSmallIntegersIsExact) {
    const int rows = 16, pairs = 16, columns = 16;
    std::vector<uint16_t> a(rows * 2 * pairs), b(pairs * 2 * columns);
    std::vector<float> c(rows * columns);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = Bf16(static_cast<float>(static_cast<int>(i % 7) - 3));
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = Bf16(static_cast<float>(static_cast<int>(i % 5) - 2));
    for (size_t i = 0; i < c.size(); ++i)
        c[i] = static_cast<float>(i);
    const std::vector<float> out = TileProduct(c, a, b, rows, pairs, columns);
    for (int m = 0; m < rows; ++m) {
        for (int n = 0; n < columns; ++n) {
            double exact = c[m * columns + n];
            for (int k = 0; k < pairs; ++k) {
                exact += double{Float(a[(m * pairs + k) * 2])} * Float(b[(k * columns + n) * 2]) +
                         double{Float(a[(m * pairs + k) * 2 + 1])} * Float(b[(k * columns + n) * 2 + 1]);
            }
            EXPECT_EQ(out[m * columns + n], exact);
        }
    }
}

TEST(AmxTileModel, DenormalInputsCountAsZeroAndDenormalResultsFlush) {
    std::vector<uint16_t> a(2), b(2);
    const std::vector<float> c{0.0f};
    a[0] = 0x0001;  // the smallest bf16 denormal, 2^-133: times 2^100 it would be 2^-33
    b[0] = Bf16(0x1p100f);
    EXPECT_EQ(TileProduct(c, a, b, 1, 1, 1)[0], 0.0f);
    a[0] = Bf16(-0x1p-70f);  // normal inputs whose product, -2^-130, is denormal
    b[0] = Bf16(0x1p-60f);
    EXPECT_EQ(TileProduct(c, a, b, 1, 1, 1)[0], 0.0f);
}

TEST(AmxTileModel, LoadsAndStoresTouchOnlyTheConfiguredRowsAndBytes) {
    const TileConfig config = Palette1({{3, 8}});
    model::LoadConfig(config.bytes);
    std::vector<unsigned char> from(300);
    for (size_t i = 0; i < from.size(); ++i)
        from[i] = static_cast<unsigned char>(i);
    model::Load(0, from.data(), 100);  // rows 100 bytes apart
    std::vector<unsigned char> to(60, 0xAB);
    model::Store(0, to.data(), 20);
    model::Release();
    for (size_t i = 0; i < to.size(); ++i) {
        const size_t row = i / 20, byte = i % 20;
        EXPECT_EQ(to[i], byte < 8 ? from[row * 100 + byte] : 0xAB) << i;
    }
}

using AmxTileModelDeathTest = testing::Test;

TEST_F(AmxTileModelDeathTest, ATileUsedWithNoConfigurationAborts) {
    model::Release();
    EXPECT_DEATH(model::Zero(0), "TILEZERO faults: no tile configuration is loaded");
}

TEST_F(AmxTileModelDeathTest, ProductsOfShapesThatDoNotFitAbort) {
    const TileConfig config = Palette1({{16, 64}, {16, 64}, {8, 64}});
    EXPECT_DEATH(
        {
            model::LoadConfig(config.bytes);
            model::DotBf16(0, 1, 2);
        },
        "TDPBF16PS faults: B's rows differ from A's pairs per row");
    EXPECT_DEATH(
        {
            model::LoadConfig(config.bytes);
            model::DotBf16(0, 0, 2);
        },
        "TDPBF16PS faults: its three tiles must be different");
}

TEST_F(AmxTileModelDeathTest, ConfigurationsBeyondPalette1Abort) {
    TileConfig config = Palette1({{17, 64}});
    EXPECT_DEATH(model::LoadConfig(config.bytes), "LDTILECFG faults: a tile exceeds 16 rows of 64 bytes");
    config = Palette1({{16, 64}});
    config.bytes[48 + 8] = 1;  // tile 8
    EXPECT_DEATH(model::LoadConfig(config.bytes), "LDTILECFG faults: palette 1 has 8 tiles");
}

}  // namespace
}  // namespace atbx::test
