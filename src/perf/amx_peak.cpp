#include "perf/amx_peak.h"

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "perf/amx_tiles.h"
#include "perf/cpu_features.h"

namespace atbx::perf {
namespace {

// Linux's arch_prctl codes (asm/prctl.h) and the XSAVE feature number of the tile data.
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

// About 0.1 s per run at 1-2 TFLOP/s per core.
constexpr int64_t kRounds = int64_t{2} << 20;

}  // namespace

bool RequestAmxPermission() {
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

std::optional<double> MeasureAmxBf16Peak(int threads, int repeats) {
    if (!DetectCpuFeatures().amxBf16 || !RequestAmxPermission()) return std::nullopt;
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
