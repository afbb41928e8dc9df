#include "perf/amx_peak.h"

#include <cstdint>

#include "core/cpu_features.h"
#include "perf/amx_tiles.h"
#include "perf/fma_peak.h"

namespace atbx::perf {
namespace {

// About 0.1 s per run at 1-2 TFLOP/s per core.
constexpr int64_t kRounds = int64_t{2} << 20;

}  // namespace

std::optional<double> MeasureAmxBf16Peak(int threads, int repeats) {
    if (!core::HostCpu().amxBf16) return std::nullopt;  // also false when Linux refused the tile state
    return BestRate(RunAmxBf16Tiles, kRounds, threads, repeats);
}

}  // namespace atbx::perf
