// The AMX bf16 tile loop of perf/amx_peak.cpp, in its own translation unit compiled with -mamx-tile
// -mamx-bf16 (src/CMakeLists.txt); called only where the CPU has AMX and Linux granted the tile state.
#ifndef ATBX_PERF_AMX_TILES_H
#define ATBX_PERF_AMX_TILES_H

#include <cstdint>

namespace atbx::perf {

// Runs `rounds` rounds of four independent 16x16x32 bf16 tile products; returns the FLOPs performed.
double RunAmxBf16Tiles(int64_t rounds);

}  // namespace atbx::perf

#endif  // ATBX_PERF_AMX_TILES_H
