#include "perf/fma_peak.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "core/cpu_features.h"
#include "perf/fma_chains.h"

namespace atbx::perf {
namespace {

// About 0.1 s per run at a few hundred GFLOP/s per core: long enough to get past frequency ramps.
constexpr int64_t kRounds = int64_t{20} << 20;

bool Available(VectorPath path) {
    const core::CpuFeatures& features = core::HostCpu();
    switch (path) {
        case VectorPath::kAvx512:
            return features.avx512f && features.avx512bw && features.avx512vl;
        case VectorPath::kAvx2:
            return features.avx2 && features.fma;
        case VectorPath::kBaseline:
            return true;
    }
    return false;
}

}  // namespace

double BestRate(double (*chains)(int64_t), int64_t rounds, int threads, int repeats) {
    const int team = threads > 0 ? threads : omp_get_max_threads();
    double best = 0.0;
    for (int r = 0; r < repeats; ++r) {
        double flops = 0.0;
        const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(team) reduction(+ : flops)
        flops += chains(rounds);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, flops / seconds);
    }
    return best;
}

const char* VectorPathName(VectorPath path) {
    switch (path) {
        case VectorPath::kAvx512:
            return "avx512";
        case VectorPath::kAvx2:
            return "avx2";
        case VectorPath::kBaseline:
            return "sse2";
    }
    return "?";
}

std::optional<double> MeasureFmaPeak(VectorPath path, int threads, int repeats) {
    if (!Available(path)) return std::nullopt;
    switch (path) {
        case VectorPath::kAvx512:
            return BestRate(RunFmaChainsAvx512, kRounds, threads, repeats);
        case VectorPath::kAvx2:
            return BestRate(RunFmaChainsAvx2, kRounds, threads, repeats);
        case VectorPath::kBaseline:
            return BestRate(RunFmaChainsBaseline, kRounds, threads, repeats);
    }
    return std::nullopt;
}

std::optional<double> MeasureBf16DotPeak(int threads, int repeats) {
    if (!core::HostCpu().avx512bf16) return std::nullopt;
    return BestRate(RunBf16DotChains, kRounds, threads, repeats);
}

std::optional<double> MeasureInt16DotPeak(int threads, int repeats) {
    if (!Available(VectorPath::kAvx512) || !core::HostCpu().avx512vnni) return std::nullopt;
    return BestRate(RunInt16DotChains, kRounds, threads, repeats);
}

std::optional<double> MeasureInt16PairPeak(int threads, int repeats) {
    if (!Available(VectorPath::kAvx2)) return std::nullopt;
    return BestRate(RunInt16PairChainsAvx2, kRounds, threads, repeats);
}

VectorPath WidestVectorPath() {
    const core::CpuFeatures& features = core::HostCpu();
    if (features.avx512f && features.avx512bw && features.avx512vl) return VectorPath::kAvx512;
    if (features.avx2 && features.fma) return VectorPath::kAvx2;
    return VectorPath::kBaseline;
}

VectorPath VectorPathOfKernel(std::string_view kernelName) {
    if (kernelName.find("avx512") != std::string_view::npos) return VectorPath::kAvx512;
    if (kernelName.find("avx2") != std::string_view::npos) return VectorPath::kAvx2;
    return VectorPath::kBaseline;
}

}  // namespace atbx::perf
