// AlibiTileMask: a compressed ALiBi mask of shape [H, rows, 128] (ND, or FRACTAL_NZ [H, 8, rows, 16]) that
// holds, for each head, the first 128 columns of the full ALiBi mask, bias and causal part included
// (docs/spec/self_attention.md 3.5, "alibi compress 128"). A full ALiBi mask is constant along its diagonals,
// so key j of a query at absolute position p = item.prefix + i reads row p - t, column j - t of head h's
// plane, where t = 128 * (j / 128) is the first key of j's 128-key tile: the row ATB's kernels read for that
// tile. Tiles that start after p lie above the query's diagonal tile; the kernels skip them, so their keys
// are hidden.
#ifndef ATBX_PLAN_MASK_ALIBI_TILE_H
#define ATBX_PLAN_MASK_ALIBI_TILE_H

#include <cstdint>
#include <limits>

#include "atbx/types.h"
#include "plan/element.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct AlibiTileMask {
    static constexpr int64_t kTileKeys = 128;

    const void* data = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    int64_t headStride = 0;
    int64_t rowStride = 0;
    int columnTile = 0;  // 0: ND; 16: FRACTAL_NZ, column c at (c / 16) * columnTileStride + c % 16
    int64_t columnTileStride = 0;

    double Term(const WorkItem& item, int64_t h, int64_t i, int64_t j) const {
        const int64_t position = item.prefix + i;
        const int64_t tileStart = j / kTileKeys * kTileKeys;
        if (tileStart > position) return -std::numeric_limits<double>::infinity();
        const int64_t row = h * headStride + (position - tileStart) * rowStride;
        return LoadElement(data, dtype, ChannelOffset(row, j - tileStart, columnTile, columnTileStride));
    }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_ALIBI_TILE_H
