// WorkItem: one unit of attention work. Some query rows of one sequence attend, with one group of query
// heads, to the keys of one kv head. Every mode of both attention operations reduces to a list of these.
#ifndef ATBX_PLAN_WORK_ITEM_H
#define ATBX_PLAN_WORK_ITEM_H

#include <cstdint>

namespace atbx::plan {

struct WorkItem {
    int32_t batch = 0;      // original batch index b: masks, logN and host arrays are indexed by it
    int64_t qOffset = 0;    // element offset of query row 0, head 0 (RowAccess)
    int64_t outOffset = 0;  // element offset of output row 0, head 0
    int32_t qLen = 0;       // query rows
    int32_t kvBegin = 0;    // keys [kvBegin, kvEnd) take part in the softmax
    int32_t kvEnd = 0;
    int64_t kvSequence = 0;  // block-table row (paged sources) or element offset of position 0
    int64_t prefix =
        0;  // absolute position of query row 0: key j is causal-visible to row i iff j <= prefix + i
    int32_t headBegin = 0;  // query heads [headBegin, headBegin + headCount), original head indices
    int32_t headCount = 0;
    int32_t kvHead = 0;         // head index inside the cache
    int32_t logicalKvHead = 0;  // kv head of the model (differs from kvHead under KV-head compression)
    int32_t maskBatch = 0;      // batch index used by tensor masks
    int64_t maskRow0 = 0;       // mask row of query row 0 (row i reads maskRow0 + i)
    int32_t logNIndex = 0;      // logN entry of row 0 when logN is per batch
    bool zeroOutput = false;    // dynamic batch with status 0: rows are written as zeros, nothing is computed
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_WORK_ITEM_H
