#include "kernels/cpu/amx_tile_model.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace atbx::kernels::cpu::amx::model {
namespace {

constexpr int kTiles = 8;  // palette 1: tmm0-tmm7 of at most 16 rows of 64 bytes
constexpr int kMaxRows = 16;
constexpr int kMaxRowBytes = 64;
constexpr int kConfigTiles = 16;  // entries of LDTILECFG's operand; those past kTiles must be zero

struct TileState {
    bool configured = false;
    int rows[kTiles] = {};
    int rowBytes[kTiles] = {};
    alignas(64) unsigned char data[kTiles][kMaxRows][kMaxRowBytes] = {};
};

thread_local TileState state;

[[noreturn]] void Fault(const char* instruction, const char* why) {
    std::fprintf(stderr, "atbx AMX tile model: %s faults: %s\n", instruction, why);
    std::abort();
}

void CheckTile(const char* instruction, int tile) {
    if (!state.configured) Fault(instruction, "no tile configuration is loaded");
    if (tile < 0 || tile >= kTiles) Fault(instruction, "no such tile register");
    if (state.rows[tile] == 0) Fault(instruction, "the tile has no rows in the configuration");
}

// A bf16 operand as fp32; denormals count as zero.
float Bf16Input(uint16_t bits) {
    if ((bits & 0x7F80u) == 0) bits &= 0x8000u;
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

float FlushDenormal(float x) {
    return std::fabs(x) < std::numeric_limits<float>::min() ? std::copysign(0.0f, x) : x;
}

}  // namespace

void LoadConfig(const void* config) {
    const auto* bytes = static_cast<const unsigned char*>(config);
    const int palette = bytes[0];
    if (palette == 0) return Release();
    if (palette != 1) Fault("LDTILECFG", "the model knows palette 1 only");
    if (bytes[1] != 0) Fault("LDTILECFG", "the model restarts no load or store: start_row must be 0");
    for (int i = 2; i < 16; ++i) {
        if (bytes[i] != 0) Fault("LDTILECFG", "reserved bytes 2-15 must be zero");
    }
    TileState next;
    for (int t = 0; t < kConfigTiles; ++t) {
        uint16_t rowBytes = 0;
        std::memcpy(&rowBytes, bytes + 16 + 2 * t, sizeof rowBytes);
        const int rows = bytes[48 + t];
        if (t >= kTiles && (rows != 0 || rowBytes != 0)) Fault("LDTILECFG", "palette 1 has 8 tiles");
        if (t >= kTiles) continue;
        if (rows > kMaxRows || rowBytes > kMaxRowBytes)
            Fault("LDTILECFG", "a tile exceeds 16 rows of 64 bytes");
        if ((rows == 0) != (rowBytes == 0))
            Fault("LDTILECFG", "a tile has rows without bytes or bytes without rows");
        next.rows[t] = rows;
        next.rowBytes[t] = rowBytes;
    }
    next.configured = true;
    state = next;
}

void Release() {
    state = TileState{};
}

void Zero(int tile) {
    CheckTile("TILEZERO", tile);
    std::memset(state.data[tile], 0, sizeof state.data[tile]);
}

// Load and Store copy with memcpy: AddressSanitizer checks every row they touch through its interceptor, even
// where this file is compiled without instrumentation (src/CMakeLists.txt).
void Load(int tile, const void* base, int64_t stride) {
    CheckTile("TILELOADD", tile);
    std::memset(state.data[tile], 0, sizeof state.data[tile]);
    const auto* from = static_cast<const unsigned char*>(base);
    for (int r = 0; r < state.rows[tile]; ++r)
        std::memcpy(state.data[tile][r], from + r * stride, static_cast<size_t>(state.rowBytes[tile]));
}

void Store(int tile, void* base, int64_t stride) {
    CheckTile("TILESTORED", tile);
    auto* to = static_cast<unsigned char*>(base);
    for (int r = 0; r < state.rows[tile]; ++r)
        std::memcpy(to + r * stride, state.data[tile][r], static_cast<size_t>(state.rowBytes[tile]));
}

void DotBf16(int c, int a, int b) {
    CheckTile("TDPBF16PS", c);
    CheckTile("TDPBF16PS", a);
    CheckTile("TDPBF16PS", b);
    if (c == a || c == b || a == b) Fault("TDPBF16PS", "its three tiles must be different");
    const int rows = state.rows[c], columns = state.rowBytes[c] / 4, pairs = state.rowBytes[a] / 4;
    if (state.rowBytes[c] % 4 != 0 || state.rowBytes[a] % 4 != 0) Fault("TDPBF16PS", "rows of whole dwords");
    if (state.rows[a] != rows) Fault("TDPBF16PS", "A's rows differ from C's");
    if (state.rows[b] != pairs) Fault("TDPBF16PS", "B's rows differ from A's pairs per row");
    if (state.rowBytes[b] != state.rowBytes[c]) Fault("TDPBF16PS", "B's bytes per row differ from C's");
    // B's elements in fp32 once: [pair row k][half][column n].
    float bValues[kMaxRows][2][kMaxRowBytes / 4] = {};
    for (int k = 0; k < pairs; ++k) {
        uint16_t bRow[kMaxRowBytes / 2];
        std::memcpy(bRow, state.data[b][k], sizeof bRow);
        for (int n = 0; n < columns; ++n) {
            bValues[k][0][n] = Bf16Input(bRow[2 * n]);
            bValues[k][1][n] = Bf16Input(bRow[2 * n + 1]);
        }
    }
    for (int m = 0; m < rows; ++m) {
        float sum[kMaxRowBytes / 4] = {};
        std::memcpy(sum, state.data[c][m], sizeof(float) * static_cast<size_t>(columns));
        uint16_t aRow[kMaxRowBytes / 2];
        std::memcpy(aRow, state.data[a][m], sizeof aRow);
        for (int k = 0; k < pairs; ++k) {
            for (int half = 0; half < 2; ++half) {
                const float x = Bf16Input(aRow[2 * k + half]);
                for (int n = 0; n < columns; ++n)
                    sum[n] = FlushDenormal(sum[n] + x * bValues[k][half][n]);
            }
        }
        std::memset(state.data[c][m], 0, kMaxRowBytes);
        std::memcpy(state.data[c][m], sum, sizeof(float) * static_cast<size_t>(columns));
    }
    for (int m = rows; m < kMaxRows; ++m)
        std::memset(state.data[c][m], 0, kMaxRowBytes);
}

}  // namespace atbx::kernels::cpu::amx::model
