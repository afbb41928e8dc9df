#include "kernels/cpu/cache_write_cpu.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#include "core/cpu_features.h"
#include "core/float16.h"
#include "core/parallel.h"
#include "kernels/cpu/half_row_sums.h"
#include "kernels/cpu/stream_copy.h"
#include "plan/element.h"

namespace atbx::kernels::cpu {
namespace {

using plan::CacheWriteStream;
using plan::RowWrite;

// Bytes one task writes: large enough that a task's overhead vanishes, small enough that a 2-token call still
// has a task per thread when its rows are long, and that the source rows of an NZ task stay in L2.
constexpr int64_t kTaskBytes = 64 * 1024;
// A plan that writes at least this many bytes bypasses the cache with its stores: the stores skip reading the
// destination first, and the rows are read again only by later attention calls (the one that follows a
// decode step reads one new row per sequence and kv head among its whole cache). Smaller writes (a decode
// step of a few sequences) stay in the cache. Against 4 MiB, on the Zen 4 host of BENCHMARKS.md: 512-token
// ND writes (2 MiB) 0.30-0.46x the time, 32-token ones (128 KiB) 0.46-0.70x.
constexpr int64_t kStreamingBytes = 64 << 10;
// Channels one mean sums at a time (fp32 accumulators on the stack).
constexpr int64_t kMeanChannels = 256;

// How a stream is cut: groups of rows times pieces of channels (a piece is a whole number of NZ tiles). A
// group holds rowsPerTask entries of the stream's rows, each a run of rows in ND streams
// (plan/cache_write.h): about kTaskBytes of rows where the runs are of average length.
struct StreamCut {
    const CacheWriteStream* stream = nullptr;
    int64_t elementSize = 0;
    int64_t rowsPerTask = 1;
    int64_t channelsPerPiece = 0;
    int64_t pieces = 1;
    int64_t tasks = 0;
    bool streaming = false;  // non-temporal stores (the plan writes more than kStreamingBytes)
    StreamCopyFn streamCopy = nullptr;
};

StreamCut CutOf(const CacheWriteStream& stream, bool streaming) {
    StreamCut cut;
    cut.streaming = streaming;
    cut.streamCopy = HostStreamCopy();
    cut.stream = &stream;
    cut.elementSize = static_cast<int64_t>(DataTypeSize(stream.dtype));
    const int64_t rowBytes = std::max<int64_t>(1, stream.channels * cut.elementSize);
    // NZ: a task writes runs of rowsPerTask tiles; four times the rows make those runs 4 KiB at 2 KiB rows,
    // and the task's source rows (256 KiB) still fit L2.
    const int64_t taskBytes = stream.dstChannelTile == 0 ? kTaskBytes : 4 * kTaskBytes;
    cut.rowsPerTask = std::max<int64_t>(1, taskBytes / rowBytes);
    cut.channelsPerPiece = stream.channels;
    if (rowBytes > 2 * kTaskBytes) {  // a long row (the whole-cache copy) is cut into pieces
        const int64_t unit = std::max(1, stream.dstChannelTile);
        cut.channelsPerPiece = std::max<int64_t>(1, kTaskBytes / (cut.elementSize * unit)) * unit;
        cut.pieces = (stream.channels + cut.channelsPerPiece - 1) / cut.channelsPerPiece;
    }
    const auto rows = static_cast<int64_t>(stream.rows.size());
    if (rows > 0) cut.rowsPerTask = std::max<int64_t>(1, cut.rowsPerTask * rows / stream.RowCount());  // runs
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

void PrefetchToL2(const char* line) {
#if defined(__SSE2__)
    _mm_prefetch(line, _MM_HINT_T1);
#else
    static_cast<void>(line);
#endif
}

// Source rows a mean requests ahead of the one it adds: the rows lie a token apart (every head's channels
// between them), too far for the hardware's stream detection.
constexpr int32_t kMeanRowsAhead = 16;

// Asks for the lines of elements [at, at + count) of the stream's source into L2.
void RequestSpan(const CacheWriteStream& stream, int64_t at, int64_t count) {
    const int64_t size = static_cast<int64_t>(DataTypeSize(stream.dtype));
    const auto* first = static_cast<const char*>(stream.src) + at * size;
    for (int64_t b = 0; b < count * size; b += 64)
        PrefetchToL2(first + b);
}

// sums[c] += channel begin + c of each of the row's source rows, in row order, for c < count.
template <aclDataType kDtype>
void AddRows(const CacheWriteStream& stream, const RowWrite& row, int64_t begin, int64_t count, float* sums) {
    if constexpr (kDtype == ACL_FLOAT16) {
        if (core::HostCpu().f16c) {
            return f16c::AddHalfRows(static_cast<const uint16_t*>(stream.src) + row.srcOffset + begin,
                                     row.srcRowStride, row.srcRows, count, kMeanRowsAhead, sums);
        }
    }
    for (int32_t r = 0; r < row.srcRows; ++r) {
        const int64_t from = row.srcOffset + r * row.srcRowStride + begin;
        if (r + kMeanRowsAhead < row.srcRows)
            RequestSpan(stream, from + kMeanRowsAhead * row.srcRowStride, count);
        for (int64_t c = 0; c < count; ++c)
            sums[c] += LoadFloat<kDtype>(stream.src, stream.dtype, from + c);
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
        AddRows<kDtype>(stream, row, begin, count, sums);
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

// Copies `bytes` bytes; kStreaming: with non-temporal stores (stream_copy.h).
template <bool kStreaming>
void CopyBytes(const StreamCut& cut, char* to, const char* from, size_t bytes) {
    if constexpr (kStreaming) {
        cut.streamCopy(to, from, bytes);
    } else {
        std::memcpy(to, from, bytes);
    }
}

// Copies one whole NZ tile, or one short row, of kBytes (a multiple of 16) bytes; inline, without the
// general copy's edges.
template <int kBytes, bool kStreaming>
void CopyTile(char* to, const char* from) {
#if defined(__SSE2__)
    if constexpr (kStreaming) {
        if (reinterpret_cast<uintptr_t>(to) % 16 == 0) {
            for (int i = 0; i < kBytes; i += 16) {
                _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
            }
            return;
        }
    }
#endif
    std::memcpy(to, from, kBytes);
}

// Makes a task's non-temporal stores visible before the task counts as done.
void FinishStreaming() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

// Rows of at most kShortRowBytes (one head of a compressed cache's token) are too short for the copy's own
// requests ahead. Where a task's source rows fill the span they lie in (groups of tokens, every head: the
// plan's order for compressed caches), the span is requested in address order ahead of the copy
// (DenseRequests); elsewhere the source of the row kRowsAhead rows on is requested as each row is copied.
constexpr size_t kShortRowBytes = 1024;
constexpr int64_t kRowsAhead = 16;

// The bytes [begin, end) that the copied rows' sources (channels [c0, c0 + bytes / elementSize)) lie in.
struct SourceSpan {
    const char* begin = nullptr;
    const char* end = nullptr;
    int64_t rowBytes = 0;  // bytes of the copied rows together
};

SourceSpan SourceSpanOf(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, size_t bytes) {
    const CacheWriteStream& s = *cut.stream;
    const auto* src = static_cast<const char*>(s.src);
    SourceSpan span;
    for (int64_t k = 0; k < count; ++k) {
        if (rows[k].srcRows > 1) continue;
        const char* first = src + (rows[k].srcOffset + c0) * cut.elementSize;
        const char* last = first + (rows[k].runRows - 1) * s.srcRunStride * cut.elementSize;
        span.begin = span.begin == nullptr ? std::min(first, last) : std::min({span.begin, first, last});
        span.end = std::max({span.end, first + bytes, last + bytes});
        span.rowBytes += rows[k].runRows * static_cast<int64_t>(bytes);
    }
    return span;
}

// The task's source span requested in address order, where the task's short rows fill their span (at most
// 1/8 of it read by no row of the task): groups of tokens whose heads are copied one after another
// (rac_plan.cpp). The first kLeadBytes are requested at the start, then the span's share of each copied row
// as it is copied, so the requests run evenly kLeadBytes ahead of the copy: a group's first head reads lines
// across the whole group, so the lead covers a group.
constexpr int64_t kLeadBytes = 16 * 1024;

class DenseRequests {
  public:
    DenseRequests() = default;
    DenseRequests(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, size_t bytes) {
        const SourceSpan span = SourceSpanOf(cut, rows, count, c0, bytes);
        if (span.begin == nullptr || (span.end - span.begin) * 7 > span.rowBytes * 8) return;
        begin_ = span.begin;
        next_ = span.begin - reinterpret_cast<uintptr_t>(span.begin) % 64;
        spanBytes_ = span.end - span.begin;
        lead_ = kLeadBytes;
        perRow_ = spanBytes_ * static_cast<int64_t>(bytes) / span.rowBytes;
        Request();
    }
    bool Dense() const { return begin_ != nullptr; }
    // One more row copied: the span's lines up to its share further.
    void Advance() {
        lead_ += perRow_;
        Request();
    }

  private:
    void Request() {
        const char* upTo = begin_ + std::min(spanBytes_, lead_);
        for (; next_ < upTo; next_ += 64)
            PrefetchToL2(next_);
    }

    const char* begin_ = nullptr;
    const char* next_ = nullptr;  // the next line to ask for
    int64_t spanBytes_ = 0;
    int64_t lead_ = 0;    // bytes of the span asked for, counted from its start
    int64_t perRow_ = 0;  // span bytes per copied row
};

// A position in a task's rows: row r of run k.
struct RowCursor {
    int64_t k = 0;
    int32_t r = 0;

    void Next(const RowWrite* rows, int64_t count) {
        if (k < count && ++r >= rows[k].runRows) {
            ++k;
            r = 0;
        }
    }
};

// ND: channels [c0, c1) of each copied row are one contiguous run at both ends.
template <bool kStreaming>
void CopyNdRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    const auto* src = static_cast<const char*>(s.src) + c0 * cut.elementSize;
    auto* dst = static_cast<char*>(s.dst) + c0 * cut.elementSize;
    const auto bytes = static_cast<size_t>((c1 - c0) * cut.elementSize);
    const auto sourceRow = [&](const RowWrite& run, int32_t r) {
        return src + (run.srcOffset + r * s.srcRunStride) * cut.elementSize;
    };
    const bool shortRows = bytes <= kShortRowBytes;
    DenseRequests dense = shortRows ? DenseRequests(cut, rows, count, c0, bytes) : DenseRequests();
    const bool requestAhead = shortRows && !dense.Dense();
    RowCursor ahead;
    for (int64_t i = 0; requestAhead && i < kRowsAhead; ++i)
        ahead.Next(rows, count);
    for (int64_t k = 0; k < count; ++k) {
        const RowWrite& run = rows[k];
        for (int32_t r = 0; r < run.runRows; ++r) {
            if (requestAhead && ahead.k < count) {
                const char* next = sourceRow(rows[ahead.k], ahead.r);
                for (size_t b = 0; b < bytes; b += 64)
                    PrefetchToL2(next + b);
                ahead.Next(rows, count);
            }
            if (run.srcRows > 1) continue;
            const char* from = sourceRow(run, r);
            if (dense.Dense()) dense.Advance();
            char* to = dst + (run.dstOffset + r * s.dstRunStride) * cut.elementSize;
            // One head of a compressed cache's token (head size 128 in int8 or 16-bit dtypes): inline,
            // without a stream-copy call per row, which cost more than the row's loads (BENCHMARKS.md).
            if (bytes == 128) {
                CopyTile<128, kStreaming>(to, from);
            } else if (bytes == 256) {
                CopyTile<256, kStreaming>(to, from);
            } else {
                CopyBytes<kStreaming>(cut, to, from, bytes);
            }
        }
    }
}

// Source bytes of each row that a FRACTAL_NZ task requests ahead of its tile passes.
constexpr int64_t kNzLeadBytes = 256;

// FRACTAL_NZ (whose rows are never joined into runs): a row's channels [j * tile, (j + 1) * tile) are
// contiguous in the cache. Tiles outside, rows inside: consecutive slots of a block lie next to each other
// within a tile, so each tile's writes run along the cache (rows outside, tiles inside would scatter every
// row over a line per tile, measured ten times slower). The task's source rows are requested kNzLeadBytes
// ahead of the tile pass that reads them across, so reading the source overlaps the (non-temporal) stores:
// requested whole before the passes, the stores waited behind the requests (0.66-0.70x the time on the Zen 4
// host of BENCHMARKS.md). kTileBytes > 0: whole tiles of that many bytes; 0: any run.
template <int kTileBytes, bool kStreaming>
void CopyNzRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    const auto* src = static_cast<const char*>(s.src);
    auto* dst = static_cast<char*>(s.dst);
    const int64_t es = cut.elementSize;
    const int64_t rowBytes = (c1 - c0) * es;
    const auto sourceRow = [&](const RowWrite& row) { return src + (row.srcOffset + c0) * es; };
    for (int64_t k = 0; k < count; ++k) {
        for (int64_t b = 0; b < std::min(rowBytes, kNzLeadBytes); b += 64)
            PrefetchToL2(sourceRow(rows[k]) + b);
    }
    for (int64_t first = c0; first < c1; first += s.dstChannelTile) {
        const int64_t tileOffset = (first / s.dstChannelTile) * s.dstChannelTileStride;
        const auto bytes = static_cast<size_t>(std::min<int64_t>(s.dstChannelTile, c1 - first) * es);
        // This pass requests the lines that start in [at, at + bytes) + kNzLeadBytes of each row.
        const int64_t at = (first - c0) * es;
        const int64_t requestEnd =
            std::min<int64_t>(rowBytes, at + static_cast<int64_t>(bytes) + kNzLeadBytes);
        const int64_t requestBegin = (at + kNzLeadBytes + 63) / 64 * 64;
        for (int64_t k = 0; k < count; ++k) {
            if (rows[k].srcRows > 1) continue;
            const char* row = sourceRow(rows[k]);
            for (int64_t b = requestBegin; b < requestEnd; b += 64)
                PrefetchToL2(row + b);
            char* to = dst + (rows[k].dstOffset + tileOffset) * es;
            const char* from = row + at;
            if constexpr (kTileBytes > 0) {
                CopyTile<kTileBytes, kStreaming>(to, from);
            } else {
                CopyBytes<kStreaming>(cut, to, from, bytes);
            }
        }
    }
}

template <bool kStreaming>
void CopyRows(const StreamCut& cut, const RowWrite* rows, int64_t count, int64_t c0, int64_t c1) {
    const CacheWriteStream& s = *cut.stream;
    if (s.dstChannelTile == 0) return CopyNdRows<kStreaming>(cut, rows, count, c0, c1);
    const int64_t tileBytes = s.dstChannelTile * cut.elementSize;
    const bool wholeTiles = c0 % s.dstChannelTile == 0 && (c1 - c0) % s.dstChannelTile == 0;
    if (wholeTiles && tileBytes == 32) return CopyNzRows<32, kStreaming>(cut, rows, count, c0, c1);
    if (wholeTiles && tileBytes == 64) return CopyNzRows<64, kStreaming>(cut, rows, count, c0, c1);
    CopyNzRows<0, kStreaming>(cut, rows, count, c0, c1);
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
    if (cut.streaming) {
        CopyRows<true>(cut, rows, count, c0, c1);
        FinishStreaming();
    } else {
        CopyRows<false>(cut, rows, count, c0, c1);
    }
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
    int64_t written = 0;
    for (const CacheWriteStream& stream : plan.streams)
        written += stream.RowCount() * stream.channels * static_cast<int64_t>(DataTypeSize(stream.dtype));
    const bool streaming = written >= kStreamingBytes;
    Phase phase;
    for (const CacheWriteStream& stream : plan.streams) {
        if (phase.streams == Phase::kMaxStreams || phase.Writes(stream.dst)) {
            phase.Run(threads);
            phase = Phase{};
        }
        const StreamCut cut = CutOf(stream, streaming);
        if (cut.tasks == 0) continue;
        phase.cuts[phase.streams++] = cut;
        phase.tasks += cut.tasks;
    }
    if (phase.tasks > 0) phase.Run(threads);
}

}  // namespace atbx::kernels::cpu
