// The AMX tile instructions as the cpu:amx path writes them: the compiler's intrinsics, or, in builds
// configured with ATBX_AMX_MODEL (tests on CPUs without AMX), the software model of amx_tile_model.h. Macros,
// because the intrinsics take their tile registers as literal numbers (they name them in inline assembly).
#ifndef ATBX_KERNELS_CPU_AMX_TILE_OPS_H
#define ATBX_KERNELS_CPU_AMX_TILE_OPS_H

#if defined(ATBX_AMX_MODEL)
#include "kernels/cpu/amx_tile_model.h"

#define ATBX_TILE_LOAD_CONFIG(config) ::atbx::kernels::cpu::amx::model::LoadConfig(config)
#define ATBX_TILE_RELEASE() ::atbx::kernels::cpu::amx::model::Release()
#define ATBX_TILE_ZERO(tile) ::atbx::kernels::cpu::amx::model::Zero(tile)
#define ATBX_TILE_LOAD(tile, base, stride) ::atbx::kernels::cpu::amx::model::Load(tile, base, stride)
#define ATBX_TILE_STORE(tile, base, stride) ::atbx::kernels::cpu::amx::model::Store(tile, base, stride)
#define ATBX_TILE_DOT_BF16(c, a, b) ::atbx::kernels::cpu::amx::model::DotBf16(c, a, b)
#else
#include <immintrin.h>

#define ATBX_TILE_LOAD_CONFIG(config) _tile_loadconfig(config)
#define ATBX_TILE_RELEASE() _tile_release()
#define ATBX_TILE_ZERO(tile) _tile_zero(tile)
#define ATBX_TILE_LOAD(tile, base, stride) _tile_loadd(tile, base, stride)
#define ATBX_TILE_STORE(tile, base, stride) _tile_stored(tile, base, stride)
#define ATBX_TILE_DOT_BF16(c, a, b) _tile_dpbf16ps(c, a, b)
#endif

#endif  // ATBX_KERNELS_CPU_AMX_TILE_OPS_H
