// Per-instruction-set FMA chains for perf/fma_peak.cpp. Each lives in its own translation unit compiled for
// its instruction set alone (src/CMakeLists.txt), and is called only after run-time detection says the CPU
// has it. Each returns the floating-point operations it performed.
#ifndef ATBX_PERF_FMA_CHAINS_H
#define ATBX_PERF_FMA_CHAINS_H

#include <cstdint>

namespace atbx::perf {

double RunFmaChainsBaseline(int64_t rounds);
double RunFmaChainsAvx2(int64_t rounds);
double RunFmaChainsAvx512(int64_t rounds);
double RunBf16DotChains(int64_t rounds);        // VDPBF16PS: 4 FLOPs per fp32 lane and instruction
double RunInt16DotChains(int64_t rounds);       // VPDPWSSD: 4 operations per int32 lane and instruction
double RunInt16PairChainsAvx2(int64_t rounds);  // VPMADDWD + VPADDD: 4 operations per int32 lane and pair

}  // namespace atbx::perf

#endif  // ATBX_PERF_FMA_CHAINS_H
