// RowAccess: query rows read and output rows written by a work item. Row i, head h, channel c of an item sits
// at item offset + i * rowStride + h * headStride + c (elements of dtype). Queries and outputs are ND at
// every ATB interface, so channels are contiguous.
#ifndef ATBX_PLAN_ROW_ACCESS_H
#define ATBX_PLAN_ROW_ACCESS_H

#include <cstdint>

#include "atbx/types.h"

namespace atbx::plan {

struct RowAccess {
    const void* data = nullptr;  // query: read; output: written through `out`
    void* out = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    int64_t rowStride = 0;
    int64_t headStride = 0;

    int64_t Offset(int64_t itemOffset, int64_t row, int64_t head) const {
        return itemOffset + row * rowStride + head * headStride;
    }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_ROW_ACCESS_H
