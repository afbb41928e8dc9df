// SelfAttention planner: the call's geometry and its batches (docs/spec/self_attention.md
// 2, 3.2, 3.6, 3.9, 3.10).
#include <algorithm>

#include "ops/self_attention/sa_plan_internal.h"

namespace atbx::ops::sa::planning {
namespace {

constexpr int64_t kNzRows = 16;

int64_t RoundUp16(int64_t n) {
    return (n + kNzRows - 1) / kNzRows * kNzRows;
}

// Channels of one token of a token-row tensor whose first `tokenDims` dims count tokens: [N, W], [N, heads,
// d], or [b, s, heads, d] and [b, s, W] with the two leading dims viewed as b * s tokens.
int64_t TokenWidth(const TensorDesc& desc, uint64_t tokenDims) {
    int64_t width = 1;
    for (uint64_t k = tokenDims; k < desc.shape.dimNum; ++k)
        width *= desc.shape.dims[k];
    return width;
}

// Batches held by a FA cache: ND [L, B, S, Hk * D] or dynamic-batch [B, S, Hk * D]; BNSD [L, B, Hk, S, D];
// FRACTAL_NZ [L, B, Hk * D / 16, S, 16], or [L, B * Hk, D / 16, S, 16] for BNSD.
int64_t CacheBatches(const SaSubject& s, const TensorDesc& cache) {
    if (cache.shape.dimNum == 3) return cache.shape.dims[0];
    if (cache.format == ACL_FORMAT_FRACTAL_NZ && s.Bnsd()) return cache.shape.dims[1] / s.KvHeadNum();
    return cache.shape.dims[1];
}

int64_t LayerId(const SaSubject& s) {
    return *static_cast<const int32_t*>(s.Data(Input::kLayerId));
}

// DECODER with SLIDING_WINDOW_NORM has no mask: the window restricts the keys instead (DECISIONS 16).
void RestrictToWindow(const SaSubject& s, BatchSpan& span) {
    const Param& p = *s.param;
    if (p.calcType != Param::DECODER || p.maskType != Param::MASK_TYPE_SLIDING_WINDOW_NORM) return;
    const auto window = static_cast<int32_t>(std::min<uint32_t>(p.windowSize, INT32_MAX));
    if (p.cacheType == Param::CACHE_TYPE_SWA) {
        span.kvEnd = std::min(span.kvEnd, window);  // a ring cache holding the last `window` tokens
    } else {
        span.kvBegin = std::max(0, span.kvEnd - window);
    }
}

// FA-cache and bypass: q_b = seqLen[b] rows (padded to 16 per batch on NZ products) attend keys
// [0, tokenOffset[b]) of cache[layerId][b], top-left aligned.
std::vector<BatchSpan> FlashSpans(const SaSubject& s, const Geometry& g) {
    const TensorDesc& cache = s.Desc(Input::kCacheK);
    const bool layered = cache.shape.dimNum >= 4;
    const int64_t layerBase = layered ? LayerId(s) * CacheBatches(s, cache) : 0;
    const bool pad = NzProduct(s);
    std::vector<BatchSpan> spans;
    int64_t row = 0;
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        BatchSpan span;
        span.batch = static_cast<int32_t>(b);
        span.row = row;
        span.qLen = s.seqLen[b];
        span.rows = g.bnsd ? static_cast<int32_t>(g.bnsdRows)
                           : static_cast<int32_t>(pad ? RoundUp16(span.qLen) : span.qLen);
        span.kvEnd = s.tokenOffset[b];
        span.kvSequence = layerBase + static_cast<int64_t>(b);
        RestrictToWindow(s, span);
        const bool stopped = s.param->batchRunStatusEnable && s.batchRunStatus[b] == 0;
        span.writesCache = s.mode == Mode::kFaCache && !stopped && span.qLen > 0;
        span.runs = !stopped && span.qLen > 0 && span.kvEnd > span.kvBegin;
        row += span.rows;
        spans.push_back(span);
    }
    return spans;
}

// PA_ENCODER: packed q, k and v of the current tokens; batch b has q_b query rows and kv_b keys (seqLen [B]:
// q_b = kv_b; [2, B]: rows 0 and 1). BNSD tensors are padded per batch.
std::vector<BatchSpan> PaEncoderSpans(const SaSubject& s, const Geometry& g) {
    const bool keyPerBatch = g.bnsd;
    std::vector<BatchSpan> spans;
    int64_t row = 0;
    int64_t keyRow = 0;
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        BatchSpan span;
        span.batch = static_cast<int32_t>(b);
        span.row = row;
        span.qLen = s.seqLen[b];
        span.rows = g.bnsd ? static_cast<int32_t>(g.bnsdRows) : span.qLen;
        span.kvEnd = s.kvSeqLen[b];
        span.kvSequence = keyPerBatch ? static_cast<int64_t>(b) : keyRow;
        span.runs = span.qLen > 0 && span.kvEnd > 0;
        row += span.rows;
        keyRow += span.kvEnd;
        spans.push_back(span);
    }
    return spans;
}

// PREFIX_ENCODER: q_b new tokens attend kv_b keys of the paged cache (block-table row b), bottom-right
// aligned: query i sits at absolute position kv_b - q_b + i.
std::vector<BatchSpan> PrefixSpans(const SaSubject& s) {
    std::vector<BatchSpan> spans;
    int64_t row = 0;
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        BatchSpan span;
        span.batch = static_cast<int32_t>(b);
        span.row = row;
        span.qLen = s.seqLen[b];
        span.rows = span.qLen;
        span.kvEnd = s.kvSeqLen[b];
        span.kvSequence = static_cast<int64_t>(b);
        span.prefix = span.kvEnd - span.qLen;
        span.runs = span.qLen > 0 && span.kvEnd > 0;
        row += span.rows;
        spans.push_back(span);
    }
    return spans;
}

}  // namespace

bool NzProduct(const SaSubject& s) {
    return s.platform == Platform::kAtlasInference || s.platform == Platform::kAtlasTraining;
}

Geometry GeometryOf(const SaSubject& s) {
    Geometry g;
    g.heads = s.HeadNum();
    g.kvHeads = s.KvHeadNum();
    g.bnsd = s.Bnsd();
    const TensorDesc& query = s.Desc(Input::kQuery);
    const TensorDesc& output = s.outputs[0];
    if (g.bnsd) {
        g.headDim = query.shape.dims[3];
        g.headDimV = output.shape.dims[3];
        g.bnsdRows = query.shape.dims[2];
    } else {
        // A 4-D query [b, s, heads, d] holds b * s tokens, and so does its 3-D output [b, s, heads * dv].
        const uint64_t tokenDims = query.shape.dimNum == 4 ? 2 : 1;
        g.headDim = TokenWidth(query, tokenDims) / g.heads;
        g.headDimV = TokenWidth(output, tokenDims) / g.heads;
        g.outputRows = static_cast<int64_t>(ElementCount(output)) / (g.heads * g.headDimV);
    }
    return g;
}

std::vector<BatchSpan> BatchSpans(const SaSubject& s, const Geometry& g) {
    std::vector<BatchSpan> spans;
    switch (s.mode) {
        case Mode::kFaCache:
        case Mode::kFaBypass:
            spans = FlashSpans(s, g);
            break;
        case Mode::kPaEncoder:
            spans = PaEncoderSpans(s, g);
            break;
        case Mode::kPrefixEncoder:
            spans = PrefixSpans(s);
            break;
    }
    if (!g.bnsd) {
        // Rows after the last batch: Atlas inference pads the packed tokens of PA_ENCODER to 16.
        const int64_t used = spans.empty() ? 0 : spans.back().row + spans.back().rows;
        if (used < g.outputRows) {
            BatchSpan padding;
            padding.row = used;
            padding.rows = static_cast<int32_t>(g.outputRows - used);
            spans.push_back(padding);
        }
    }
    return spans;
}

int64_t FirstElement(const Geometry& g, const BatchSpan& span, int64_t width) {
    if (g.bnsd) return static_cast<int64_t>(span.batch) * g.heads * g.bnsdRows * width;
    return span.row * g.heads * width;
}

plan::RowAccess RowsOf(const Geometry& g, int64_t width) {
    plan::RowAccess rows;
    rows.rowStride = g.bnsd ? width : g.heads * width;
    rows.headStride = g.bnsd ? g.bnsdRows * width : width;
    return rows;
}

}  // namespace atbx::ops::sa::planning
