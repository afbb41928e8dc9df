// The machine's ceilings, measured at the start and again at the end of a benchmark run with the run's thread
// count: streaming read and copy bandwidth over buffers several times the last-level cache, the fp32 FMA peak
// of every vector path the CPU has, the bf16 and int16 dot-product peaks, and the AMX bf16 peak where Linux
// grants the tile state.
#ifndef ATBX_TOOLS_ATBX_BENCH_MACHINE_CEILINGS_H
#define ATBX_TOOLS_ATBX_BENCH_MACHINE_CEILINGS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "perf/fma_peak.h"
#include "perf/page_buffer.h"

namespace atbx::cli::bench {

struct MachineCeilings {
    std::string cpu;  // /proc/cpuinfo model name
    std::string isa;  // instruction sets found ("avx512 avx512bf16 ... avx2")
    int threads = 0;
    int64_t lastLevelCacheBytes = 0;
    int64_t bufferBytes = 0;                    // size of the buffers the bandwidths were measured on
    perf::Pages pages = perf::Pages::kDefault;  // the pages of those buffers and of the rows' tensors
    std::string transparentHugePages;           // Linux's mode: "always", "madvise", "never" or "unknown"
    double readBytesPerSecond = 0.0;
    double copyBytesPerSecond = 0.0;                       // bytes read plus bytes written
    std::map<perf::VectorPath, double> fmaFlopsPerSecond;  // every path the CPU has
    std::optional<double> amxBf16FlopsPerSecond;
    std::optional<double> bf16DotFlopsPerSecond;    // AVX512-BF16 dot products (cpu:avx512's bf16 Q.K)
    std::optional<double> int16DotFlopsPerSecond;   // AVX512-VNNI int16 dots (cpu:avx512's int8 Q.K and P.V)
    std::optional<double> int16PairFlopsPerSecond;  // AVX2 int16 pairs (cpu:avx2's int8 Q.K, int8 QKV P.V)

    double WidestFmaPeak() const;
    // The compute ceiling of a kernel on rows of `dtype`: its vector path's FMA peak, or the AMX peak for an
    // AMX kernel. bf16 rows on cpu:avx512 where the CPU has bf16 dot products: that peak, at which the column
    // runner takes both products (Q.K, and P.V over tiles of values at most 2 in magnitude, as the rows'
    // random values are); the row runner's tasks (decode of few query rows per kv head) take no dots, so
    // their % of this ceiling understates what their fp32 FMAs reach. int8 rows on cpu:avx512 where the CPU
    // has AVX512-VNNI: the int16 dot peak, at which the row runner takes the Q.K of int8 keys and the P.V of
    // int8 values for items of 3 lanes or more (one-lane MHA items take P.V on fp32 FMAs, and are bound by
    // memory). int8 rows on cpu:avx2: the higher of its FMA peak and the int16 pair peak, at which it takes
    // the Q.K of int8 keys, and both products of int8 QKV items in columns (the P.V of int8 caches runs on
    // fp32 FMAs, so a decode row's % of that ceiling understates where the pairs' peak is the higher).
    double PeakOfKernel(const std::string& kernelName, const std::string& dtype) const;
};

// `bufferBytes` 0: four times the last-level cache, at least 1 GiB, at most a quarter of the memory. The
// bandwidths are measured on buffers on `pages`, those of the rows they are compared with. Each ceiling is
// the best of `repeats` runs.
MachineCeilings MeasureMachineCeilings(int threads, int64_t bufferBytes, perf::Pages pages, int repeats);

// Each ceiling the higher of two measurements of the same machine (`atbx bench` measures at the start of a
// run and again after its rows, so that a neighbour's load during one measurement, which has halved a
// peak on a shared host, does not set the figures every row is compared with).
MachineCeilings HigherCeilings(MachineCeilings first, const MachineCeilings& second);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_MACHINE_CEILINGS_H
