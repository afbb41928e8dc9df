#include "ops/self_attention/sa_geometry.h"

#include <algorithm>
#include <limits>

namespace atbx::ops::sa {
namespace {

constexpr int64_t kNzTile = 16;

bool NzCache(const SaSubject& s, Input cache) {
    return s.Desc(cache).format == ACL_FORMAT_FRACTAL_NZ;
}

Size Divide(int64_t hidden, int64_t heads) {
    if (heads <= 0 || hidden % heads != 0) return std::nullopt;
    return hidden / heads;
}

}  // namespace

bool NzPlatform(Platform platform) {
    return platform == Platform::kAtlasInference || platform == Platform::kAtlasTraining;
}

bool IsAlibiCompress(Param::MaskType maskType) {
    return maskType == Param::MASK_TYPE_ALIBI_COMPRESS || maskType == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT ||
           maskType == Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN;
}

bool IsSwaMask(Param::MaskType maskType) {
    return maskType == Param::MASK_TYPE_SLIDING_WINDOW_NORM ||
           maskType == Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
}

bool SwaEnabled(const Param& param) {
    return param.windowSize > 0 && IsSwaMask(param.maskType);
}

int64_t RoundUp16(int64_t value) {
    return (value + kNzTile - 1) / kNzTile * kNzTile;
}

int64_t SatMul(int64_t a, int64_t b) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (a <= 0 || b <= 0) return 0;
    return a > kMax / b ? kMax : a * b;
}

int64_t CeilDiv(int64_t a, int64_t b) {
    return a == 0 ? 0 : (a - 1) / b + 1;
}

int HeadDimIndex(const SaSubject& s, Input input) {
    const uint64_t rank = s.Rank(input);
    switch (input) {
        case Input::kCacheK:
        case Input::kCacheV:
            // Only the ND BNSD cache [L, B, Hk, S, D] keeps its heads apart.
            return s.Bnsd() && !NzCache(s, input) ? 2 : -1;
        case Input::kKey:
        case Input::kValue:
            if (s.mode == Mode::kPrefixEncoder)
                return rank == 4 ? 2 : -1;  // [NB, BS, Hk, D] / [NB, BS, Hk*D]
            break;
        default:
            break;
    }
    if (rank == 2) return -1;             // [N, H*D]
    if (s.Bnsd() || rank == 3) return 1;  // [B, H, S, D] or [N, H, D]
    return 2;                             // [b, s, H, D]
}

int64_t CacheHidden(const SaSubject& s, Input cache) {
    const Dims& shape = s.Desc(cache).shape;
    if (NzCache(s, cache)) return SatMul(shape.dims[2], shape.dims[4]);
    return shape.dims[shape.dimNum - 1];
}

Size HeadSizeOf(const SaSubject& s, Input input) {
    const Dims& shape = s.Desc(input).shape;
    const bool cache = input == Input::kCacheK || input == Input::kCacheV;
    if (cache && NzCache(s, input)) {
        // NZ BNSD caches fold the heads into dims[1]: dims[2] * 16 is one head's size.
        const int64_t hidden = CacheHidden(s, input);
        return s.Bnsd() ? Size(hidden) : Divide(hidden, s.KvHeadNum());
    }
    if (HeadDimIndex(s, input) >= 0) return shape.dims[shape.dimNum - 1];
    const int64_t heads = input == Input::kQuery ? s.HeadNum() : s.KvHeadNum();
    return Divide(shape.dims[shape.dimNum - 1], heads);
}

HeadSizes HeadSizesOf(const SaSubject& s) {
    HeadSizes sizes;
    sizes.q = HeadSizeOf(s, Input::kQuery);
    const bool bypass = s.mode == Mode::kFaBypass;
    sizes.k = HeadSizeOf(s, bypass ? Input::kCacheK : Input::kKey);
    if (s.Mla()) {
        sizes.v = s.param->mlaVHeadSize;
    } else {
        sizes.v = HeadSizeOf(s, bypass ? Input::kCacheV : Input::kValue);
    }
    return sizes;
}

int64_t TokenRows(const SaSubject& s, Input input) {
    const Dims& shape = s.Desc(input).shape;
    const bool flash = s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
    return flash && !s.Bnsd() && shape.dimNum == 4 ? SatMul(shape.dims[0], shape.dims[1]) : shape.dims[0];
}

CacheShape CacheShapeOf(const SaSubject& s, Input cache) {
    const Dims& shape = s.Desc(cache).shape;
    CacheShape out;
    if (shape.dimNum == 3) {  // dynamic batch [B, S, hidden]
        out.hasLayers = false;
        out.batch = shape.dims[0];
        out.maxSeq = shape.dims[1];
        return out;
    }
    out.layers = shape.dims[0];
    if (shape.dimNum == 4) {  // [L, B, S, hidden]
        out.batch = shape.dims[1];
        out.maxSeq = shape.dims[2];
        return out;
    }
    // 5-D: [L, B, H*D/16, S, 16], [L, B, Hk, S, D] or [L, B*Hk, D/16, S, 16].
    out.maxSeq = shape.dims[3];
    out.batch = s.Bnsd() && NzCache(s, cache) ? Divide(shape.dims[1], s.KvHeadNum()) : Size(shape.dims[1]);
    return out;
}

int64_t BatchOf(const SaSubject& s) {
    const Dims& shape = s.Desc(Input::kSeqLen).shape;
    return shape.dims[shape.dimNum - 1];
}

MaskShape MaskShapeOf(const SaSubject& s) {
    const TensorDesc& desc = s.Desc(Input::kMask);
    const Dims& shape = desc.shape;
    MaskShape out;
    if (desc.format == ACL_FORMAT_FRACTAL_NZ && shape.dimNum == 4) {
        out.nz = true;
        out.leadingDims = 1;
        out.lead[0] = shape.dims[0];
        out.cols = SatMul(shape.dims[1], shape.dims[3]);
        out.rows = shape.dims[2];
        return out;
    }
    out.leadingDims = shape.dimNum - 2;
    for (uint64_t d = 0; d < out.leadingDims && d < 2; ++d)
        out.lead[d] = shape.dims[d];
    out.rows = shape.dims[shape.dimNum - 2];
    out.cols = shape.dims[shape.dimNum - 1];
    return out;
}

const std::vector<int32_t>& QueryLens(const SaSubject& s) {
    return s.seqLen;
}

const std::vector<int32_t>& KeyLens(const SaSubject& s) {
    const bool flash = s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
    return flash ? s.tokenOffset : s.kvSeqLen;
}

int64_t MaxOf(const std::vector<int32_t>& values) {
    return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

bool BatchSkipped(const SaSubject& s, size_t b) {
    return s.param->batchRunStatusEnable && b < s.batchRunStatus.size() && s.batchRunStatus[b] == 0;
}

int64_t AsGiven(const SaSubject& s, int32_t value) {
    return s.unsignedLengths ? int64_t{static_cast<uint32_t>(value)} : int64_t{value};
}

}  // namespace atbx::ops::sa
