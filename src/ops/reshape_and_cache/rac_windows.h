// The compress modes' per-head windows (docs/spec/self_attention.md 4.2): which tokens of (batch b, head h) a
// call writes, and to which cache rows. Shared by the device-value rules (which check them) and the planner.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_WINDOWS_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_WINDOWS_H

#include <cstdint>
#include <vector>

#include "ops/reshape_and_cache/rac_subject.h"

namespace atbx::ops::rac {

// Item i = b * Nh + h of a compress call, read from slotMapping, wins, seqLen and offsetIndex.
struct HeadWindow {
    int64_t item = 0;        // i
    int64_t batch = 0;       // b
    int64_t head = 0;        // h
    int64_t firstToken = 0;  // key row of token 0 of sequence b: seqLen[0] + ... + seqLen[b - 1]
    int64_t length = 0;      // L = seqLen[b]
    int64_t window = 0;      // w = wins[i]
    int64_t offset = -1;     // o = offsetIndex[i] (KVHEAD_ROPE); -1 (no mean) for KVHEAD
    int64_t slot = 0;        // slotMapping[i]: cache row of the first row written; negative: skipped
};

// Every item of a compress call, in order. Reads device tensors: Stage::kDeviceValues on.
std::vector<HeadWindow> HeadWindows(const RacSubject& subject);

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
