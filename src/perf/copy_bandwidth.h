// The machine's memory-copy ceiling, measured in the same run as the copies it is compared with (cache writes
// such as ReshapeAndCache).
#ifndef ATBX_PERF_COPY_BANDWIDTH_H
#define ATBX_PERF_COPY_BANDWIDTH_H

#include <cstdint>

#include "perf/page_buffer.h"

namespace atbx::perf {

// Bytes moved per second (bytes read plus bytes written) by memcpy of a `bytes`-sized buffer into another,
// split over `threads` threads (0: all), best of `repeats` passes, both buffers on `pages`. The buffers must
// be larger than the last-level cache to measure DRAM.
double MeasureCopyBandwidth(int64_t bytes, int threads, int repeats, Pages pages = Pages::kDefault);

}  // namespace atbx::perf

#endif  // ATBX_PERF_COPY_BANDWIDTH_H
