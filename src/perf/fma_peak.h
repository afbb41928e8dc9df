// The machine's fp32 multiply-add ceiling for each CPU path, measured in the same run as the figures it is
// compared with: independent chains of vector FMAs (no loads), so the FMA ports, not latency or memory, set
// the pace.
#ifndef ATBX_PERF_FMA_PEAK_H
#define ATBX_PERF_FMA_PEAK_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace atbx::perf {

enum class VectorPath {
    kBaseline,  // SSE2 mul + add (x86-64 baseline): what portable code such as cpu:scalar compiles to
    kAvx2,      // ymm FMA3
    kAvx512,    // zmm FMA
};

const char* VectorPathName(VectorPath path);

// The best FLOP/s of `chains(rounds)` (which returns the operations it performed) run on every thread of a
// team of `threads` (0: all) at once, over `repeats` runs: how every ceiling of this directory is timed.
double BestRate(double (*chains)(int64_t), int64_t rounds, int threads, int repeats);

// FLOP/s (an FMA counts 2) of `path` on `threads` threads (0: all), best of `repeats` runs; nothing when this
// CPU or OS lacks the path.
std::optional<double> MeasureFmaPeak(VectorPath path, int threads, int repeats);

// FLOP/s of AVX512-BF16 dot products (two bf16 products added to each fp32 lane per instruction: what
// cpu:avx512 takes bf16 Q.K with where the CPU has them) on `threads` threads, best of `repeats`; nothing
// when the CPU lacks AVX512-BF16.
std::optional<double> MeasureBf16DotPeak(int threads, int repeats);

// Operations per second (a multiply-add counts 2) of AVX512-VNNI int16 dot products (two int16 products added
// to each int32 lane per instruction: what cpu:avx512 takes the Q.K and P.V of int8 caches with where the CPU
// has them) on `threads` threads, best of `repeats`; nothing when the CPU lacks AVX512-VNNI.
std::optional<double> MeasureInt16DotPeak(int threads, int repeats);

// Operations per second (a multiply-add counts 2) of AVX2 int16 pair products (VPMADDWD adds two int16
// products into each int32 lane, VPADDD that to a sum: what cpu:avx2 takes the Q.K of int8 keys, and both
// products of int8 QKV in columns, with) on `threads` threads, best of `repeats`; nothing when the CPU lacks
// AVX2.
std::optional<double> MeasureInt16PairPeak(int threads, int repeats);

// The widest path this CPU has.
VectorPath WidestVectorPath();

// The path a kernel named "cpu:avx512", "cpu:avx2", "cpu:scalar", "reference" ... computes with.
VectorPath VectorPathOfKernel(std::string_view kernelName);

}  // namespace atbx::perf

#endif  // ATBX_PERF_FMA_PEAK_H
