#include "perf/copy_bandwidth.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace atbx::perf {

double MeasureCopyBandwidth(int64_t bytes, int threads, int repeats, Pages pages) {
    const PageBuffer from(bytes, pages), to(bytes, pages);
    std::memset(from.data(), 1, bytes);  // touch every page of both buffers before timing
    std::memset(to.data(), 0, bytes);
    const int team = threads > 0 ? threads : omp_get_max_threads();
    double best = 0.0;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(team) schedule(static)
        for (int t = 0; t < team; ++t) {
            const int64_t begin = bytes * t / team;
            const int64_t end = bytes * (t + 1) / team;
            std::memcpy(to.data() + begin, from.data() + begin, end - begin);
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, 2.0 * static_cast<double>(bytes) / seconds);
    }
    return best;
}

}  // namespace atbx::perf
