// SelfAttention PREFIX_ENCODER (prefix keys in a paged cache): the reference backend against direct loops
// over docs/spec/self_attention.md 2.5 and 3, written here. Query i of batch b sits at absolute position kv_b
// - q_b + i (bottom-right alignment) for every mask. cpu:scalar runs every case under the precision standard.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "plan/element.h"
#include "sa_reference_support.h"

namespace atbx::test::sa_ref {
namespace {

constexpr double kHidden = -std::numeric_limits<double>::infinity();
constexpr int64_t kBlockSize = 128;

struct Prefix {
    Param param;
    int64_t headDim = 32;
    std::vector<int32_t> qLens = {3, 41};
    std::vector<int32_t> kvLens = {131, 169};
    aclDataType dtype = ACL_FLOAT16;
    bool splitHeads = false;  // cache [NB, 128, Hk, D] instead of [NB, 128, Hk * D]
    int64_t numBlocks = 6;

    int64_t H() const { return param.headNum; }
    int64_t Hk() const { return param.kvHeadNum; }
    int64_t Batch() const { return static_cast<int64_t>(qLens.size()); }
    int64_t TableWidth() const {
        return (*std::max_element(kvLens.begin(), kvLens.end()) + 127) / kBlockSize;
    }
    int64_t QRow(size_t b) const { return std::accumulate(qLens.begin(), qLens.begin() + b, int64_t{0}); }
};

Param PrefixParam(Param::MaskType maskType) {
    Param p;
    p.calcType = Param::PREFIX_ENCODER;
    p.headNum = 6;
    p.kvHeadNum = 2;
    p.qkScale = 0.17f;
    p.isTriuMask = 1;
    p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
    p.maskType = maskType;
    return p;
}

using Term = std::function<double(int64_t b, int64_t h, int64_t i, int64_t j)>;

void CheckPrefix(const Prefix& f, const Term& term, uint64_t seed,
                 std::map<std::string, io::HostTensor> extra) {
    std::mt19937_64 rng(seed);
    const int64_t nq = f.QRow(f.qLens.size());
    const TensorDesc cacheDesc = f.splitHeads ? Desc(f.dtype, {f.numBlocks, kBlockSize, f.Hk(), f.headDim})
                                              : Desc(f.dtype, {f.numBlocks, kBlockSize, f.Hk() * f.headDim});
    std::vector<int32_t> ids(f.numBlocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    std::vector<int32_t> table(f.Batch() * f.TableWidth(), 0);
    size_t next = 0;
    for (int64_t b = 0; b < f.Batch(); ++b)
        for (int64_t k = 0; k < (f.kvLens[b] + 127) / kBlockSize; ++k)
            table[b * f.TableWidth() + k] = ids[next++];
    std::map<std::string, io::HostTensor> in = {
        {"query", Uniform(Desc(f.dtype, {nq, f.H() * f.headDim}), -2, 2, rng)},
        {"key", Uniform(cacheDesc, -2, 2, rng)},
        {"value", Uniform(cacheDesc, -1, 1, rng)},
        {"blockTables", Int32s({f.Batch(), f.TableWidth()}, table)},
        {"seqLen", Int32Tensor(f.qLens)},
        {"kvSeqLen", Int32Tensor(f.kvLens)},
    };
    for (auto& [name, tensor] : extra)
        in[name] = std::move(tensor);
    TestCall call = MakeCall(f.param, Platform::kAtlasA2, std::move(in));

    // K_b[j] = cache[blockTables[b][j / 128]][j % 128]; output row i attends keys with the mask's term.
    const io::HostTensor& q = call.In("query");
    const io::HostTensor& k = call.In("key");
    const io::HostTensor& v = call.In("value");
    auto cacheAt = [&](int64_t b, int64_t j, int64_t g, int64_t c) {
        const int64_t block = table[b * f.TableWidth() + j / kBlockSize];
        return ((block * kBlockSize + j % kBlockSize) * f.Hk() + g) * f.headDim + c;
    };
    std::vector<double> expected(ElementCount(call.outputs[0].desc), 0.0);
    for (int64_t b = 0; b < f.Batch(); ++b) {
        for (int64_t i = 0; i < f.qLens[b]; ++i) {
            for (int64_t h = 0; h < f.H(); ++h) {
                const int64_t g = h / (f.H() / f.Hk());
                const int64_t row = (f.QRow(b) + i) * f.H() * f.headDim + h * f.headDim;
                std::vector<double> logits;
                for (int64_t j = 0; j < f.kvLens[b]; ++j) {
                    const double dot = Dot(
                        f.headDim, [&](int64_t c) { return At(q, row + c); },
                        [&](int64_t c) { return At(k, cacheAt(b, j, g, c)); });
                    logits.push_back(dot * f.param.qkScale + term(b, h, i, j));
                }
                const std::vector<double> o = Attend(
                    logits, f.headDim, [&](int64_t j, int64_t c) { return At(v, cacheAt(b, j, g, c)); });
                for (int64_t c = 0; c < f.headDim; ++c)
                    expected[row + c] = o[c];
            }
        }
    }
    ExpectReference(call, expected);
    ExpectCpuMeetsStandard(call, f.headDim, *std::max_element(f.kvLens.begin(), f.kvLens.end()));
}

// Absolute position of query i of batch b.
int64_t Position(const Prefix& f, int64_t b, int64_t i) {
    return f.kvLens[b] - f.qLens[b] + i;
}

io::HostTensor CausalTile(aclDataType dtype, double hidden) {
    std::vector<double> tile(128 * 128);
    for (int64_t r = 0; r < 128; ++r)
        for (int64_t c = 0; c < 128; ++c)
            tile[r * 128 + c] = c > r ? hidden : 0.0;
    return Values(Desc(dtype, {128, 128}), tile);
}

// fp16 PREFIX_ENCODER keeps the compressed tile additive although HIGH_PRECISION is mandatory; bf16 reads
// flags (DECISIONS 12).
TEST(SaReferencePrefix, CompressedNormIsBottomRightCausal) {
    Prefix f;
    f.param = PrefixParam(Param::MASK_TYPE_NORM_COMPRESS);
    CheckPrefix(
        f, [&](int64_t b, int64_t, int64_t i, int64_t j) { return j > Position(f, b, i) ? -10000.0 : 0.0; },
        1, {{"attentionMask", CausalTile(ACL_FLOAT16, -10000.0)}});
    f.dtype = ACL_BF16;
    f.splitHeads = true;
    CheckPrefix(f,
                [&](int64_t b, int64_t, int64_t i, int64_t j) { return j > Position(f, b, i) ? -3e38 : 0.0; },
                2, {{"attentionMask", CausalTile(ACL_BF16, 1.0)}});
}

TEST(SaReferencePrefix, CausalMaskNeedsNoTensor) {
    Prefix f;
    f.param = PrefixParam(Param::MASK_TYPE_CAUSAL_MASK);
    f.qLens = {1, 5, 30};
    f.kvLens = {129, 133, 158};
    CheckPrefix(
        f, [&](int64_t b, int64_t, int64_t i, int64_t j) { return j > Position(f, b, i) ? kHidden : 0.0; }, 3,
        {});
}

// Compressed ALiBi with slopes: slope * (p - j) and slope * sqrt(p - j) at the query's absolute position p.
TEST(SaReferencePrefix, CompressedAlibiUsesAbsolutePositions) {
    const std::vector<double> slopes = {-0.5, -0.25, -0.125, -0.0625, -0.03125, -0.015625};
    for (const auto maskType : {Param::MASK_TYPE_ALIBI_COMPRESS, Param::MASK_TYPE_ALIBI_COMPRESS_SQRT}) {
        const bool sqrt = maskType == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT;
        Prefix f;
        f.param = PrefixParam(maskType);
        std::vector<double> tile(256 * 256);
        for (int64_t r = 0; r < 256; ++r)
            for (int64_t c = 0; c < 256; ++c) {
                const double d = sqrt ? std::sqrt(std::fabs(r - c)) : r - c;
                tile[r * 256 + c] = c > r ? d + 60000.0 : d;
            }
        const Term term = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
            const int64_t p = Position(f, b, i);
            if (j > p) return kHidden;
            return slopes[h] * (sqrt ? std::sqrt(static_cast<double>(p - j)) : static_cast<double>(p - j));
        };
        CheckPrefix(f, term, 4,
                    {{"attentionMask", Values(Desc(ACL_FLOAT16, {256, 256}), tile)},
                     {"slopes", Values(Desc(ACL_FLOAT, {6}), slopes)}});
    }
}

// The [H, rows, 128] form: the first 128 columns of the full mask, read at the query's absolute position.
TEST(SaReferencePrefix, CompressedAlibiColumnsAtAbsolutePositions) {
    Prefix f;
    f.param = PrefixParam(Param::MASK_TYPE_ALIBI_COMPRESS);
    const int64_t rows = 169;
    auto full = [](int64_t h, int64_t r, int64_t c) { return c > r ? -10000.0 : 0.1 * (h + 1) * (c - r); };
    std::vector<double> columns;
    for (int64_t h = 0; h < 6; ++h)
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < 128; ++c)
                columns.push_back(full(h, r, c));
    const Term term = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
        const int64_t p = Position(f, b, i);
        if (j > p) return kHidden;
        return plan::RoundToDtype(full(h, p, j), ACL_FLOAT16);
    };
    CheckPrefix(f, term, 5,
                {{"attentionMask", Values(Desc(ACL_FLOAT16, {6, rows, 128}), columns)},
                 {"slopes", Values(Desc(ACL_FLOAT, {6}), std::vector<double>(6, 0.0))}});
}

}  // namespace
}  // namespace atbx::test::sa_ref
