// SelfAttention PA_ENCODER (packed q, k, v of the current tokens): the reference backend against direct loops
// over docs/spec/self_attention.md 2.4, 3.1-3.6, written here. Masks: tensors (NORM, ALIBI, sliding window),
// compressed tiles (NORM_COMPRESS, SLIDING_WINDOW_COMPRESS) and the compressed ALiBi forms with their
// formulas. cpu:scalar runs every case under the precision standard.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "plan/element.h"
#include "sa_reference_support.h"

namespace atbx::test::sa_ref {
namespace {

constexpr double kHidden = -std::numeric_limits<double>::infinity();

struct Packed {
    Param param;
    Platform platform = Platform::kAtlasA2;
    int64_t headDim = 32, headDimV = 32;
    std::vector<int32_t> qLens = {5, 17, 1};
    std::vector<int32_t> kvLens;  // empty: seqLen [B] (q = kv); else seqLen [2, B]
    aclDataType dtype = ACL_FLOAT16;
    int rank = 3;          // q, k, v [N, heads, d] (3) or [N, heads * d] (2)
    int64_t bnsdRows = 0;  // > 0: BNSD q [B, H, bnsdRows, D], k/v [B, Hk, bnsdRows, d]

    int64_t H() const { return param.headNum; }
    int64_t Hk() const { return param.kvHeadNum > 0 ? param.kvHeadNum : param.headNum; }
    int64_t Batch() const { return static_cast<int64_t>(qLens.size()); }
    int32_t Kv(size_t b) const { return kvLens.empty() ? qLens[b] : kvLens[b]; }
    int64_t QRow(size_t b) const {
        int64_t r = 0;
        for (size_t k = 0; k < b; ++k)
            r += qLens[k];
        return r;
    }
    int64_t KvRow(size_t b) const {
        int64_t r = 0;
        for (size_t k = 0; k < b; ++k)
            r += Kv(k);
        return r;
    }
    // Atlas inference pads the packed tokens to a multiple of 16 (docs/spec/self_attention.md 3.10).
    int64_t QRows() const {
        const int64_t n = QRow(qLens.size());
        return platform == Platform::kAtlasInference ? (n + 15) / 16 * 16 : n;
    }
    int64_t KvRows() const {
        const int64_t n = KvRow(qLens.size());
        return platform == Platform::kAtlasInference ? (n + 15) / 16 * 16 : n;
    }
    // Element of channel c of head h, row i of batch b in q (d = D) or the output (d = Dv).
    int64_t QOffset(size_t b, int64_t i, int64_t h, int64_t d) const {
        if (bnsdRows > 0) return ((static_cast<int64_t>(b) * H() + h) * bnsdRows + i) * d;
        return (QRow(b) + i) * H() * d + h * d;
    }
    // Element of channel c of kv head g, key j of batch b in a key/value tensor of d channels per head.
    int64_t KvOffset(size_t b, int64_t j, int64_t g, int64_t c, int64_t d) const {
        if (bnsdRows > 0) return ((static_cast<int64_t>(b) * Hk() + g) * bnsdRows + j) * d + c;
        return (KvRow(b) + j) * Hk() * d + g * d + c;
    }
};

Param EncoderParam(int32_t heads, int32_t kvHeads, float qkScale) {
    Param p;
    p.calcType = Param::PA_ENCODER;
    p.headNum = heads;
    p.kvHeadNum = kvHeads;
    p.qkScale = qkScale;
    p.qScale = 0.3f;  // ignored in PA_ENCODER (docs/spec/self_attention.md 1.1)
    return p;
}

TensorDesc TokenDesc(const Packed& f, int64_t rows, int64_t heads, int64_t d) {
    if (f.rank == 2) return Desc(f.dtype, {rows, heads * d});
    return Desc(f.dtype, {rows, heads, d});
}

std::map<std::string, io::HostTensor> PackedInputs(const Packed& f, std::mt19937_64& rng) {
    std::map<std::string, io::HostTensor> in;
    if (f.bnsdRows > 0) {
        in["query"] = Uniform(Desc(f.dtype, {f.Batch(), f.H(), f.bnsdRows, f.headDim}), -2, 2, rng);
        in["key"] = Uniform(Desc(f.dtype, {f.Batch(), f.Hk(), f.bnsdRows, f.headDim}), -2, 2, rng);
        in["value"] = Uniform(Desc(f.dtype, {f.Batch(), f.Hk(), f.bnsdRows, f.headDimV}), -1, 1, rng);
    } else {
        in["query"] = Uniform(TokenDesc(f, f.QRows(), f.H(), f.headDim), -2, 2, rng);
        in["key"] = Uniform(TokenDesc(f, f.KvRows(), f.Hk(), f.headDim), -2, 2, rng);
        if (f.param.mlaVHeadSize == 0)
            in["value"] = Uniform(TokenDesc(f, f.KvRows(), f.Hk(), f.headDimV), -1, 1, rng);
    }
    if (f.kvLens.empty()) {
        in["seqLen"] = Int32Tensor(f.qLens);
    } else {
        std::vector<int32_t> both = f.qLens;
        both.insert(both.end(), f.kvLens.begin(), f.kvLens.end());
        in["seqLen"] = Int32s({2, f.Batch()}, both);
    }
    return in;
}

using Term = std::function<double(int64_t b, int64_t h, int64_t i, int64_t j)>;

// out[b, i, h] = softmax_j(qkScale * logN[i] * q . K[j] + term) . V (qScale ignored); batches without query
// rows or keys attend nothing; rows past the last batch are 0.
std::vector<double> DirectPacked(const Packed& f, TestCall& call, const Term& term,
                                 const std::vector<double>& logN = {}) {
    const io::HostTensor& q = call.In("query");
    const io::HostTensor& k = call.In("key");
    const io::HostTensor& v = f.param.mlaVHeadSize > 0 ? k : call.In("value");
    const int64_t valueHeadSize = f.param.mlaVHeadSize > 0 ? f.headDim : f.headDimV;
    std::vector<double> out(ElementCount(call.outputs[0].desc), 0.0);
    for (size_t b = 0; b < f.qLens.size(); ++b) {
        if (f.Kv(b) == 0) continue;
        for (int64_t i = 0; i < f.qLens[b]; ++i) {
            for (int64_t h = 0; h < f.H(); ++h) {
                const int64_t g = h / (f.H() / f.Hk());
                std::vector<double> logits;
                for (int64_t j = 0; j < f.Kv(b); ++j) {
                    const double dot = Dot(
                        f.headDim, [&](int64_t c) { return At(q, f.QOffset(b, i, h, f.headDim) + c); },
                        [&](int64_t c) { return At(k, f.KvOffset(b, j, g, c, f.headDim)); });
                    const double scale = f.param.qkScale * (logN.empty() ? 1.0 : logN[i]);
                    logits.push_back(dot * scale + term(static_cast<int64_t>(b), h, i, j));
                }
                const std::vector<double> o = Attend(logits, f.headDimV, [&](int64_t j, int64_t c) {
                    return At(v, f.KvOffset(b, j, g, c, valueHeadSize));
                });
                for (int64_t c = 0; c < f.headDimV; ++c)
                    out[f.QOffset(b, i, h, f.headDimV) + c] = o[c];
            }
        }
    }
    return out;
}

const Term kNoMask = [](int64_t, int64_t, int64_t, int64_t) { return 0.0; };

void CheckPacked(const Packed& f, const Term& term, uint64_t seed,
                 std::map<std::string, io::HostTensor> extra = {}, const std::vector<double>& logN = {}) {
    std::mt19937_64 rng(seed);
    std::map<std::string, io::HostTensor> in = PackedInputs(f, rng);
    for (auto& [name, tensor] : extra)
        in[name] = std::move(tensor);
    TestCall call = MakeCall(f.param, f.platform, std::move(in));
    ExpectReference(call, DirectPacked(f, call, term, logN));
    int32_t maxKv = 0;
    for (size_t b = 0; b < f.qLens.size(); ++b)
        maxKv = std::max(maxKv, f.Kv(b));
    ExpectCpuMeetsStandard(call, f.headDim, maxKv);
}

// A [rows, cols] table built by a rule, as a tensor.
io::HostTensor Table(aclDataType dtype, std::initializer_list<int64_t> dims,
                     const std::function<double(int64_t plane, int64_t r, int64_t c)>& rule) {
    const std::vector<int64_t> d(dims);
    const int64_t cols = d.back(), rows = d[d.size() - 2];
    std::vector<double> values;
    int64_t planes = 1;
    for (size_t k = 0; k + 2 < d.size(); ++k)
        planes *= d[k];
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
                values.push_back(rule(p, r, c));
    return Values(Desc(dtype, dims), values);
}

TEST(SaReferencePaEncoder, GqaWithQueriesShorterThanKeysAndEmptyBatches) {
    Packed f;
    f.param = EncoderParam(6, 2, 0.17f);
    f.param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;  // the default kernel needs q == kv or q == 1
    f.qLens = {5, 0, 3, 2, 1};
    f.kvLens = {9, 4, 3, 0, 17};
    CheckPacked(f, kNoMask, 1);
}

TEST(SaReferencePaEncoder, TwoDimensionalTensorsWithDifferentValueHeadSize) {
    Packed f;
    f.param = EncoderParam(4, 1, 0.2f);
    f.rank = 2;
    f.headDimV = 48;
    f.qLens = {7, 130};
    CheckPacked(f, kNoMask, 2);
}

TEST(SaReferencePaEncoder, MlaValueIsAViewOfTheKey) {
    Packed f;
    f.param = EncoderParam(4, 2, 0.1f);
    f.param.mlaVHeadSize = 16;
    f.headDim = 48;
    f.headDimV = 16;
    f.qLens = {3, 9};
    CheckPacked(f, kNoMask, 3);
}

// DECISIONS 12: the default fp16 kernel reads a NORM mask as additive; HIGH_PRECISION (fp16) and bf16 read
// 0/1 flags times -3e38. The mask [B, S, S] is read top-left: row i, column j of batch b's plane.
TEST(SaReferencePaEncoder, BatchNormMaskConventions) {
    for (const auto& [dtype, kernelType, flags] :
         {std::tuple{ACL_FLOAT16, Param::KERNELTYPE_DEFAULT, false},
          std::tuple{ACL_FLOAT16, Param::KERNELTYPE_HIGH_PRECISION, true},
          std::tuple{ACL_BF16, Param::KERNELTYPE_DEFAULT, true}}) {
        Packed f;
        f.param = EncoderParam(4, 2, 0.17f);
        f.param.maskType = Param::MASK_TYPE_NORM;
        f.param.kernelType = kernelType;
        f.dtype = dtype;
        const double hidden = flags ? 1.0 : -10000.0;
        const io::HostTensor mask = Table(dtype, {3, 17, 17}, [&](int64_t b, int64_t r, int64_t c) {
            return c > 0 && (c > r || (c + 2 * b + r) % 5 == 1) ? hidden : 0.0;
        });
        // Named in the capture: clang 14 (the ASan build) captures no structured binding implicitly.
        const Term term = [&, flags = flags](int64_t b, int64_t, int64_t i, int64_t j) {
            const double v = At(mask, (b * 17 + i) * 17 + j);
            return flags ? v * -3e38 : v;
        };
        CheckPacked(f, term, 5, {{"attentionMask", mask}});
    }
}

// ALiBi masks are additive (bf16 masks too) and per head: [B, H, S, S] and [H, S, S].
TEST(SaReferencePaEncoder, AlibiTensorsArePerHeadAndAdditive) {
    Packed f;
    f.param = EncoderParam(4, 2, 0.17f);
    f.param.maskType = Param::MASK_TYPE_ALIBI;
    f.dtype = ACL_BF16;
    auto bias = [](int64_t plane, int64_t r, int64_t c) {
        return c > r ? -1e30 : 0.25 * (plane + 1) * (c - r);
    };
    const io::HostTensor perBatch = Table(ACL_BF16, {3, 4, 17, 17}, bias);
    CheckPacked(f,
                [&](int64_t b, int64_t h, int64_t i, int64_t j) {
                    return At(perBatch, ((b * 4 + h) * 17 + i) * 17 + j);
                },
                6, {{"attentionMask", perBatch}});
    const io::HostTensor perHead = Table(ACL_BF16, {4, 17, 17}, bias);
    CheckPacked(f,
                [&](int64_t, int64_t h, int64_t i, int64_t j) { return At(perHead, (h * 17 + i) * 17 + j); },
                7, {{"attentionMask", perHead}});
}

// A compressed causal tile stands for the full top-left causal mask (DECISIONS 13), queries shorter than keys
// too.
TEST(SaReferencePaEncoder, CompressedNormTileIsTopLeftCausal) {
    Packed f;
    f.param = EncoderParam(2, 1, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM_COMPRESS;
    f.param.isTriuMask = 1;
    f.param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
    f.qLens = {140, 3};
    f.kvLens = {150, 3};
    const io::HostTensor tile =
        Table(ACL_FLOAT16, {128, 128}, [](int64_t, int64_t r, int64_t c) { return c > r ? 1.0 : 0.0; });
    CheckPacked(f, [](int64_t, int64_t, int64_t i, int64_t j) { return j > i ? -3e38 : 0.0; }, 8,
                {{"attentionMask", tile}});
}

// ALiBi slopes as ATB's tests make them (docs/spec/self_attention.md 3.5): m0 = 2^(-8/n), n = 2^floor(log2
// H).
std::vector<double> AlibiSlopes(int64_t heads) {
    int64_t n = 1;
    while (n * 2 <= heads)
        n *= 2;
    std::vector<double> slopes;
    for (int64_t k = 0; k < n; ++k)
        slopes.push_back(std::pow(std::pow(2.0, -8.0 / n), k + 1));
    for (int64_t k = 0; static_cast<int64_t>(slopes.size()) < heads; ++k)
        slopes.push_back(std::pow(std::pow(2.0, -4.0 / n), 2 * k + 1));
    return slopes;
}

// The [256, 256] compressed ALiBi tiles with slopes, decoded to their formulas: slope * (i - j) with negated
// slopes, slope * sqrt(i - j), and slope * j (left-aligned); keys after the query are hidden.
TEST(SaReferencePaEncoder, CompressedAlibiFormulas) {
    const std::vector<double> slopes = AlibiSlopes(5);
    for (const auto maskType : {Param::MASK_TYPE_ALIBI_COMPRESS, Param::MASK_TYPE_ALIBI_COMPRESS_SQRT,
                                Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN}) {
        const bool leftAlign = maskType == Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN;
        const bool sqrt = maskType == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT;
        Packed f;
        f.param = EncoderParam(5, 1, 0.17f);
        f.param.maskType = maskType;
        f.param.isTriuMask = 1;
        f.param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
        f.qLens = {150, 7};
        std::vector<double> given;  // negated for the distance forms, as ATB's tests pass them
        for (double s : slopes)
            given.push_back(leftAlign ? s : -s);
        const io::HostTensor tile = Table(ACL_FLOAT16, {256, 256}, [&](int64_t, int64_t r, int64_t c) {
            if (leftAlign) return c > r ? -60000.0 : static_cast<double>(c);
            const double d = sqrt ? std::sqrt(std::fabs(r - c)) : r - c;
            return c > r ? d + 60000.0 : d;
        });
        const Term term = [&](int64_t, int64_t h, int64_t i, int64_t j) {
            if (j > i) return kHidden;
            const double slope = static_cast<float>(given[h]);
            if (leftAlign) return slope * j;
            return slope * (sqrt ? std::sqrt(static_cast<double>(i - j)) : static_cast<double>(i - j));
        };
        CheckPacked(f, term, 9, {{"attentionMask", tile}, {"slopes", Values(Desc(ACL_FLOAT, {5}), given)}});
    }
}

// The [H, rows, 128] form holds the first 128 columns of the full ALiBi mask: every key reads the diagonal
// the full mask has there (docs/spec/self_attention.md 3.5).
TEST(SaReferencePaEncoder, CompressedAlibiFirstColumnsStandForTheFullMask) {
    const std::vector<double> slopes = AlibiSlopes(3);
    Packed f;
    f.param = EncoderParam(3, 3, 0.17f);
    f.param.maskType = Param::MASK_TYPE_ALIBI_COMPRESS;
    f.param.isTriuMask = 1;
    f.param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
    f.dtype = ACL_BF16;
    f.qLens = {200, 9};
    auto full = [&](int64_t h, int64_t r, int64_t c) { return c > r ? kHidden : slopes[h] * (c - r); };
    const io::HostTensor tile = Table(ACL_BF16, {3, 200, 128}, full);
    const Term term = [&](int64_t, int64_t h, int64_t i, int64_t j) {
        return j > i ? kHidden : static_cast<double>(plan::RoundToDtype(full(h, i, j), ACL_BF16));
    };
    CheckPacked(f, term, 10,
                {{"attentionMask", tile}, {"slopes", Values(Desc(ACL_FLOAT, {3}), {0.0, 0.0, 0.0})}});
}

TEST(SaReferencePaEncoder, SlidingWindowTensorAndTile) {
    Packed f;
    f.param = EncoderParam(4, 2, 0.17f);
    f.param.windowSize = 5;
    f.qLens = {17, 4};
    const Term term = [](int64_t, int64_t, int64_t i, int64_t j) {
        return j > i || j <= i - 5 ? -10000.0 : 0.0;
    };
    auto window = [](int64_t, int64_t r, int64_t c) { return c > r || c <= r - 5 ? -10000.0 : 0.0; };
    f.param.maskType = Param::MASK_TYPE_SLIDING_WINDOW_NORM;
    CheckPacked(f, term, 11, {{"attentionMask", Table(ACL_FLOAT16, {17, 17}, window)}});
    f.param.maskType = Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
    CheckPacked(f, term, 12, {{"attentionMask", Table(ACL_FLOAT16, {512, 512}, window)}});
}

TEST(SaReferencePaEncoder, LogNScalesEachQueryRow) {
    Packed f;
    f.param = EncoderParam(4, 2, 0.17f);
    f.param.scaleType = Param::SCALE_TYPE_LOGN;
    f.param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
    std::vector<double> logN(17);
    for (size_t i = 0; i < logN.size(); ++i)
        logN[i] = static_cast<float>(1.0 + 0.05 * static_cast<double>(i));
    CheckPacked(f, kNoMask, 13, {{"logN", Values(Desc(ACL_FLOAT, {17}), logN)}}, logN);
}

TEST(SaReferencePaEncoder, BnsdWithQueriesShorterThanKeys) {
    Packed f;
    f.param = EncoderParam(4, 2, 0.17f);
    f.param.inputLayout = infer::TYPE_BNSD;
    f.dtype = ACL_BF16;
    f.bnsdRows = 20;
    f.qLens = {20, 3};
    f.kvLens = {20, 11};
    CheckPacked(f, kNoMask, 14);
}

// Atlas inference: the packed tokens are padded to 16 (written as zeros) and the mask is FRACTAL_NZ
// [1, cols / 16, rows, 16].
TEST(SaReferencePaEncoder, AtlasInferencePaddingAndNzMask) {
    Packed f;
    f.param = EncoderParam(2, 2, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.platform = Platform::kAtlasInference;
    f.qLens = {9, 20};
    const io::HostTensor mask = Table(ACL_FLOAT16, {1, 2, 32, 16}, [](int64_t, int64_t r, int64_t c) {
        return (r + c) % 7 == 3 ? -10000.0 : 0.0;
    });
    io::HostTensor nz = mask;
    nz.desc.format = ACL_FORMAT_FRACTAL_NZ;
    const Term term = [&](int64_t, int64_t, int64_t i, int64_t j) {
        return At(mask, (j / 16) * 32 * 16 + i * 16 + j % 16);
    };
    CheckPacked(f, term, 15, {{"attentionMask", nz}});
}

// Atlas 350: integer masks, 1 hides the key.
TEST(SaReferencePaEncoder, Atlas350IntegerMask) {
    Packed f;
    f.param = EncoderParam(4, 4, 0.17f);
    f.param.maskType = Param::MASK_TYPE_NORM;
    f.platform = Platform::kAtlas350;
    const io::HostTensor mask =
        Table(ACL_INT8, {17, 17}, [](int64_t, int64_t r, int64_t c) { return c > r ? 1.0 : 0.0; });
    CheckPacked(f, [](int64_t, int64_t, int64_t i, int64_t j) { return j > i ? -3e38 : 0.0; }, 16,
                {{"attentionMask", mask}});
}

}  // namespace
}  // namespace atbx::test::sa_ref
