// A software model of the AMX tile instructions the cpu:amx path uses, after the pseudo-code of the Intel SDM
// (LDTILECFG with palette 1, TILERELEASE, TILEZERO, TILELOADD, TILESTORED, TDPBF16PS). Builds configured with
// ATBX_AMX_MODEL run cpu:amx on it (amx_tile_ops.h), so that the path's tests run on CPUs without AMX, and
// under AddressSanitizer, which sees the model's loads and stores where it cannot see the hardware's. Tests
// only: the model is some hundred times slower than the tiles.
//
// Each thread has its own tile state, as each hardware thread has. What the hardware faults on (#UD: a tile
// instruction with no configuration loaded, a configuration outside palette 1's limits, TDPBF16PS operands
// whose shapes do not fit) aborts the process with a message naming the instruction.
#ifndef ATBX_KERNELS_CPU_AMX_TILE_MODEL_H
#define ATBX_KERNELS_CPU_AMX_TILE_MODEL_H

#include <cstdint>

namespace atbx::kernels::cpu::amx::model {

// LDTILECFG: `config` is the instruction's 64-byte operand (palette, start row, bytes per row of tiles 0-15
// as uint16 from byte 16, rows of tiles 0-15 from byte 48). Palette 0 releases the tiles.
void LoadConfig(const void* config);

// TILERELEASE: the tiles return to their initial, unconfigured state.
void Release();

// TILEZERO: every byte of the tile is 0.
void Zero(int tile);

// TILELOADD: row r of the tile (r < its rows) is its bytes per row from base + r * stride; the rest of the
// tile is 0.
void Load(int tile, const void* base, int64_t stride);

// TILESTORED: the tile's rows (its bytes per row each) to base + r * stride.
void Store(int tile, void* base, int64_t stride);

// TDPBF16PS: C [M, N] fp32 += A [M, K pairs of bf16] B [K, N pairs of bf16], pair by pair:
// c[m][n] += a[m][2k] b[k][2n], then c[m][n] += a[m][2k + 1] b[k][2n + 1], in fp32 with round to nearest
// even; denormal inputs count as zero and denormal results are flushed to zero, whatever MXCSR says.
void DotBf16(int c, int a, int b);

}  // namespace atbx::kernels::cpu::amx::model

#endif  // ATBX_KERNELS_CPU_AMX_TILE_MODEL_H
