// CacheWritePlan: rows copied into a KV cache (ReshapeAndCache; SelfAttention with the KV cache in the op).
// Each RowWrite copies `channels` channels from a source row to a destination row; a destination may instead
// receive the mean of several consecutive source rows (ReshapeAndCache KVHEAD_ROPE).
#ifndef ATBX_PLAN_CACHE_WRITE_H
#define ATBX_PLAN_CACHE_WRITE_H

#include <cstdint>
#include <vector>

#include "atbx/types.h"

namespace atbx::plan {

struct RowWrite {
    int64_t srcOffset = 0;  // element offset of channel 0 of the first source row
    int32_t srcRows = 1;    // > 1: write the mean of srcRows rows, srcRowStride elements apart
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
    std::vector<RowWrite> rows;
};

struct CacheWritePlan {
    std::vector<CacheWriteStream> streams;
    bool empty() const { return streams.empty(); }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_CACHE_WRITE_H
