#include "perf/amx_peak.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "core/cpu_features.h"
#include "perf/amx_tiles.h"

namespace atbx::perf {
namespace {

// About 0.1 s per run at 1-2 TFLOP/s per core.
constexpr int64_t kRounds = int64_t{2} << 20;

}  // namespace

std::optional<double> MeasureAmxBf16Peak(int threads, int repeats) {
    if (!core::HostCpu().amxBf16) return std::nullopt;  // also false when Linux refused the tile state
    const int team = threads > 0 ? threads : omp_get_max_threads();
    double best = 0.0;
    for (int r = 0; r < repeats; ++r) {
        double flops = 0.0;
        const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(team) reduction(+ : flops)
        flops += RunAmxBf16Tiles(kRounds);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, flops / seconds);
    }
    return best;
}

}  // namespace atbx::perf
