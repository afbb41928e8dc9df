// The machine's memory-read ceiling, measured in the same run as the figure it is compared with (machines are
// shared and noisy: a ceiling measured elsewhere says little).
#ifndef ATBX_PERF_BANDWIDTH_H
#define ATBX_PERF_BANDWIDTH_H

#include <cstdint>

#include "perf/page_buffer.h"

namespace atbx::perf {

// Bytes per second of a streaming read of a `bytes`-sized buffer split over `threads` threads (0: all), best
// of `repeats` passes, the buffer on `pages`. The buffer must be larger than the last-level cache to measure
// DRAM.
double MeasureReadBandwidth(int64_t bytes, int threads, int repeats, Pages pages = Pages::kDefault);

}  // namespace atbx::perf

#endif  // ATBX_PERF_BANDWIDTH_H
