// What the work items of a plan read of a tensor mask, for the planner's scans of its values
// (mask_causal_form.h, mask_diagonal_bound.h), which run in Execute and so allocate nothing.
#ifndef ATBX_PLAN_MASK_ROW_SPANS_H
#define ATBX_PLAN_MASK_ROW_SPANS_H

#include <cstdint>
#include <vector>

#include "plan/work_item.h"

namespace atbx::plan {

// An item's part of the mask: heads [headBegin, headBegin + heads) of batch `batch`, rows [row0, row0 + rows)
// for query rows at positions [prefix, prefix + rows), keys [kvBegin, kvEnd).
struct MaskRowSpan {
    int32_t batch = 0, headBegin = 0, heads = 1;
    int64_t row0 = 0, prefix = 0;
    int32_t rows = 0, kvBegin = 0, kvEnd = 0;
    bool operator==(const MaskRowSpan&) const = default;
};

// The span item reads: under a mask without a head dim (`headDim` false) head 0 stands for every head.
inline MaskRowSpan SpanOf(const WorkItem& item, bool headDim) {
    return {item.maskBatch,
            headDim ? item.headBegin : 0,
            headDim ? item.headCount : 1,
            item.maskRow0,
            item.prefix,
            item.qLen,
            item.kvBegin,
            item.kvEnd};
}

// Whether items[index] computes (not zeroOutput) and reads another span than the item before it (the kv
// heads of a sequence read the same one under a mask without a head dim).
inline bool ReadsItsOwnSpan(const std::vector<WorkItem>& items, size_t index, bool headDim) {
    if (items[index].zeroOutput) return false;
    return index == 0 || !(SpanOf(items[index - 1], headDim) == SpanOf(items[index], headDim));
}

// Calls read(span) for the span of every item that ReadsItsOwnSpan; stops and returns false as soon as read
// does.
template <class Read>
bool ForEachRowSpan(const std::vector<WorkItem>& items, bool headDim, Read read) {
    for (size_t index = 0; index < items.size(); ++index) {
        if (ReadsItsOwnSpan(items, index, headDim) && !read(SpanOf(items[index], headDim))) return false;
    }
    return true;
}

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_ROW_SPANS_H
