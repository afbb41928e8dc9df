#include "bench/prefill_row.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "atbx/infer_op_params.h"
#include "bench/decode_row.h"
#include "core/str_cat.h"
#include "plan/element.h"

namespace atbx::cli::bench {
namespace {

using Param = infer::SelfAttentionParam;

constexpr int32_t kPrefixBlockSize =
    128;                              // PREFIX_ENCODER's kernel block size (docs/spec/self_attention.md 2.5)
constexpr int64_t kTriuTile = 128;    // isTriuMask's causal tile
constexpr int64_t kWindowTile = 512;  // SLIDING_WINDOW_COMPRESS's mask
// int8 QKV: Q, K and V uniform in [-100, 100], so that a dot of head size 128 spreads over some +-40000 and
// the logits (times qkScale 1/sqrt(128) and this descale) over some +-3.5, as real ones; values times
// kValueDescale.
constexpr double kInt8Range = 100.0;
constexpr float kQkDescale = 1e-3f;
constexpr float kValueDescale = 0.01f;

int64_t NewTokens(const PrefillShape& s) {
    return std::accumulate(s.seqLens.begin(), s.seqLens.end(), int64_t{0});
}

int64_t BlocksPerSequence(const PrefillShape& s) {
    const int32_t longest = *std::max_element(s.seqLens.begin(), s.seqLens.end());
    return (s.prefix + longest + kPrefixBlockSize - 1) / kPrefixBlockSize;
}

Param MakeParam(const PrefillShape& s) {
    Param p;
    p.headNum = s.heads;
    p.kvHeadNum = s.kvHeads;
    p.qkScale = static_cast<float>(1.0 / std::sqrt(s.headSize));
    if (s.mla) p.mlaVHeadSize = static_cast<uint32_t>(s.headSizeV);
    switch (s.kind) {
        case PrefillKind::kCausal:
            p.calcType = Param::PA_ENCODER;
            p.maskType = Param::MASK_TYPE_NORM;
            p.isTriuMask = 1;
            break;
        case PrefillKind::kPrefix:
            p.calcType = Param::PREFIX_ENCODER;
            p.maskType = Param::MASK_TYPE_CAUSAL_MASK;
            p.isTriuMask = 1;
            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
            break;
        case PrefillKind::kSlidingWindow:
            p.calcType = Param::PA_ENCODER;
            p.maskType = Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
            p.windowSize = static_cast<uint32_t>(s.window);
            break;
        case PrefillKind::kDense:
            p.calcType = Param::PA_ENCODER;
            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
            break;
        case PrefillKind::kFullMask:
            p.calcType = Param::PA_ENCODER;
            p.maskType = Param::MASK_TYPE_NORM;
            break;
        case PrefillKind::kAlibi:
            p.calcType = Param::PA_ENCODER;
            p.maskType = Param::MASK_TYPE_ALIBI;
            break;
        case PrefillKind::kInt8Qkv:
            p.calcType = Param::PA_ENCODER;
            p.maskType = Param::MASK_TYPE_NORM;
            p.isTriuMask = 1;
            p.quantType = Param::TYPE_QUANT_QKV_ONLINE;
            p.outDataType = ACL_FLOAT16;
            break;
    }
    return p;
}

// The output's dtype, and the mask's: int8 QKV writes fp16 (outDataType).
aclDataType OutputType(const PrefillShape& s) {
    return s.kind == PrefillKind::kInt8Qkv ? ACL_FLOAT16 : s.dtype;
}

// Per head: a descale and a zero offset (int8 QKV's qkDescale, qkOffset, vpvDescale, vpvOffset).
void AddInt8QkvScales(const PrefillShape& s, BenchCall& call) {
    for (const float descale : {kQkDescale, kValueDescale}) {
        auto* scales = reinterpret_cast<float*>(call.AddInput(Desc(ACL_FLOAT, {s.heads})));
        std::fill(scales, scales + s.heads, descale);
        auto* offsets = reinterpret_cast<int32_t*>(call.AddInput(Desc(ACL_INT32, {s.heads})));
        std::fill(offsets, offsets + s.heads, 0);
    }
}

// Masked entries hold -10000 in fp16 masks and the flag 1 in bf16 masks (docs/spec/self_attention.md 3.4).
uint16_t MaskedBits(aclDataType dtype) {
    uint16_t bits = 0;
    plan::StoreElement(&bits, dtype, 0, dtype == ACL_BF16 ? 1.0 : -10000.0);
    return bits;
}

// The causal tile: key c is hidden from row r when c > r.
void FillTriuMask(aclDataType dtype, uint8_t* data) {
    auto* elements = reinterpret_cast<uint16_t*>(data);
    for (int64_t r = 0; r < kTriuTile; ++r) {
        for (int64_t c = r + 1; c < kTriuTile; ++c)
            elements[r * kTriuTile + c] = MaskedBits(dtype);
    }
}

// The full causal mask [1, S, S] of a sequence of S tokens: key c is hidden from row r when c > r.
void FillFullMask(aclDataType dtype, int64_t tokens, uint8_t* data) {
    auto* elements = reinterpret_cast<uint16_t*>(data);
    for (int64_t r = 0; r < tokens; ++r) {
        for (int64_t c = r + 1; c < tokens; ++c)
            elements[r * tokens + c] = MaskedBits(dtype);
    }
}

// An ALiBi mask [H, S, S] as models pass it (docs/spec/self_attention.md 3.4): slope_h (c - r) on and below
// the diagonal, with the standard slopes 2^(-8 (h + 1) / H) for H a power of 2; above it the bias plus -10000
// in fp16, -inf in bf16.
void FillAlibiMask(aclDataType dtype, int64_t heads, int64_t tokens, uint8_t* data) {
    const double above = dtype == ACL_BF16 ? -std::numeric_limits<double>::infinity() : -10000.0;
    for (int64_t h = 0; h < heads; ++h) {
        const double slope = std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(heads));
        for (int64_t r = 0; r < tokens; ++r) {
            for (int64_t c = 0; c < tokens; ++c) {
                const double bias = slope * static_cast<double>(c - r);
                plan::StoreElement(data, dtype, (h * tokens + r) * tokens + c, c > r ? above + bias : bias);
            }
        }
    }
}

// SLIDING_WINDOW_COMPRESS [512, 512] for window W (docs/spec/self_attention.md 3.6, tile pp = 128 for head
// sizes up to 128, else 64): hidden where c > r or c <= r - W'.
void FillWindowMask(const PrefillShape& s, uint8_t* data) {
    const int64_t pp = s.headSize <= 128 ? 128 : 64;
    const int64_t w = s.window;
    const int64_t folded = w <= 3 * pp ? w : (w % pp == 0 ? 3 * pp : 2 * pp + w % pp);
    auto* elements = reinterpret_cast<uint16_t*>(data);
    for (int64_t r = 0; r < kWindowTile; ++r) {
        for (int64_t c = 0; c < kWindowTile; ++c) {
            if (c > r || c <= r - folded) elements[r * kWindowTile + c] = MaskedBits(s.dtype);
        }
    }
}

void AddPackedInputs(const PrefillShape& s, BenchCall& call, std::mt19937_64& rng) {
    const int64_t n = NewTokens(s);
    const double range = s.dtype == ACL_INT8 ? kInt8Range : 1.0;
    call.AddRandomInput(Desc(s.dtype, {n, s.heads, s.headSize}), -range, range, rng());
    call.AddRandomInput(Desc(s.dtype, {n, s.kvHeads, s.headSize}), -range, range, rng());
    if (!s.mla) call.AddRandomInput(Desc(s.dtype, {n, s.kvHeads, s.headSizeV}), -range, range, rng());
    if (s.kind == PrefillKind::kSlidingWindow) {
        FillWindowMask(s, call.AddInput(Desc(s.dtype, {kWindowTile, kWindowTile})));
    } else if (s.kind == PrefillKind::kFullMask) {
        FillFullMask(s.dtype, n, call.AddInput(Desc(s.dtype, {1, n, n})));
    } else if (s.kind == PrefillKind::kAlibi) {
        FillAlibiMask(s.dtype, s.heads, n, call.AddInput(Desc(s.dtype, {s.heads, n, n})));
    } else if (s.kind != PrefillKind::kDense) {
        FillTriuMask(OutputType(s), call.AddInput(Desc(OutputType(s), {kTriuTile, kTriuTile})));
    }
    call.AddHostInt32(s.seqLens);
    if (s.kind == PrefillKind::kInt8Qkv) AddInt8QkvScales(s, call);
}

void AddPrefixInputs(const PrefillShape& s, BenchCall& call, std::mt19937_64& rng) {
    const auto batch = static_cast<int64_t>(s.seqLens.size());
    const int64_t blocks = batch * BlocksPerSequence(s);
    call.AddRandomInput(Desc(s.dtype, {NewTokens(s), s.heads, s.headSize}), -1.0, 1.0, rng());
    call.AddRandomInput(Desc(s.dtype, {blocks, kPrefixBlockSize, s.kvHeads, s.headSize}), -1.0, 1.0, rng());
    call.AddRandomInput(Desc(s.dtype, {blocks, kPrefixBlockSize, s.kvHeads, s.headSizeV}), -1.0, 1.0, rng());
    std::vector<int32_t> ids(blocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    auto* table = reinterpret_cast<int32_t*>(call.AddInput(Desc(ACL_INT32, {batch, BlocksPerSequence(s)})));
    std::copy(ids.begin(), ids.end(), table);
    call.AddHostInt32(s.seqLens);
    std::vector<int32_t> kvLens;
    for (int32_t len : s.seqLens)
        kvLens.push_back(s.prefix + len);
    call.AddHostInt32(kvLens);
}

BenchCall MakeCall(const PrefillShape& s, uint64_t seed, perf::Pages pages) {
    std::mt19937_64 rng(seed);
    BenchCall call{MakeParam(s), pages};
    if (s.kind == PrefillKind::kPrefix) {
        AddPrefixInputs(s, call, rng);
    } else {
        AddPackedInputs(s, call, rng);
    }
    call.AddOutput(Desc(OutputType(s), {NewTokens(s), s.heads, s.headSizeV}));
    return call;
}

// Keys the mask leaves visible, summed over every query token: new token i of a sequence sees prefix + i + 1
// keys, or min(i + 1, window) under a sliding window.
double VisiblePairs(const PrefillShape& s) {
    double pairs = 0.0;
    for (int32_t len : s.seqLens) {
        for (int64_t i = 0; i < len; ++i) {
            const int64_t causal = s.prefix + i + 1;
            pairs += static_cast<double>(s.kind == PrefillKind::kSlidingWindow
                                             ? std::min<int64_t>(causal, s.window)
                                         : s.kind == PrefillKind::kDense ? len
                                                                         : causal);
        }
    }
    return pairs;
}

std::string Lengths(const PrefillShape& s) {
    std::string text;
    for (int32_t len : s.seqLens)
        text += core::StrCat(text.empty() ? "" : "+", len);
    return text;
}

std::string ShapeName(const PrefillShape& s) {
    switch (s.kind) {
        case PrefillKind::kPrefix:
            return core::StrCat(s.family, " prefix", s.prefix, "+", Lengths(s));
        case PrefillKind::kSlidingWindow:
            return core::StrCat(s.family, " swa", s.window, " s", Lengths(s));
        case PrefillKind::kDense:
            return core::StrCat(s.family, " dense s", Lengths(s));
        case PrefillKind::kFullMask:
            return core::StrCat(s.family, " fullmask s", Lengths(s));
        case PrefillKind::kAlibi:
            return core::StrCat(s.family, " alibi s", Lengths(s));
        case PrefillKind::kInt8Qkv:
            return core::StrCat(s.family, " causal-qkv-int8 s", Lengths(s));
        case PrefillKind::kCausal:
            break;
    }
    return core::StrCat(s.family, " causal s", Lengths(s));
}

nlohmann::json PeerShape(const PrefillShape& s) {
    const char* kind = s.kind == PrefillKind::kPrefix          ? "prefix"
                       : s.kind == PrefillKind::kSlidingWindow ? "window"
                       : s.kind == PrefillKind::kDense         ? "dense"
                                                               : "causal";
    return {{"op", "prefill"},
            {"kind", kind},
            {"heads", s.heads},
            {"kv_heads", s.kvHeads},
            {"head_size", s.headSize},
            {"head_size_v", s.headSizeV},
            {"mla", s.mla},
            {"seq_lens", s.seqLens},
            {"prefix", s.prefix},
            {"window", s.window},
            {"dtype", DtypeName(s.dtype)}};
}

}  // namespace

RowSpec PrefillRow(const PrefillShape& s) {
    RowSpec row;
    row.op = "SelfAttention";
    row.family = s.family;
    row.shape = ShapeName(s);
    row.dtype = DtypeName(s.dtype);
    row.cold = s.cold;
    const int64_t element = DataTypeSize(s.dtype);
    const int64_t kvTokens = s.kind == PrefillKind::kPrefix ? static_cast<int64_t>(s.seqLens.size()) *
                                                                  BlocksPerSequence(s) * kPrefixBlockSize
                                                            : NewTokens(s);
    const int64_t kvChannels = int64_t{s.kvHeads} * (s.headSize + (s.mla ? 0 : s.headSizeV));
    const int64_t readKvTokens = NewTokens(s) + static_cast<int64_t>(s.seqLens.size()) * s.prefix;
    row.kvBytes = readKvTokens * kvChannels * element;
    const int64_t queryAndOutputBytes =
        NewTokens(s) * s.heads * (s.headSize * element + s.headSizeV * DataTypeSize(OutputType(s)));
    row.bytes = row.kvBytes + queryAndOutputBytes;
    row.flops = 2.0 * s.heads * (s.headSize + s.headSizeV) * VisiblePairs(s);
    row.layerBytes = kvTokens * kvChannels * element + queryAndOutputBytes;
    row.make = [s](uint64_t seed, perf::Pages pages) { return MakeCall(s, seed, pages); };
    row.peer = PeerShape(s);
    return row;
}

}  // namespace atbx::cli::bench
