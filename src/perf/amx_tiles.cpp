// AMX bf16 tile products for the AMX ceiling (compiled with -mamx-tile -mamx-bf16 only; see
// perf/amx_tiles.h).
#include "perf/amx_tiles.h"

#include <immintrin.h>

#include <cstring>

namespace atbx::perf {
namespace {

// The 64-byte tile configuration of LDTILECFG (palette 1): tiles 0-3 accumulate C [16 rows, 16 fp32]; tiles
// 4-5 hold A [16 rows, 32 bf16]; tiles 6-7 hold B in pair-interleaved form [16 rows, 16 pairs of bf16].
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t bytesPerRow[16] = {};
    uint8_t rows[16] = {};
};

constexpr int kRows = 16;
constexpr int kRowBytes = 64;
constexpr double kFlopsPerProduct = 2.0 * 16 * 16 * 32;

}  // namespace

double RunAmxBf16Tiles(int64_t rounds) {
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytesPerRow[t] = kRowBytes;
        config.rows[t] = kRows;
    }
    _tile_loadconfig(&config);
    // bf16 0x3f80 = 1.0 in every element of A and B; the products' values do not matter, only their rate.
    alignas(64) uint16_t operand[kRows * kRowBytes / 2];
    for (uint16_t& element : operand)
        element = 0x3f80;
    _tile_loadd(4, operand, kRowBytes);
    _tile_loadd(5, operand, kRowBytes);
    _tile_loadd(6, operand, kRowBytes);
    _tile_loadd(7, operand, kRowBytes);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t r = 0; r < rounds; ++r) {
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    alignas(64) float result[kRows * kRowBytes / 4];
    _tile_stored(0, result, kRowBytes);
    _tile_release();
    volatile float sink = result[0];
    (void)sink;
    return static_cast<double>(rounds) * 4 * kFlopsPerProduct;
}

}  // namespace atbx::perf
