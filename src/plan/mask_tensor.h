// TensorMask: a mask given as a tensor (ND or FRACTAL_NZ), read for query row i, head h, key j of an item at
//   item.maskBatch * batchStride + h * headStride + (item.maskRow0 + i) * rowStride + column(j)
// A stride of 0 broadcasts that dim. Values are additive, or 0/1 flags multiplied by -3e38 where ATB's
// kernels read them so (bf16 masks; fp16 masks on the high-precision kernels).
#ifndef ATBX_PLAN_MASK_TENSOR_H
#define ATBX_PLAN_MASK_TENSOR_H

#include <cstdint>
#include <optional>

#include "atbx/types.h"
#include "plan/element.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct TensorMask {
    static constexpr double kFlagScale = -3e38;

    const void* data = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    int64_t batchStride = 0;
    int64_t headStride = 0;
    int64_t rowStride = 0;
    int columnTile = 0;  // 0: ND; 16: FRACTAL_NZ, column j at (j / 16) * columnTileStride + j % 16
    int64_t columnTileStride = 0;
    bool flags = false;
    // The most a term above a row's diagonal (key j > p, p = item.prefix + i) exceeds the term of the row's
    // own key p, over every head, row and key the items read (WithDiagonalBound); empty where not known.
    std::optional<double> diagonalGap;

    double Term(const WorkItem& item, int64_t h, int64_t i, int64_t j) const {
        const int64_t row = item.maskBatch * batchStride + h * headStride + (item.maskRow0 + i) * rowStride;
        const double value = LoadElement(data, dtype, ChannelOffset(row, j, columnTile, columnTileStride));
        return flags ? value * kFlagScale : value;
    }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_TENSOR_H
