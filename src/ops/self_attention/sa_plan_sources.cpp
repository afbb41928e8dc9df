// SelfAttention planner: where keys and values come from in each mode, and the FA-cache writes that precede
// attention (docs/spec/self_attention.md 2.1-2.5, 3.2).
#include "ops/self_attention/sa_plan_internal.h"

namespace atbx::ops::sa::planning {
namespace {

using plan::KvSource;

constexpr int kNzChannels = 16;

KvSource Base(const SaSubject& s, Input input, int64_t readHeadDim) {
    KvSource source;
    source.data = s.Data(input);
    source.dtype = s.Desc(input).dtype;
    source.headDim = static_cast<int>(readHeadDim);
    return source;
}

// FA-cache / bypass cache of `headSize` channels per head; kvSequence = layer * B + b (or b without layers).
//   ND [L, B, S, Hk * d] or [B, S, Hk * d];  BNSD [L, B, Hk, S, d];
//   FRACTAL_NZ [L, B, Hk * d / 16, S, 16] (BNSD: [L, B * Hk, d / 16, S, 16], the same memory order).
KvSource FlashCache(const SaSubject& s, const Geometry& g, Input cache, int64_t headSize) {
    const TensorDesc& desc = s.Desc(cache);
    const int64_t* d = desc.shape.dims;
    const int rank = static_cast<int>(desc.shape.dimNum);
    KvSource source = Base(s, cache, headSize);
    if (desc.format == ACL_FORMAT_FRACTAL_NZ) {
        const int64_t maxSeq = d[rank - 2];
        source.sequenceStride = g.kvHeads * headSize * maxSeq;
        source.slotStride = kNzChannels;
        source.headStride = headSize * maxSeq;
        source.channelTile = kNzChannels;
        source.channelTileStride = maxSeq * kNzChannels;
    } else if (g.bnsd) {
        const int64_t maxSeq = d[3];
        source.sequenceStride = g.kvHeads * maxSeq * headSize;
        source.slotStride = headSize;
        source.headStride = maxSeq * headSize;
    } else {
        source.sequenceStride = d[rank - 2] * d[rank - 1];
        source.slotStride = d[rank - 1];
        source.headStride = headSize;
    }
    return source;
}

// PA_ENCODER tensor with `headSize` channels per head, read `readHeadDim` at a time: packed token rows
// [N, Hk * d] / [N, Hk, d] (kvSequence = first token row) or BNSD [B, Hk, S, d] (kvSequence = b). (The seed
// keeps A2 PA_ENCODER tensors 2-D or 3-D, so the 4-D MLA key of ATB's code is rejected by the rules.)
KvSource Packed(const SaSubject& s, const Geometry& g, Input input, int64_t headSize, int64_t readHeadDim) {
    const TensorDesc& desc = s.Desc(input);
    const int64_t* d = desc.shape.dims;
    KvSource source = Base(s, input, readHeadDim);
    const int64_t rowWidth = g.kvHeads * headSize;
    if (g.bnsd) {
        source.sequenceStride = g.kvHeads * d[2] * headSize;
        source.slotStride = headSize;
        source.headStride = d[2] * headSize;
    } else {
        source.sequenceStride = rowWidth;
        source.slotStride = rowWidth;
        source.headStride = headSize;
    }
    return source;
}

// PREFIX_ENCODER paged cache [NB, BS, Hk * d] or [NB, BS, Hk, d]; kvSequence = block-table row b.
KvSource Paged(const SaSubject& s, const Geometry& g, Input cache, int64_t headSize) {
    const TensorDesc& desc = s.Desc(cache);
    KvSource source = Base(s, cache, headSize);
    source.blockTable = static_cast<const int32_t*>(s.Data(Input::kBlockTables));
    source.tableStride = s.Dim(Input::kBlockTables, 1);
    source.blockSize = static_cast<int>(desc.shape.dims[1]);
    source.slotStride = g.kvHeads * headSize;
    source.headStride = headSize;
    source.blockStride = desc.shape.dims[1] * source.slotStride;
    return source;
}

KvSource SourceOf(const SaSubject& s, const Geometry& g, Input flashCache, Input packed, int64_t headSize,
                  int64_t readHeadDim) {
    switch (s.mode) {
        case Mode::kFaCache:
        case Mode::kFaBypass:
            return FlashCache(s, g, flashCache, headSize);
        case Mode::kPaEncoder:
            return Packed(s, g, packed, headSize, readHeadDim);
        case Mode::kPrefixEncoder:
            return Paged(s, g, packed, headSize);
    }
    return {};
}

// One cache's writes: new row qRow + t of `input` ([N, Hk * d] token rows, or 4-D viewed so) goes to position
// tokenOffset[b] - seqLen[b] + t of the batch's cache sequence.
plan::CacheWriteStream Writes(const SaSubject& s, const Geometry& g, Input input, Input cache,
                              int64_t headSize, const std::vector<BatchSpan>& spans) {
    const KvSource target = FlashCache(s, g, cache, headSize);
    plan::CacheWriteStream stream;
    stream.src = s.Data(input);
    stream.dst = s.pack->inTensors[s.IndexOf(cache)].deviceData;
    stream.dtype = s.Desc(cache).dtype;
    stream.channels = g.kvHeads * headSize;
    stream.dstChannelTile = target.channelTile;
    stream.dstChannelTileStride = target.channelTileStride;
    stream.srcRunStride = stream.channels;  // the next token
    stream.dstRunStride = target.channelTile == 0 ? stream.channels : 0;
    size_t rows = 0;
    for (const BatchSpan& span : spans)
        rows += span.writesCache ? static_cast<size_t>(span.qLen) : 0;
    stream.rows.reserve(rows);
    for (const BatchSpan& span : spans) {
        if (!span.writesCache) continue;
        const int64_t firstPosition = s.tokenOffset[span.batch] - span.qLen;
        for (int32_t t = 0; t < span.qLen; ++t) {
            plan::RowWrite row;
            row.srcOffset = (span.row + t) * stream.channels;
            row.dstOffset = target.RowOffset(span.kvSequence, firstPosition + t, 0);
            stream.Add(row);
        }
    }
    return stream;
}

}  // namespace

KvSource KeySource(const SaSubject& s, const Geometry& g) {
    return SourceOf(s, g, Input::kCacheK, Input::kKey, g.headDim, g.headDim);
}

// MLA (mlaVHeadSize > 0): V is the first Dv channels of each key head.
KvSource ValueSource(const SaSubject& s, const Geometry& g) {
    if (s.Mla()) return SourceOf(s, g, Input::kCacheK, Input::kKey, g.headDim, g.headDimV);
    return SourceOf(s, g, Input::kCacheV, Input::kValue, g.headDimV, g.headDimV);
}

plan::CacheWritePlan CacheWrites(const SaSubject& s, const Geometry& g, const std::vector<BatchSpan>& spans) {
    plan::CacheWritePlan writes;
    if (s.mode != Mode::kFaCache) return writes;
    writes.streams.push_back(Writes(s, g, Input::kKey, Input::kCacheK, g.headDim, spans));
    writes.streams.push_back(Writes(s, g, Input::kValue, Input::kCacheV, g.headDimV, spans));
    return writes;
}

}  // namespace atbx::ops::sa::planning
