// The compress modes' per-head windows (docs/spec/self_attention.md 4.2): which tokens of (batch b, head h) a
// call writes, and to which cache rows. Shared by the device-value rules (which check them) and the planner.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_WINDOWS_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_WINDOWS_H

#include <cstdint>

#include "ops/reshape_and_cache/rac_subject.h"

namespace atbx::ops::rac {

// Whether the item's lengths are consistent: 0 <= w <= L, the sequence lies inside the T key rows, and
// (KVHEAD_ROPE) o == -1 or 0 <= o <= L - w. The device-value rules report the items that are not.
bool Consistent(const RacSubject& subject, const HeadWindow& window);

// Whether the item averages a window (KVHEAD_ROPE with o != -1 and w > 0).
bool Averages(const RacSubject& subject, const HeadWindow& window);

// Cache rows a consistent item writes from its slot on: w (KVHEAD); L, or L - w + 1 when it averages
// (KVHEAD_ROPE).
int64_t RowsWritten(const RacSubject& subject, const HeadWindow& window);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_WINDOWS_H
