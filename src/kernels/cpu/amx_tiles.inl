// AMX tile helpers of the cpu:amx path (attention_amx.cpp, the one translation unit compiled with
// -mamx-tile -mamx-bf16; tile instructions as amx_tile_ops.h spells them): one tile configuration and a bf16
// matrix product C = A B with fp32 C, blocked 2 x 2 over the eight tile registers. No include guard: included
// once, inside no namespace.
//
// Layouts (bytes strides, bf16 elements):
//   A [M, K] row-major: the (m-tile, k-step) tile starts at a + m * 16 * aStride + s * 64.
//   B [K / 2, N, 2] pair-interleaved ("VNNI"): row p holds (B[2p][n], B[2p + 1][n]) for every column n; the
//     (k-step, n-tile) tile starts at b + s * 16 * bStride + n * 64.
//   C [M, N] fp32 row-major, cStride bytes per row.

namespace atbx::kernels::cpu::amx {

// LDTILECFG's 64-byte operand (palette 1). Every tile is 16 rows of 64 bytes: tiles 0-3 accumulate C
// [16 rows, 16 fp32], 4-5 hold A [16 rows, 32 bf16], 6-7 hold B [16 pair rows, 16 columns x 2 bf16].
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t bytesPerRow[16] = {};
    uint8_t rows[16] = {};
};

inline constexpr int kTileRows = 16;
inline constexpr int kTileBytes = 64;
inline constexpr int kPairSteps = 32;  // bf16 elements of K one tile product consumes

inline void ConfigureTiles() {
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytesPerRow[t] = kTileBytes;
        config.rows[t] = kTileRows;
    }
    ATBX_TILE_LOAD_CONFIG(&config);
}

inline void ReleaseTiles() {
    ATBX_TILE_RELEASE();
}

// One product A_i B_i of a sum of products (the bf16 parts of split operands).
struct Product {
    const void* a;
    const void* b;
};

// C = [C +] sum over products of A_i B_i: mTiles and nTiles (tiles of 16 rows / 16 columns) even, kSteps
// steps of 32 elements of K. between() is called after each step's four tile products are issued: vector work
// placed there runs while the matrix unit computes them (the products are independent of it).
inline int TileSteps(int productCount, int kSteps, int mTiles, int nTiles) {
    return productCount * kSteps * (mTiles / 2) * (nTiles / 2);
}

template <class Between>
void TileGemm(const Product* products, int productCount, int64_t aStride, int64_t bStride, int kSteps, int mTiles,
              int nTiles, float* c, int64_t cStride, bool accumulate, Between&& between) {
    auto* cBytes = reinterpret_cast<char*>(c);
    for (int mi = 0; mi < mTiles; mi += 2) {
        for (int ni = 0; ni < nTiles; ni += 2) {
            char* c00 = cBytes + int64_t{mi} * kTileRows * cStride + int64_t{ni} * kTileBytes;
            char* c10 = c00 + kTileRows * cStride;
            if (accumulate) {
                ATBX_TILE_LOAD(0, c00, cStride);
                ATBX_TILE_LOAD(1, c00 + kTileBytes, cStride);
                ATBX_TILE_LOAD(2, c10, cStride);
                ATBX_TILE_LOAD(3, c10 + kTileBytes, cStride);
            } else {
                ATBX_TILE_ZERO(0);
                ATBX_TILE_ZERO(1);
                ATBX_TILE_ZERO(2);
                ATBX_TILE_ZERO(3);
            }
            for (int p = 0; p < productCount; ++p) {
                const char* a = static_cast<const char*>(products[p].a) + int64_t{mi} * kTileRows * aStride;
                const char* b = static_cast<const char*>(products[p].b) + int64_t{ni} * kTileBytes;
                for (int s = 0; s < kSteps; ++s) {
                    const char* a0 = a + int64_t{s} * kTileBytes;
                    const char* b0 = b + int64_t{s} * kTileRows * bStride;
                    ATBX_TILE_LOAD(4, a0, aStride);
                    ATBX_TILE_LOAD(6, b0, bStride);
                    ATBX_TILE_LOAD(5, a0 + kTileRows * aStride, aStride);
                    ATBX_TILE_LOAD(7, b0 + kTileBytes, bStride);
                    ATBX_TILE_DOT_BF16(0, 4, 6);
                    ATBX_TILE_DOT_BF16(1, 4, 7);
                    ATBX_TILE_DOT_BF16(2, 5, 6);
                    ATBX_TILE_DOT_BF16(3, 5, 7);
                    between();
                }
            }
            ATBX_TILE_STORE(0, c00, cStride);
            ATBX_TILE_STORE(1, c00 + kTileBytes, cStride);
            ATBX_TILE_STORE(2, c10, cStride);
            ATBX_TILE_STORE(3, c10 + kTileBytes, cStride);
        }
    }
}

}  // namespace atbx::kernels::cpu::amx
