#include "perf/bandwidth.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <numeric>

namespace atbx::perf {
namespace {

// Sums the words in four independent chains so that the loads, not the adds, set the pace.
uint64_t SumWords(const uint64_t* words, int64_t count) {
    uint64_t a = 0, b = 0, c = 0, d = 0;
    int64_t i = 0;
    for (; i + 4 <= count; i += 4) {
        a += words[i];
        b += words[i + 1];
        c += words[i + 2];
        d += words[i + 3];
    }
    for (; i < count; ++i)
        a += words[i];
    return a + b + c + d;
}

}  // namespace

double MeasureReadBandwidth(int64_t bytes, int threads, int repeats, Pages pages) {
    const int64_t count = bytes / static_cast<int64_t>(sizeof(uint64_t));
    const PageBuffer buffer(count * static_cast<int64_t>(sizeof(uint64_t)), pages);
    auto* words = reinterpret_cast<uint64_t*>(buffer.data());
    std::iota(words, words + count, uint64_t{1});  // touch every page before timing
    const int team = threads > 0 ? threads : omp_get_max_threads();
    double best = 0.0;
    volatile uint64_t sink = 0;
    for (int r = 0; r < repeats; ++r) {
        uint64_t total = 0;
        const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(team) reduction(+ : total) schedule(static)
        for (int t = 0; t < team; ++t) {
            const int64_t begin = count * t / team;
            const int64_t end = count * (t + 1) / team;
            total += SumWords(words + begin, end - begin);
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        sink = sink + total;
        best = std::max(best, static_cast<double>(count * sizeof(uint64_t)) / seconds);
    }
    return best;
}

}  // namespace atbx::perf
