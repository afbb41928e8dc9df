#include "kernels/ref/cache_write_ref.h"

#include <cstring>

#include "plan/element.h"

namespace atbx::kernels::ref {
namespace {

using plan::CacheWriteStream;
using plan::RowWrite;

// Row r of a run.
RowWrite RowOfRun(const CacheWriteStream& stream, const RowWrite& run, int32_t r) {
    RowWrite row = run;
    row.runRows = 1;
    row.srcOffset += r * stream.srcRunStride;
    row.dstOffset += r * stream.dstRunStride;
    return row;
}

void CopyRow(const CacheWriteStream& stream, const RowWrite& row, int64_t elementSize) {
    const auto* src = static_cast<const char*>(stream.src);
    auto* dst = static_cast<char*>(stream.dst);
    if (stream.dstChannelTile == 0) {  // ND: the row is contiguous at both ends
        std::memcpy(dst + row.dstOffset * elementSize, src + row.srcOffset * elementSize,
                    static_cast<size_t>(stream.channels * elementSize));
        return;
    }
    for (int64_t c = 0; c < stream.channels; ++c) {
        const int64_t to =
            plan::ChannelOffset(row.dstOffset, c, stream.dstChannelTile, stream.dstChannelTileStride);
        std::memcpy(dst + to * elementSize, src + (row.srcOffset + c) * elementSize, elementSize);
    }
}

// Mean of row.srcRows rows, summed and divided in fp32 as ATB's kernel does, then rounded to the cache dtype.
void WriteMean(const CacheWriteStream& stream, const RowWrite& row) {
    for (int64_t c = 0; c < stream.channels; ++c) {
        float sum = 0.0f;
        for (int32_t r = 0; r < row.srcRows; ++r) {
            sum += static_cast<float>(
                plan::LoadElement(stream.src, stream.dtype, row.srcOffset + r * row.srcRowStride + c));
        }
        const float mean = sum / static_cast<float>(row.srcRows);
        const int64_t to =
            plan::ChannelOffset(row.dstOffset, c, stream.dstChannelTile, stream.dstChannelTileStride);
        plan::StoreElement(stream.dst, stream.dtype, to, mean);
    }
}

}  // namespace

void ExecuteCacheWrites(const plan::CacheWritePlan& plan) {
    for (const CacheWriteStream& stream : plan.streams) {
        const auto elementSize = static_cast<int64_t>(DataTypeSize(stream.dtype));
        for (const RowWrite& row : stream.rows) {
            if (row.srcRows > 1) {
                WriteMean(stream, row);
                continue;
            }
            for (int32_t r = 0; r < row.runRows; ++r)
                CopyRow(stream, RowOfRun(stream, row, r), elementSize);
        }
    }
}

}  // namespace atbx::kernels::ref
