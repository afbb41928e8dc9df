#include "kernels/cpu/cache_write_cpu.h"

#include <algorithm>
#include <cstring>

#include "core/float16.h"
#include "core/parallel.h"
#include "plan/element.h"

namespace atbx::kernels::cpu {
namespace {

using plan::CacheWriteStream;
using plan::RowWrite;

// Bytes one task writes: large enough that a task's overhead vanishes, small enough that a 2-token call still
// has a task per thread when its rows are long, and that the source rows of an NZ task stay in L2.
constexpr int64_t kTaskBytes = 64 * 1024;
// Channels one mean sums at a time (fp32 accumulators on the stack).
constexpr int64_t kMeanChannels = 256;

// How a stream is cut: groups of rows times pieces of channels (a piece is a whole number of NZ tiles).
struct StreamCut {
    const CacheWriteStream* stream = nullptr;
    int64_t elementSize = 0;
    int64_t rowsPerTask = 1;
    int64_t channelsPerPiece = 0;
    int64_t pieces = 1;
    int64_t tasks = 0;
};

StreamCut CutOf(const CacheWriteStream& stream) {
    StreamCut cut;
    cut.stream = &stream;
    cut.elementSize = static_cast<int64_t>(DataTypeSize(stream.dtype));
    const int64_t rowBytes = std::max<int64_t>(1, stream.channels * cut.elementSize);
    cut.rowsPerTask = std::max<int64_t>(1, kTaskBytes / rowBytes);
    cut.channelsPerPiece = stream.channels;
    if (rowBytes > 2 * kTaskBytes) {  // a long row (the whole-cache copy) is cut into pieces
        const int64_t unit = std::max(1, stream.dstChannelTile);
        cut.channelsPerPiece = std::max<int64_t>(1, kTaskBytes / (cut.elementSize * unit)) * unit;
        cut.pieces = (stream.channels + cut.channelsPerPiece - 1) / cut.channelsPerPiece;
    }
    const auto rows = static_cast<int64_t>(stream.rows.size());
    cut.tasks = stream.channels == 0 ? 0 : (rows + cut.rowsPerTask - 1) / cut.rowsPerTask * cut.pieces;
    return cut;
}

// The fp32 value of element i of a typed buffer, exactly as plan::LoadElement gives it; kDtype is the dtype
// resolved once per stream (ACL_DT_UNDEFINED: any other dtype, looked up per element through `dtype`).
template <aclDataType kDtype>
float LoadFloat(const void* data, aclDataType dtype, int64_t i) {
    if constexpr (kDtype == ACL_FLOAT16) return core::HalfToFloat(static_cast<const uint16_t*>(data)[i]);
    if constexpr (kDtype == ACL_BF16) return core::Bf16ToFloat(static_cast<const uint16_t*>(data)[i]);
    if constexpr (kDtype == ACL_FLOAT) return static_cast<const float*>(data)[i];
    return static_cast<float>(plan::LoadElement(data, dtype, i));
}

// Rounds to the cache dtype as plan::StoreElement does (the same conversions).
template <aclDataType kDtype>
void StoreFloat(void* data, aclDataType dtype, int64_t i, float value) {
    if constexpr (kDtype == ACL_FLOAT16) {
        static_cast<uint16_t*>(data)[i] = core::DoubleToHalf(value);
    } else if constexpr (kDtype == ACL_BF16) {
        static_cast<uint16_t*>(data)[i] = core::DoubleToBf16(value);
    } else if constexpr (kDtype == ACL_FLOAT) {
        static_cast<float*>(data)[i] = value;
    } else {
        plan::StoreElement(data, dtype, i, value);
    }
}

// Channels [c0, c1) of the mean of row.srcRows source rows: each channel summed over the rows in row order in
// fp32 and divided in fp32, as the reference does (docs/decisions.md ReshapeAndCache 5); the loop over
// channels is what vectorises, so each channel's order of additions is unchanged.
template <aclDataType kDtype>
void WriteMean(const CacheWriteStream& stream, const RowWrite& row, int64_t c0, int64_t c1) {
    float sums[kMeanChannels];
    const auto divisor = static_cast<float>(row.srcRows);
    for (int64_t begin = c0; begin < c1; begin += kMeanChannels) {
        const int64_t count = std::min(kMeanChannels, c1 - begin);
        std::fill_n(sums, count, 0.0f);
        for (int32_t r = 0; r < row.srcRows; ++r) {
            const int64_t from = row.srcOffset + r * row.srcRowStride + begin;
            for (int64_t c = 0; c < count; ++c)
                sums[c] += LoadFloat<kDtype>(stream.src, stream.dtype, from + c);
        }
        for (int64_t c = 0; c < count; ++c) {
            const int64_t to = plan::ChannelOffset(row.dstOffset, begin + c, stream.dstChannelTile,
                                                   stream.dstChannelTileStride);
            StoreFloat<kDtype>(stream.dst, stream.dtype, to, sums[c] / divisor);
        }
    }
}

void WriteMeanOf(const CacheWriteStream& stream, const RowWrite& row, int64_t c0, int64_t c1) {
    switch (stream.dtype) {
        case ACL_FLOAT16:
            return WriteMean<ACL_FLOAT16>(stream, row, c0, c1);
        case ACL_BF16:
            return WriteMean<ACL_BF16>(stream, row, c0, c1);
        case ACL_FLOAT:
            return WriteMean<ACL_FLOAT>(stream, row, c0, c1);
        default:
            return WriteMean<ACL_DT_UNDEFINED>(stream, row, c0, c1);
    }
}

// ND: channels [c0, c1) of each copied row are one contiguous run at both ends.
void CopyNdRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    const auto* src = static_cast<const char*>(s.src);
    auto* dst = static_cast<char*>(s.dst);
    const auto bytes = static_cast<size_t>((c1 - c0) * cut.elementSize);
    for (int64_t k = 0; k < count; ++k) {
        if (rows[k].srcRows > 1) continue;
        std::memcpy(dst + (rows[k].dstOffset + c0) * cut.elementSize,
                    src + (rows[k].srcOffset + c0) * cut.elementSize, bytes);
    }
}

// FRACTAL_NZ: a row's channels [j * tile, (j + 1) * tile) are contiguous in the cache. Tiles outside, rows
// inside: consecutive slots of a block lie next to each other within a tile, so the writes of a task run
// along the cache. kTileBytes > 0: whole tiles of that many bytes (a fixed-size copy); 0: any run.
template <int kTileBytes>
void CopyNzRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    const auto* src = static_cast<const char*>(s.src);
    auto* dst = static_cast<char*>(s.dst);
    const int64_t es = cut.elementSize;
    for (int64_t first = c0; first < c1; first += s.dstChannelTile) {
        const int64_t tileOffset = (first / s.dstChannelTile) * s.dstChannelTileStride;
        const auto bytes = static_cast<size_t>(std::min<int64_t>(s.dstChannelTile, c1 - first) * es);
        for (int64_t k = 0; k < count; ++k) {
            if (rows[k].srcRows > 1) continue;
            char* to = dst + (rows[k].dstOffset + tileOffset) * es;
            const char* from = src + (rows[k].srcOffset + first) * es;
            if constexpr (kTileBytes > 0) {
                std::memcpy(to, from, kTileBytes);
            } else {
                std::memcpy(to, from, bytes);
            }
        }
    }
}

void CopyRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    if (s.dstChannelTile == 0) return CopyNdRows(cut, rows, count, c0, c1);
    const int64_t tileBytes = s.dstChannelTile * cut.elementSize;
    const bool wholeTiles = c0 % s.dstChannelTile == 0 && (c1 - c0) % s.dstChannelTile == 0;
    if (wholeTiles && tileBytes == 32) return CopyNzRows<32>(cut, rows, count, c0, c1);
    if (wholeTiles && tileBytes == 64) return CopyNzRows<64>(cut, rows, count, c0, c1);
    CopyNzRows<0>(cut, rows, count, c0, c1);
}

// Task `task` of a stream: a group of rows and a piece of their channels.
void RunTask(const StreamCut& cut, int64_t task) {
    const CacheWriteStream& s = *cut.stream;
    const int64_t group = task / cut.pieces;
    const int64_t piece = task % cut.pieces;
    const int64_t c0 = piece * cut.channelsPerPiece;
    const int64_t c1 = std::min(s.channels, c0 + cut.channelsPerPiece);
    const int64_t firstRow = group * cut.rowsPerTask;
    const int64_t count = std::min(cut.rowsPerTask, static_cast<int64_t>(s.rows.size()) - firstRow);
    const RowWrite* rows = s.rows.data() + firstRow;
    CopyRows(cut, rows, count, c0, c1);
    for (int64_t k = 0; k < count; ++k) {
        if (rows[k].srcRows > 1) WriteMeanOf(s, rows[k], c0, c1);
    }
}

// The streams of one phase (no two write the same buffer), run as one ParallelFor.
struct Phase {
    static constexpr int kMaxStreams = 8;
    StreamCut cuts[kMaxStreams];
    int streams = 0;
    int64_t tasks = 0;

    bool Writes(const void* dst) const {
        return std::any_of(cuts, cuts + streams, [dst](const StreamCut& c) { return c.stream->dst == dst; });
    }
    void Run(int threads) const {
        if (tasks == 0) return;
        auto body = [this](int64_t task, int) {
            int k = 0;
            while (task >= cuts[k].tasks)
                task -= cuts[k++].tasks;
            RunTask(cuts[k], task);
        };
        if (tasks == 1) return body(0, 0);
        core::ParallelFor(tasks, threads, body);
    }
};

}  // namespace

void ExecuteCacheWrites(const plan::CacheWritePlan& plan, int threads) {
    Phase phase;
    for (const CacheWriteStream& stream : plan.streams) {
        if (phase.streams == Phase::kMaxStreams || phase.Writes(stream.dst)) {
            phase.Run(threads);
            phase = Phase{};
        }
        const StreamCut cut = CutOf(stream);
        if (cut.tasks == 0) continue;
        phase.cuts[phase.streams++] = cut;
        phase.tasks += cut.tasks;
    }
    if (phase.tasks > 0) phase.Run(threads);
}

}  // namespace atbx::kernels::cpu
