// CacheWritePlan: rows copied into a KV cache (ReshapeAndCache; SelfAttention with the KV cache in the op).
// Each RowWrite copies `channels` channels from a source row to a destination row, or a run of such rows at
// fixed steps at both ends; a destination may instead receive the mean of several consecutive source rows
// (ReshapeAndCache KVHEAD_ROPE).
#ifndef ATBX_PLAN_CACHE_WRITE_H
#define ATBX_PLAN_CACHE_WRITE_H

#include <cstdint>
#include <vector>

#include "atbx/types.h"

namespace atbx::plan {

struct RowWrite {
    int64_t srcOffset = 0;  // element offset of channel 0 of the first source row
    int32_t srcRows = 1;    // > 1: write the mean of srcRows rows, srcRowStride elements apart
    int32_t runRows = 1;    // copies (srcRows == 1): row r of the run from srcOffset + r * the stream's
                            // srcRunStride to dstOffset + r * its dstRunStride
    int64_t srcRowStride = 0;
    int64_t dstOffset = 0;  // element offset of channel 0 of the destination row
};

struct CacheWriteStream {
    const void* src = nullptr;
    void* dst = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;  // source and destination share it
    int64_t channels = 0;
    int dstChannelTile = 0;  // 0: ND; 16 or 32: FRACTAL_NZ tiles
    int64_t dstChannelTileStride = 0;
    // Element steps between the rows of a run (ND streams only; 0: rows are never joined into runs).
    int64_t srcRunStride = 0, dstRunStride = 0;
    std::vector<RowWrite> rows;

    // Appends one row (runRows 1), joining it to the last run when it copies the row that follows that run
    // at both ends (a prefill's tokens written to consecutive slots: one entry, not one per row).
    void Add(const RowWrite& row) {
        if (!rows.empty() && Continues(rows.back(), row)) {
            ++rows.back().runRows;
            return;
        }
        rows.push_back(row);
    }

    // Rows the stream writes, runs counted row by row.
    int64_t RowCount() const {
        int64_t count = 0;
        for (const RowWrite& row : rows)
            count += row.runRows;
        return count;
    }

  private:
    bool Continues(const RowWrite& run, const RowWrite& row) const {
        return dstChannelTile == 0 && dstRunStride != 0 && run.srcRows == 1 && row.srcRows == 1 &&
               run.runRows < INT32_MAX && row.srcOffset == run.srcOffset + run.runRows * srcRunStride &&
               row.dstOffset == run.dstOffset + run.runRows * dstRunStride;
    }
};

struct CacheWritePlan {
    std::vector<CacheWriteStream> streams;
    bool empty() const { return streams.empty(); }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_CACHE_WRITE_H
