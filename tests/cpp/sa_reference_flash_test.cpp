// SelfAttention with the KV cache in the op (FA-cache) and with the caller's cache (bypass, BSND and BNSD):
// the reference backend against direct loops over docs/spec/self_attention.md 2.1-2.3 and 3, written here.
// FA-cache writes are compared exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "plan/element.h"
#include "sa_reference_support.h"

namespace atbx::test::sa_ref {
namespace {

// Cache layouts of the flash modes (docs/spec/self_attention.md 2.1-2.3).
enum class Cache {
    kLayered,  // ND [L, B, S, Hk * d]
    kDynamic,  // ND [B, S, Hk * d] (dynamic batch)
    kBnsd,     // ND [L, B, Hk, S, d]
    kNz,       // FRACTAL_NZ [L, B, Hk * d / 16, S, 16] (Atlas inference)
};

struct Flash {
    Param param;
    Platform platform = Platform::kAtlasA2;
    int64_t heads = 4, kvHeads = 2, headDim = 32, headDimV = 32;
    std::vector<int32_t> seqLen = {3, 1, 7};
    std::vector<int32_t> tokenOffset = {5, 1, 20};
    std::vector<int32_t> status;  // batchRunStatus, when enabled
    int64_t layers = 2, layer = 1, maxSeq = 24;
    aclDataType dtype = ACL_FLOAT16;
    Cache cache = Cache::kLayered;
    bool fourDims = false;  // q, key and value [b, s, heads, d] (every seqLen equal)

    int64_t Batch() const { return static_cast<int64_t>(seqLen.size()); }
    bool Bnsd() const { return param.inputLayout == infer::TYPE_BNSD; }
    // Rows a batch owns in q and the output: padded to 16 on Atlas inference
    // (docs/spec/self_attention.md 3.10).
    int64_t Rows(size_t b) const {
        return platform == Platform::kAtlasInference ? (seqLen[b] + 15) / 16 * 16 : seqLen[b];
    }
    int64_t RowOf(size_t b) const {
        int64_t row = 0;
        for (size_t k = 0; k < b; ++k)
            row += Rows(k);
        return row;
    }
    int64_t TotalRows() const { return RowOf(seqLen.size()); }
    int64_t MaxQ() const { return *std::max_element(seqLen.begin(), seqLen.end()); }

    // Element of channel c, kv head g, position p of batch b in a cache of d channels per head.
    int64_t CacheOffset(int64_t b, int64_t g, int64_t p, int64_t c, int64_t d) const {
        const int64_t lb = layer * Batch() + b;
        switch (cache) {
            case Cache::kLayered:
                return (lb * maxSeq + p) * kvHeads * d + g * d + c;
            case Cache::kDynamic:
                return (b * maxSeq + p) * kvHeads * d + g * d + c;
            case Cache::kBnsd:
                return ((lb * kvHeads + g) * maxSeq + p) * d + c;
            case Cache::kNz: {
                const int64_t channel = g * d + c;
                return ((lb * kvHeads * d / 16 + channel / 16) * maxSeq + p) * 16 + channel % 16;
            }
        }
        return 0;
    }
    TensorDesc CacheDesc(int64_t d) const {
        switch (cache) {
            case Cache::kLayered:
                return Desc(dtype, {layers, Batch(), maxSeq, kvHeads * d});
            case Cache::kDynamic:
                return Desc(dtype, {Batch(), maxSeq, kvHeads * d});
            case Cache::kBnsd:
                return Desc(dtype, {layers, Batch(), kvHeads, maxSeq, d});
            case Cache::kNz:
                if (param.inputLayout == infer::TYPE_BNSD) {
                    return Desc(dtype, {layers, Batch() * kvHeads, d / 16, maxSeq, 16},
                                ACL_FORMAT_FRACTAL_NZ);
                }
                return Desc(dtype, {layers, Batch(), kvHeads * d / 16, maxSeq, 16}, ACL_FORMAT_FRACTAL_NZ);
        }
        return {};
    }
    // Query (width d = D) or output (d = Dv) element of row i, head h of batch b.
    int64_t RowOffset(size_t b, int64_t i, int64_t h, int64_t d) const {
        if (Bnsd()) return ((static_cast<int64_t>(b) * heads + h) * MaxQ() + i) * d;
        return (RowOf(b) + i) * heads * d + h * d;
    }
    bool Bypass() const { return param.kvcacheCfg == Param::K_BYPASS_V_BYPASS; }
};

// What the direct loops add to the logits and which keys they see, per batch b, head h, row i, key j.
struct Math {
    std::function<double(int64_t b, int64_t h, int64_t i, int64_t j)> term = [](auto...) { return 0.0; };
    std::function<std::pair<int64_t, int64_t>(int64_t b, int64_t kv)> keys = [](int64_t, int64_t kv) {
        return std::make_pair(int64_t{0}, kv);
    };
    std::function<double(int64_t b, int64_t i)> logN = [](int64_t, int64_t) { return 1.0; };
};

std::map<std::string, io::HostTensor> FlashInputs(const Flash& f, std::mt19937_64& rng) {
    std::map<std::string, io::HostTensor> in;
    const int64_t rows = f.TotalRows();
    if (f.Bnsd()) {
        in["query"] = Uniform(Desc(f.dtype, {f.Batch(), f.heads, f.MaxQ(), f.headDim}), -2, 2, rng);
    } else if (f.fourDims) {
        const int64_t s = f.seqLen[0];
        in["query"] = Uniform(Desc(f.dtype, {f.Batch(), s, f.heads, f.headDim}), -2, 2, rng);
        in["key"] = Uniform(Desc(f.dtype, {f.Batch(), s, f.kvHeads, f.headDim}), -2, 2, rng);
        in["value"] = Uniform(Desc(f.dtype, {f.Batch(), s, f.kvHeads, f.headDimV}), -1, 1, rng);
    } else {
        in["query"] = Uniform(Desc(f.dtype, {rows, f.heads * f.headDim}), -2, 2, rng);
        in["key"] = Uniform(Desc(f.dtype, {rows, f.kvHeads * f.headDim}), -2, 2, rng);
        in["value"] = Uniform(Desc(f.dtype, {rows, f.kvHeads * f.headDimV}), -1, 1, rng);
    }
    if (f.Bypass()) {
        in.erase("key");
        in.erase("value");
    }
    in["cacheK"] = Uniform(f.CacheDesc(f.headDim), -2, 2, rng);
    in["cacheV"] = Uniform(f.CacheDesc(f.headDimV), -1, 1, rng);
    in["tokenOffset"] = Int32Tensor(f.tokenOffset);
    in["seqLen"] = Int32Tensor(f.seqLen);
    in["layerId"] = Int32Tensor({static_cast<int32_t>(f.layer)});
    if (f.param.batchRunStatusEnable) in["batchRunStatus"] = Int32Tensor(f.status);
    return in;
}

bool Stopped(const Flash& f, size_t b) {
    return f.param.batchRunStatusEnable && f.status[b] == 0;
}

// The caches after the op: position tokenOffset[b] - seqLen[b] + t of batch b holds new row t of the batch,
// for batches that run (docs/spec/self_attention.md 3.2).
void WriteNewTokens(const Flash& f, TestCall& call, io::HostTensor& cacheK, io::HostTensor& cacheV) {
    if (f.Bypass()) return;
    const io::HostTensor& key = call.In("key");
    const io::HostTensor& value = call.In("value");
    for (size_t b = 0; b < f.seqLen.size(); ++b) {
        if (Stopped(f, b)) continue;
        for (int64_t t = 0; t < f.seqLen[b]; ++t) {
            const int64_t p = f.tokenOffset[b] - f.seqLen[b] + t;
            const int64_t row = f.RowOf(b) + t;
            for (int64_t g = 0; g < f.kvHeads; ++g) {
                for (int64_t c = 0; c < f.headDim; ++c) {
                    plan::StoreElement(cacheK.bytes.data(), f.dtype, f.CacheOffset(b, g, p, c, f.headDim),
                                       At(key, (row * f.kvHeads + g) * f.headDim + c));
                }
                for (int64_t c = 0; c < f.headDimV; ++c) {
                    plan::StoreElement(cacheV.bytes.data(), f.dtype, f.CacheOffset(b, g, p, c, f.headDimV),
                                       At(value, (row * f.kvHeads + g) * f.headDimV + c));
                }
            }
        }
    }
}

// out[b, i, h] = softmax_j(clamp(qkScale * logN * (qScale q) . K[j]) + term) . V over the batch's keys; rows
// that do not attend (stopped batches, padding) are 0. Reads the caches as they are after the writes.
std::vector<double> DirectFlash(const Flash& f, TestCall& call, const io::HostTensor& cacheK,
                                const io::HostTensor& cacheV, const Math& m) {
    const Param& p = f.param;
    const io::HostTensor& q = call.In("query");
    std::vector<double> out(ElementCount(call.outputs[0].desc), 0.0);
    for (size_t b = 0; b < f.seqLen.size(); ++b) {
        if (Stopped(f, b)) continue;
        const auto [begin, end] = m.keys(static_cast<int64_t>(b), f.tokenOffset[b]);
        for (int64_t i = 0; i < f.seqLen[b]; ++i) {
            for (int64_t h = 0; h < f.heads; ++h) {
                const int64_t g = h / (f.heads / f.kvHeads);
                std::vector<double> logits;
                for (int64_t j = begin; j < end; ++j) {
                    const double dot = Dot(
                        f.headDim,
                        [&](int64_t c) {
                            const double x = At(q, f.RowOffset(b, i, h, f.headDim) + c);
                            return p.qScale != 1.0f ? plan::RoundToDtype(x * p.qScale, f.dtype) : x;
                        },
                        [&](int64_t c) { return At(cacheK, f.CacheOffset(b, g, j, c, f.headDim)); });
                    double logit = dot * p.qkScale * m.logN(static_cast<int64_t>(b), i);
                    if (p.clampType == Param::CLAMP_TYPE_MIN_MAX)
                        logit = std::min(std::max(logit, double{p.clampMin}), double{p.clampMax});
                    logits.push_back(logit + m.term(static_cast<int64_t>(b), h, i, j));
                }
                // Named in the capture: clang 14 (the ASan build) captures no structured binding implicitly.
                const std::vector<double> o =
                    Attend(logits, f.headDimV, [&, begin = begin](int64_t j, int64_t c) {
                        return At(cacheV, f.CacheOffset(b, g, begin + j, c, f.headDimV));
                    });
                for (int64_t c = 0; c < f.headDimV; ++c)
                    out[f.RowOffset(b, i, h, f.headDimV) + c] = o[c];
            }
        }
    }
    return out;
}

// Runs the case on the reference backend: output against the direct loops, caches exactly as expected.
void CheckFlash(const Flash& f, const Math& m, uint64_t seed,
                std::map<std::string, io::HostTensor> extra = {}) {
    std::mt19937_64 rng(seed);
    std::map<std::string, io::HostTensor> in = FlashInputs(f, rng);
    for (auto& [name, tensor] : extra)
        in[name] = std::move(tensor);
    TestCall call = MakeCall(f.param, f.platform, std::move(in));
    io::HostTensor cacheK = call.In("cacheK");
    io::HostTensor cacheV = call.In("cacheV");
    WriteNewTokens(f, call, cacheK, cacheV);
    const std::vector<double> expected = DirectFlash(f, call, cacheK, cacheV, m);
    ExpectReference(call, expected);
    EXPECT_TRUE(call.In("cacheK").bytes == cacheK.bytes) << "cacheK differs from the expected writes";
    EXPECT_TRUE(call.In("cacheV").bytes == cacheV.bytes) << "cacheV differs from the expected writes";
    ExpectCpuMeetsStandard(call, f.headDim, *std::max_element(f.tokenOffset.begin(), f.tokenOffset.end()));
}

Param FlashParam(Param::CalcType calcType, float qkScale) {
    Param p;
    p.headNum = 4;
    p.kvHeadNum = 2;
    p.calcType = calcType;
    p.qkScale = qkScale;
    return p;
}

// A mask [rows, cols] (or [batches, rows, cols]) whose entries are `hidden` on a random third and 0
// elsewhere, never hiding key 0 (so no row is empty).
io::HostTensor RandomMask(const TensorDesc& desc, double hidden, std::mt19937_64& rng) {
    const int64_t cols = desc.shape.dims[desc.shape.dimNum - 1];
    std::vector<double> values(ElementCount(desc));
    std::bernoulli_distribution pick(1.0 / 3);
    for (size_t e = 0; e < values.size(); ++e)
        values[e] = e % cols != 0 && pick(rng) ? hidden : 0.0;
    return Values(desc, values);
}

TEST(SaReferenceFlash, EncoderWritesTheCacheAndAttendsTopLeftWithQScale) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.qScale = 0.5f;
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.headDimV = 48;
    std::mt19937_64 rng(1);
    io::HostTensor mask = RandomMask(Desc(ACL_FLOAT16, {f.maxSeq, f.maxSeq}), -10000.0, rng);
    const io::HostTensor maskCopy = mask;
    Math m;
    m.term = [&](int64_t, int64_t, int64_t i, int64_t j) { return At(maskCopy, i * f.maxSeq + j); };
    CheckFlash(f, m, 2, {{"attentionMask", std::move(mask)}});
}

TEST(SaReferenceFlash, FourDimensionalTokensAreViewedAsRows) {
    Flash f;
    f.param = FlashParam(Param::UNDEFINED, 0.2f);
    f.fourDims = true;
    f.seqLen = {4, 4};
    f.tokenOffset = {9, 4};
    f.layer = 0;
    CheckFlash(f, Math{}, 3);
}

// DECISIONS 12: bf16 masks, and fp16 masks on the high-precision prefill kernel, are 0/1 flags times -3e38;
// fp16 DECODER masks stay additive even with HIGH_PRECISION.
struct Convention {
    aclDataType dtype;
    Param::CalcType calcType;
    Param::KernelType kernelType;
    bool flags;
};

void PrintTo(const Convention& c, std::ostream* out) {
    *out << DataTypeName(c.dtype) << " calcType " << c.calcType << " kernelType " << c.kernelType
         << (c.flags ? " flags" : " additive");
}

class SaReferenceMaskConvention : public testing::TestWithParam<Convention> {};

TEST_P(SaReferenceMaskConvention, BatchMaskIsReadAsThePathReadsIt) {
    const Convention& c = GetParam();
    Flash f;
    f.param = FlashParam(c.calcType, 0.17f);
    f.param.kernelType = c.kernelType;
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.dtype = c.dtype;
    if (c.calcType == Param::DECODER) f.seqLen = {1, 1, 1};
    const int64_t rows = c.calcType == Param::DECODER ? 1 : f.maxSeq;
    std::mt19937_64 rng(4);
    io::HostTensor mask =
        RandomMask(Desc(c.dtype, {f.Batch(), rows, f.maxSeq}), c.flags ? 1.0 : -10000.0, rng);
    const io::HostTensor maskCopy = mask;
    Math m;
    m.term = [&](int64_t b, int64_t, int64_t i, int64_t j) {
        const double v = At(maskCopy, (b * rows + i) * f.maxSeq + j);
        return c.flags ? v * -3e38 : v;
    };
    CheckFlash(f, m, 5, {{"attentionMask", std::move(mask)}});
}

INSTANTIATE_TEST_SUITE_P(
    Paths, SaReferenceMaskConvention,
    testing::Values(Convention{ACL_FLOAT16, Param::ENCODER, Param::KERNELTYPE_DEFAULT, false},
                    Convention{ACL_FLOAT16, Param::ENCODER, Param::KERNELTYPE_HIGH_PRECISION, true},
                    Convention{ACL_BF16, Param::UNDEFINED, Param::KERNELTYPE_DEFAULT, true},
                    Convention{ACL_FLOAT16, Param::DECODER, Param::KERNELTYPE_HIGH_PRECISION, false},
                    Convention{ACL_BF16, Param::DECODER, Param::KERNELTYPE_DEFAULT, true}));

TEST(SaReferenceFlash, DecoderLogNIsPerBatch) {
    Flash f;
    f.param = FlashParam(Param::DECODER, 0.17f);
    f.param.scaleType = Param::SCALE_TYPE_LOGN;
    f.seqLen = {1, 1, 1, 1};
    f.tokenOffset = {24, 1, 9, 13};
    const std::vector<double> logN = {1.5, 0.75, 1.25, 2.0};
    Math m;
    m.logN = [&](int64_t b, int64_t) { return logN[b]; };
    CheckFlash(f, m, 6, {{"logN", Values(Desc(ACL_FLOAT, {4}), logN)}});
}

TEST(SaReferenceFlash, DynamicBatchStoppedBatchesWriteNothingAndOutputZeros) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.batchRunStatusEnable = true;
    f.cache = Cache::kDynamic;
    f.seqLen = {3, 5, 2, 1};
    f.tokenOffset = {3, 5, 2, 24};  // the dynamic-batch encoder needs kv == q or q == 1 per sequence
    f.status = {1, 0, 1, 0};
    CheckFlash(f, Math{}, 7);
}

TEST(SaReferenceFlash, QScaleZeroZeroesTheQuery) {
    Flash f;
    f.param = FlashParam(Param::UNDEFINED, 0.17f);
    f.param.qScale = 0.0f;
    Math m;
    CheckFlash(f, m, 8);
}

TEST(SaReferenceFlash, ClampBoundsTheScaledScores) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.3f);
    f.param.clampType = Param::CLAMP_TYPE_MIN_MAX;
    f.param.clampMin = -0.71f;
    f.param.clampMax = 0.99f;
    CheckFlash(f, Math{}, 9);
}

// The compressed causal tile ATB's tests build: 128 x 128, -10000 strictly above the diagonal.
std::vector<double> CausalTile() {
    std::vector<double> tile(128 * 128);
    for (int64_t r = 0; r < 128; ++r) {
        for (int64_t c = 0; c < 128; ++c)
            tile[r * 128 + c] = c > r ? -10000.0 : 0.0;
    }
    return tile;
}

// DECISIONS 13: with the KV cache in the op and kv > q, the compressed causal tile is top-left, as ATB's
// goldens.
TEST(SaReferenceFlash, CompressedNormMaskIsTopLeftCausal) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM_COMPRESS;
    f.param.isTriuMask = 1;
    f.maxSeq = 160;
    f.seqLen = {130, 3};
    f.tokenOffset = {150, 5};
    const std::vector<double> tile = CausalTile();
    Math m;
    m.term = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i ? -10000.0 : 0.0; };
    CheckFlash(f, m, 10, {{"attentionMask", Values(Desc(ACL_FLOAT16, {128, 128}), tile)}});
}

// MASK_TYPE_NORM with isTriuMask and a [128, 128] mask is the compressed causal tile as well (ATB's kernels
// tell it by its shape), also for sequences longer than the tile.
TEST(SaReferenceFlash, TriuNormMaskOf128IsTheCompressedTile) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.param.isTriuMask = 1;
    f.maxSeq = 140;
    f.seqLen = {137, 2};
    f.tokenOffset = {137, 2};
    const std::vector<double> tile = CausalTile();
    Math m;
    m.term = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i ? -10000.0 : 0.0; };
    CheckFlash(f, m, 21, {{"attentionMask", Values(Desc(ACL_FLOAT16, {128, 128}), tile)}});
}

// A mask with a head dim ([H, S, S], per head: ALIBI; NORM masks take none) stays additive even in bf16
// (DECISIONS 12).
TEST(SaReferenceFlash, MaskWithAHeadDimIsAdditiveInBf16) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.maskType = Param::MASK_TYPE_ALIBI;
    f.dtype = ACL_BF16;
    std::mt19937_64 rng(22);
    io::HostTensor mask = RandomMask(Desc(ACL_BF16, {f.heads, f.maxSeq, f.maxSeq}), -30.0, rng);
    const io::HostTensor maskCopy = mask;
    Math m;
    m.term = [&](int64_t, int64_t h, int64_t i, int64_t j) {
        return At(maskCopy, (h * f.maxSeq + i) * f.maxSeq + j);
    };
    CheckFlash(f, m, 23, {{"attentionMask", std::move(mask)}});
}

// DECISIONS 16: DECODER with a sliding window takes no mask; cacheType NORM reads the last W keys, cacheType
// SWA the first W (a ring cache).
TEST(SaReferenceFlash, DecoderSlidingWindowRestrictsTheKeys) {
    for (const auto cacheType : {Param::CACHE_TYPE_NORM, Param::CACHE_TYPE_SWA}) {
        Flash f;
        f.param = FlashParam(Param::DECODER, 0.17f);
        f.param.maskType = Param::MASK_TYPE_SLIDING_WINDOW_NORM;
        f.param.windowSize = 6;
        f.param.cacheType = cacheType;
        f.seqLen = {1, 1, 1};
        f.tokenOffset = {20, 4, 6};
        Math m;
        m.keys = [&](int64_t, int64_t kv) {
            return cacheType == Param::CACHE_TYPE_SWA ? std::make_pair(int64_t{0}, std::min<int64_t>(kv, 6))
                                                      : std::make_pair(std::max<int64_t>(0, kv - 6), kv);
        };
        CheckFlash(f, m, 11);
    }
}

TEST(SaReferenceFlash, SlidingWindowMasks) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.windowSize = 3;
    f.seqLen = {9, 2};
    f.tokenOffset = {11, 2};
    Math m;
    m.term = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i || j <= i - 3 ? -10000.0 : 0.0; };
    std::vector<double> full(f.maxSeq * f.maxSeq);
    for (int64_t r = 0; r < f.maxSeq; ++r)
        for (int64_t c = 0; c < f.maxSeq; ++c)
            full[r * f.maxSeq + c] = c > r || c <= r - 3 ? -10000.0 : 0.0;
    f.param.maskType = Param::MASK_TYPE_SLIDING_WINDOW_NORM;
    CheckFlash(f, m, 12, {{"attentionMask", Values(Desc(ACL_FLOAT16, {f.maxSeq, f.maxSeq}), full)}});
    // The 512 x 512 compressed tile stands for the same window.
    std::vector<double> tile(512 * 512);
    for (int64_t r = 0; r < 512; ++r)
        for (int64_t c = 0; c < 512; ++c)
            tile[r * 512 + c] = c > r || c <= r - 3 ? -10000.0 : 0.0;
    f.param.maskType = Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
    CheckFlash(f, m, 13, {{"attentionMask", Values(Desc(ACL_FLOAT16, {512, 512}), tile)}});
}

TEST(SaReferenceFlash, BypassReadsTheCallersCacheAndWritesNothing) {
    Flash f;
    f.param = FlashParam(Param::DECODER, 0.17f);
    f.param.kvcacheCfg = Param::K_BYPASS_V_BYPASS;
    f.seqLen = {1, 1, 1};
    f.tokenOffset = {3, 24, 17};
    f.headDimV = 16;
    CheckFlash(f, Math{}, 14);
}

TEST(SaReferenceFlash, BnsdBypassZeroesRowsPastEachBatch) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.kvcacheCfg = Param::K_BYPASS_V_BYPASS;
    f.param.inputLayout = infer::TYPE_BNSD;
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.cache = Cache::kBnsd;
    f.seqLen = {5, 2, 7};
    f.tokenOffset = {5, 9, 7};
    std::mt19937_64 rng(15);
    io::HostTensor mask = RandomMask(Desc(ACL_FLOAT16, {f.maxSeq, f.maxSeq}), -10000.0, rng);
    const io::HostTensor maskCopy = mask;
    Math m;
    m.term = [&](int64_t, int64_t, int64_t i, int64_t j) { return At(maskCopy, i * f.maxSeq + j); };
    CheckFlash(f, m, 16, {{"attentionMask", std::move(mask)}});
}

// Atlas inference: FRACTAL_NZ caches and mask, each batch's rows padded to 16 (written as zeros).
TEST(SaReferenceFlash, AtlasInferenceNzCachesAndPaddedRows) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.platform = Platform::kAtlasInference;
    f.cache = Cache::kNz;
    f.seqLen = {5, 17};
    f.tokenOffset = {5, 17};
    f.maxSeq = 32;
    // NZ mask [1, kv / 16, rows, 16]: element (i, j) at (j / 16) * rows * 16 + i * 16 + j % 16.
    const int64_t rows = 32;
    std::mt19937_64 rng(17);
    std::vector<double> nz(rows * f.maxSeq);
    std::bernoulli_distribution pick(1.0 / 3);
    for (double& v : nz)
        v = pick(rng) ? -10000.0 : 0.0;
    for (int64_t i = 0; i < rows; ++i)
        nz[i * 16] = 0.0;  // key 0 stays visible
    Math m;
    m.term = [&](int64_t, int64_t, int64_t i, int64_t j) {
        return nz[(j / 16) * rows * 16 + i * 16 + j % 16];
    };
    CheckFlash(f, m, 18,
               {{"attentionMask",
                 Values(Desc(ACL_FLOAT16, {1, f.maxSeq / 16, rows, 16}, ACL_FORMAT_FRACTAL_NZ), nz)}});
}

TEST(SaReferenceFlash, AtlasInferenceBnsdBypassNzCaches) {
    Flash f;
    f.param = FlashParam(Param::ENCODER, 0.17f);
    f.param.kvcacheCfg = Param::K_BYPASS_V_BYPASS;
    f.param.inputLayout = infer::TYPE_BNSD;
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.platform = Platform::kAtlasInference;
    f.cache = Cache::kNz;
    f.seqLen = {3, 6};
    f.tokenOffset = {3, 6};
    f.maxSeq = 16;
    // Seed: on atlas-inference the mask is built with the actual max_seq_len (6), not the cache length.
    const int64_t side = 6;
    std::mt19937_64 rng(19);
    io::HostTensor mask = RandomMask(Desc(ACL_FLOAT16, {side, side}), -10000.0, rng);
    const io::HostTensor maskCopy = mask;
    Math m;
    m.term = [&](int64_t, int64_t, int64_t i, int64_t j) { return At(maskCopy, i * side + j); };
    CheckFlash(f, m, 20, {{"attentionMask", std::move(mask)}});
}

}  // namespace
}  // namespace atbx::test::sa_ref
