#include "bench/machine_ceilings.h"

#include <omp.h>

#include <algorithm>

#include "core/cpu_features.h"
#include "perf/amx_peak.h"
#include "perf/bandwidth.h"
#include "perf/copy_bandwidth.h"
#include "perf/machine_info.h"

namespace atbx::cli::bench {
namespace {

constexpr int64_t kMinBufferBytes = int64_t{1} << 30;

int64_t DefaultBufferBytes(int64_t lastLevelCache) {
    const int64_t wanted = std::max(4 * lastLevelCache, kMinBufferBytes);
    return std::min(wanted, perf::PhysicalMemoryBytes() / 4);
}

}  // namespace

double MachineCeilings::WidestFmaPeak() const {
    const auto widest = fmaFlopsPerSecond.find(perf::WidestVectorPath());
    return widest == fmaFlopsPerSecond.end() ? 0.0 : widest->second;
}

double MachineCeilings::PeakOfKernel(const std::string& kernelName, const std::string& dtype) const {
    if (kernelName.find("amx") != std::string::npos && amxBf16FlopsPerSecond) return *amxBf16FlopsPerSecond;
    const perf::VectorPath vectorPath = perf::VectorPathOfKernel(kernelName);
    const auto path = fmaFlopsPerSecond.find(vectorPath);
    const double fma = path == fmaFlopsPerSecond.end() ? WidestFmaPeak() : path->second;
    if (vectorPath == perf::VectorPath::kAvx512 && dtype == "bf16" && bf16DotFlopsPerSecond)
        return *bf16DotFlopsPerSecond;
    if (vectorPath == perf::VectorPath::kAvx512 && dtype == "int8" && int16DotFlopsPerSecond)
        return *int16DotFlopsPerSecond;
    if (vectorPath == perf::VectorPath::kAvx2 && dtype == "int8" && int16PairFlopsPerSecond)
        return std::max(fma, *int16PairFlopsPerSecond);
    return fma;
}

MachineCeilings MeasureMachineCeilings(int threads, int64_t bufferBytes, perf::Pages pages, int repeats) {
    MachineCeilings c;
    c.cpu = perf::CpuModelName();
    c.isa = core::DescribeCpuFeatures(core::HostCpu());
    c.threads = threads > 0 ? threads : omp_get_max_threads();
    c.lastLevelCacheBytes = perf::LastLevelCacheBytes();
    c.bufferBytes = bufferBytes > 0 ? bufferBytes : DefaultBufferBytes(c.lastLevelCacheBytes);
    c.pages = pages;
    c.transparentHugePages = perf::TransparentHugePages();
    c.readBytesPerSecond = perf::MeasureReadBandwidth(c.bufferBytes, c.threads, repeats, pages);
    c.copyBytesPerSecond = perf::MeasureCopyBandwidth(c.bufferBytes / 2, c.threads, repeats, pages);
    for (perf::VectorPath path :
         {perf::VectorPath::kBaseline, perf::VectorPath::kAvx2, perf::VectorPath::kAvx512}) {
        if (const std::optional<double> peak = perf::MeasureFmaPeak(path, c.threads, repeats))
            c.fmaFlopsPerSecond[path] = *peak;
    }
    c.bf16DotFlopsPerSecond = perf::MeasureBf16DotPeak(c.threads, repeats);
    c.int16DotFlopsPerSecond = perf::MeasureInt16DotPeak(c.threads, repeats);
    c.int16PairFlopsPerSecond = perf::MeasureInt16PairPeak(c.threads, repeats);
    c.amxBf16FlopsPerSecond = perf::MeasureAmxBf16Peak(c.threads, repeats);
    return c;
}

namespace {

std::optional<double> Higher(std::optional<double> a, std::optional<double> b) {
    if (!a || !b) return a ? a : b;
    return std::max(*a, *b);
}

}  // namespace

MachineCeilings HigherCeilings(MachineCeilings first, const MachineCeilings& second) {
    first.readBytesPerSecond = std::max(first.readBytesPerSecond, second.readBytesPerSecond);
    first.copyBytesPerSecond = std::max(first.copyBytesPerSecond, second.copyBytesPerSecond);
    for (const auto& [path, peak] : second.fmaFlopsPerSecond) {
        double& kept = first.fmaFlopsPerSecond[path];
        kept = std::max(kept, peak);
    }
    first.amxBf16FlopsPerSecond = Higher(first.amxBf16FlopsPerSecond, second.amxBf16FlopsPerSecond);
    first.bf16DotFlopsPerSecond = Higher(first.bf16DotFlopsPerSecond, second.bf16DotFlopsPerSecond);
    first.int16DotFlopsPerSecond = Higher(first.int16DotFlopsPerSecond, second.int16DotFlopsPerSecond);
    first.int16PairFlopsPerSecond = Higher(first.int16PairFlopsPerSecond, second.int16PairFlopsPerSecond);
    return first;
}

}  // namespace atbx::cli::bench
