// The AMX bf16 matrix-multiply ceiling (TDPBF16PS), measured in the same run as the figures it is compared
// with. Linux hands out the tile state only on request, which core::HostCpu() makes
// (src/core/cpu_features.h); when the CPU lacks AMX or the kernel refuses, there is no ceiling to report.
#ifndef ATBX_PERF_AMX_PEAK_H
#define ATBX_PERF_AMX_PEAK_H

#include <optional>

namespace atbx::perf {

// FLOP/s of bf16 tile multiply-adds (fp32 accumulation) on `threads` threads (0: all), best of `repeats`;
// nothing when the CPU lacks AMX-BF16 or the permission is refused.
std::optional<double> MeasureAmxBf16Peak(int threads, int repeats);

}  // namespace atbx::perf

#endif  // ATBX_PERF_AMX_PEAK_H
