// PagedAttention reference, quantisation (docs/spec/paged_attention.md 3.7, 3.8; DECISIONS 9): DEQUANT_FUSION
// int8 caches with fp32 or int64 (fp32 bits) per-channel descales, with and without offsets; int8 QKV ONLINE
// and OFFLINE with [H] descales, P quantised per tile of 128 keys, outDataType. The expected values are
// written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/float16.h"
#include "plan/element.h"
#include "support/pa_logical.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

// The int64 descale form: the fp32's bits zero-extended.
io::HostTensor Int64Descale(const std::vector<double>& values) {
    io::HostTensor t = ZeroTensor(Desc(ACL_INT64, {static_cast<int64_t>(values.size())}));
    std::span<int64_t> out = Elements<int64_t>(t);
    for (size_t i = 0; i < values.size(); ++i) {
        const auto f = static_cast<float>(values[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof(bits));
        out[i] = static_cast<int64_t>(bits);
    }
    return t;
}

// Per-channel (kv head, channel) descales and offsets of DEQUANT_FUSION, [kvHeads * D].
struct Descales {
    std::vector<double> kScale, kOffset, vScale, vOffset;
};

// K^[j][c] = (K8[j][c] + kOffset[k*D + c]) * kScale[k*D + c] for kv head k, likewise V; logit = qkScale *
// q.K^.
PaFormula DequantFormula(const PaLogical& l, const Descales& d) {
    PaFormula f;
    f.logit = [&l, &d](const PaIndex& at) {
        double dot = 0.0;
        for (int64_t c = 0; c < l.headDim; ++c) {
            const int64_t ch = at.kvh * l.headDim + c;
            dot += l.Query(at.row, at.h, c) * (l.Key(at.sequence, at.j, at.cacheHead, c) + d.kOffset[ch]) *
                   d.kScale[ch];
        }
        return l.param.qkScale * dot;
    };
    f.value = [&l, &d](const PaIndex& at, int64_t c) {
        const int64_t ch = at.kvh * l.headDimV + c;
        return (l.Value(at.sequence, at.j, at.cacheHead, c) + d.vOffset[ch]) * d.vScale[ch];
    };
    return f;
}

// The call with fp32 descales and int32 offsets `d` matches DequantFormula on the reference and on every
// CPU path.
void ExpectDequantMatches(PaLogical& l, const Descales& d, std::mt19937_64& rng) {
    const auto channels = static_cast<int64_t>(d.kScale.size());
    l.extra["kDescale"] = ValuesTensor(ACL_FLOAT, {channels}, d.kScale);
    l.extra["vDescale"] = ValuesTensor(ACL_FLOAT, {channels}, d.vScale);
    l.extra["kOffset"] = ValuesTensor(ACL_INT32, {channels}, d.kOffset);
    l.extra["vOffset"] = ValuesTensor(ACL_INT32, {channels}, d.vOffset);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, DequantFormula(l, d)));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

struct DequantCase {
    aclDataType q;
    aclDataType descale;
    bool offsets;
    int32_t heads, kvHeads;
};

void PrintTo(const DequantCase& c, std::ostream* out) {
    *out << (c.q == ACL_BF16 ? "bf16" : "fp16") << (c.descale == ACL_INT64 ? "_int64" : "_fp32")
         << (c.offsets ? "_offsets" : "") << "_H" << c.heads << "_Hk" << c.kvHeads;
}

class PaDequantTest : public testing::TestWithParam<DequantCase> {};

// l as an int8 DEQUANT_FUSION decode under an ALIBI mask (qkScale 0.05), filled at random, with its descales
// drawn into d (keys 0.1-0.6, values -0.6-0.6) and zero offsets.
PaLogical AlibiDequantLogical(PaLogical l, Descales& d, std::mt19937_64& rng) {
    l.cacheDtype = ACL_INT8;
    l.param.quantType = Param::TYPE_DEQUANT_FUSION;
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    l.param.qkScale = 0.05f;
    FillRandom(l, rng);
    const int64_t channels = l.KvHeads() * l.headDim;
    d.kScale = RandomValues(ACL_FLOAT, channels, 0.1, 0.6, rng);
    d.vScale = RandomValues(ACL_FLOAT, channels, -0.6, 0.6, rng);
    d.kOffset.assign(channels, 0.0);
    d.vOffset.assign(channels, 0.0);
    return l;
}

// The call of l (its descale tensors set) whose ALIBI mask [B, H, 1, cols] holds m as `dtype`: the reference
// and every CPU path match DequantFormula with m added to each logit.
void ExpectMaskedDequantMatches(PaLogical& l, const Descales& d, aclDataType dtype,
                                const std::vector<double>& m, int64_t cols, std::mt19937_64& rng) {
    const int64_t batch = static_cast<int64_t>(m.size()) / (l.Heads() * cols);
    l.extra["mask"] = ValuesTensor(dtype, {batch, l.Heads(), 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f = DequantFormula(l, d);
    const auto dequantLogit = f.logit;
    f.logit = [&](const PaIndex& at) {
        return dequantLogit(at) + m[(at.b * l.Heads() + at.h) * cols + at.j];
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// DequantFormula with an ALIBI [B, H, 1, S] mask.
TEST_P(PaDequantTest, DequantisesPerChannelOfTheKvHead) {
    const DequantCase& dc = GetParam();
    std::mt19937_64 rng(600 + dc.heads + (dc.offsets ? 50 : 0));
    PaLogical base = DecodeLogical(dc.heads, dc.kvHeads, 32, 16, {35, 1, 20}, dc.q);
    base.param.hasQuantOffset = dc.offsets;
    Descales d;
    PaLogical l = AlibiDequantLogical(base, d, rng);
    const int64_t channels = l.KvHeads() * l.headDim;
    const auto descale = [&](const std::vector<double>& v) {
        return dc.descale == ACL_INT64 ? Int64Descale(v) : ValuesTensor(ACL_FLOAT, {channels}, v);
    };
    l.extra["kDescale"] = descale(d.kScale);
    l.extra["vDescale"] = descale(d.vScale);
    if (dc.offsets) {
        std::uniform_int_distribution<int> offset(-20, 19);
        for (double& o : d.kOffset)
            o = offset(rng);
        for (double& o : d.vOffset)
            o = offset(rng);
        l.extra["kOffset"] = ValuesTensor(ACL_INT32, {channels}, d.kOffset);
        l.extra["vOffset"] = ValuesTensor(ACL_INT32, {channels}, d.vOffset);
    }
    const int64_t cols = 35;
    const std::vector<double> m = RandomValues(dc.q, 3 * l.Heads() * cols, -2, 2, rng);
    ExpectMaskedDequantMatches(l, d, dc.q, m, cols, rng);
}

// Queries whose channels span six orders of magnitude (one channel per query row and head 10^3 times the
// others, 10^-3 for a few) over int8 keys with offsets: the dequantisation folded into the query
// (docs/decisions.md) meets the precision standard on every path, the small channels included.
TEST(PaDequantWideQueries, MeetThePrecisionStandardOnEveryPath) {
    std::mt19937_64 rng(977);
    PaLogical l = DecodeLogical(8, 2, 64, 16, {150, 37, 1}, ACL_FLOAT16);
    l.cacheDtype = ACL_INT8;
    l.param.quantType = Param::TYPE_DEQUANT_FUSION;
    l.param.hasQuantOffset = true;
    l.param.qkScale = 0.125f;
    FillRandom(l, rng);
    std::uniform_int_distribution<int64_t> channel(0, l.headDim - 1);
    for (size_t base = 0; base < l.query.size(); base += static_cast<size_t>(l.headDim)) {
        l.query[base + static_cast<size_t>(channel(rng))] *= 1000.0;
        for (int k = 0; k < 4; ++k)
            l.query[base + static_cast<size_t>(channel(rng))] *= 1e-3;
    }
    for (double& q : l.query)  // fp16 queries: the expected values use the rounded ones
        q = static_cast<double>(core::HalfToFloat(core::DoubleToHalf(q)));
    const int64_t channels = l.KvHeads() * l.headDim;
    Descales d;
    d.kScale = RandomValues(ACL_FLOAT, channels, 1e-3, 3e-3, rng);
    d.vScale = RandomValues(ACL_FLOAT, channels, -0.02, 0.02, rng);
    std::uniform_int_distribution<int> offset(-20, 19);
    for (int64_t c = 0; c < 2 * channels; ++c)
        (c < channels ? d.kOffset : d.vOffset).push_back(offset(rng));
    ExpectDequantMatches(l, d, rng);
}

// int8 values whose offsets nearly cancel them (V8 in [100, 127], offset -113, scales 0.3-0.5: dequantised
// values within +-7 whose weighted means lie near 0) under logits spread wide, in contexts short enough for
// the strict eps (2^-8): where the CPU path takes P.V by int16 dot products (cpu:avx512 with AVX512-VNNI, GQA
// 4), each tile's weights are rounded to 2^-15 of its largest and l sums the rounded weights, which must keep
// every output within the precision standard (docs/decisions.md).
TEST(PaDequantSpreadWeights, MeetThePrecisionStandardOnEveryPath) {
    std::mt19937_64 rng(1013);
    PaLogical l = DecodeLogical(8, 2, 64, 16, {31, 17, 29, 1}, ACL_FLOAT16);
    l.cacheDtype = ACL_INT8;
    l.param.quantType = Param::TYPE_DEQUANT_FUSION;
    l.param.hasQuantOffset = true;
    l.param.qkScale = 1.0f;
    FillRandom(l, rng);
    for (auto& keys : l.keys)
        keys = RandomValues(ACL_INT8, static_cast<int64_t>(keys.size()), -127, 127, rng);
    for (auto& values : l.values)
        values = RandomValues(ACL_INT8, static_cast<int64_t>(values.size()), 100, 127, rng);
    const int64_t channels = l.KvHeads() * l.headDim;
    Descales d;
    d.kScale = RandomValues(ACL_FLOAT, channels, 0.001, 0.002, rng);
    d.vScale = RandomValues(ACL_FLOAT, channels, 0.3, 0.5, rng);
    std::uniform_int_distribution<int> offset(-20, 19);
    for (int64_t c = 0; c < channels; ++c) {
        d.kOffset.push_back(offset(rng));
        d.vOffset.push_back(-113);
    }
    ExpectDequantMatches(l, d, rng);
}

// int8 values under logits whose groups of 32 keys lie far apart within each tile of 128 (a mask adding 0,
// -3, -95 and -120 to the groups in turn, one group further on in each tile, plus noise in [-1, 1]): where
// the CPU path takes P.V by int16 dot products (cpu:avx512 with AVX512-VNNI, GQA 4), a tile rounds each
// group's weights to the group's own step and takes zeros for a group whose weights are negligible (e^-95) or
// underflow (e^-120); every output meets the precision standard on every path.
TEST(PaDequantGroupedWeights, MeetThePrecisionStandardOnEveryPath) {
    std::mt19937_64 rng(1021);
    Descales d;
    PaLogical l = AlibiDequantLogical(DecodeLogical(8, 2, 64, 16, {300, 130, 1, 77}, ACL_FLOAT16), d, rng);
    const int64_t channels = l.KvHeads() * l.headDim;
    l.extra["kDescale"] = ValuesTensor(ACL_FLOAT, {channels}, d.kScale);
    l.extra["vDescale"] = ValuesTensor(ACL_FLOAT, {channels}, d.vScale);
    const int64_t cols = 300;
    const double groupTerms[4] = {0.0, -3.0, -95.0, -120.0};
    std::vector<double> m = RandomValues(ACL_FLOAT, 4 * l.Heads() * cols, -1, 1, rng);
    for (size_t i = 0; i < m.size(); ++i) {
        const int64_t key = static_cast<int64_t>(i) % cols;
        const double term = m[i] + groupTerms[(key / 32 + key / 128) % 4];
        m[i] = static_cast<double>(core::HalfToFloat(core::DoubleToHalf(term)));  // as the fp16 mask holds it
    }
    ExpectMaskedDequantMatches(l, d, ACL_FLOAT16, m, cols, rng);
}

// A query channel that is NaN or infinite over int8 keys (heads of 64 channels, 4 query heads per kv head: on
// cpu:avx2, and on cpu:avx512 where the CPU has AVX512-VNNI, the row runner takes such keys' dots in int16,
// rounding each query once) gives its row the reference's class of result on every path: the queries of that
// task keep fp32 dots.
TEST(PaDequantNonFiniteQueries, GiveTheReferencesClassOfResultOnEveryPath) {
    std::mt19937_64 rng(991);
    PaLogical l = DecodeLogical(8, 2, 64, 16, {40, 17}, ACL_FLOAT16);
    l.cacheDtype = ACL_INT8;
    l.param.quantType = Param::TYPE_DEQUANT_FUSION;
    l.param.qkScale = 0.125f;
    FillRandom(l, rng);
    l.query[(0 * 8 + 2) * 64 + 9] = std::nan("");                              // sequence 0, head 2
    l.query[(1 * 8 + 6) * 64 + 40] = std::numeric_limits<double>::infinity();  // sequence 1, head 6
    const int64_t channels = l.KvHeads() * l.headDim;
    l.extra["kDescale"] =
        ValuesTensor(ACL_FLOAT, {channels}, RandomValues(ACL_FLOAT, channels, 0.1, 0.6, rng));
    l.extra["vDescale"] =
        ValuesTensor(ACL_FLOAT, {channels}, RandomValues(ACL_FLOAT, channels, -0.6, 0.6, rng));
    TestCall call = BuildCall(l, rng);
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const std::string expected = RowClasses(call, l.headDimV);
    EXPECT_EQ(expected.substr(0, 8), "ffnfffff");
    EXPECT_EQ(expected[8 + 6], 'n');
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << path << ": " << run.status.ToString();
        EXPECT_EQ(RowClasses(call, l.headDimV), expected) << path;
    }
}

INSTANTIATE_TEST_SUITE_P(Descales, PaDequantTest,
                         testing::Values(DequantCase{ACL_FLOAT16, ACL_FLOAT, false, 4, 4},
                                         DequantCase{ACL_FLOAT16, ACL_FLOAT, true, 8, 1},
                                         DequantCase{ACL_FLOAT16, ACL_FLOAT, true, 16, 1},
                                         DequantCase{ACL_FLOAT16, ACL_INT64, true, 6, 2},
                                         DequantCase{ACL_FLOAT16, ACL_INT64, false, 3, 3},
                                         DequantCase{ACL_BF16, ACL_FLOAT, true, 8, 2}),
                         testing::PrintToStringParamName());

// ---- QKV quant: written as docs/spec/paged_attention.md 3.8 states it ----

struct QkvCase {
    Param::QuantType mode;
    aclDataType out;
    int32_t heads, kvHeads;
    bool mla;
    int32_t headDim = 48;
    int32_t mlaHeadDimV = 32;
};

void PrintTo(const QkvCase& c, std::ostream* out) {
    *out << (c.mode == Param::TYPE_QUANT_QKV_ONLINE ? "online" : "offline")
         << (c.out == ACL_BF16 ? "_bf16" : "_fp16") << "_H" << c.heads << "_Hk" << c.kvHeads
         << (c.mla ? "_mla" + std::to_string(c.mlaHeadDimV) : "") << "_D" << c.headDim;
}

// One (row, head): S_j = (q8 . K8_j) * kDescale[h] * tor + mask_j; online softmax over tiles of 128 keys,
// l summing the unquantised weights; P quantised per tile (ONLINE: sigma = exp(tile_max - m) / 127, P8 =
// rint(fp16(p / sigma)), O += P8.V8 * vDescale[h] * sigma; OFFLINE: P8 = rint(fp16(p * pScale[h])), O +=
// P8.V8 * vDescale[h]); out = O / l.
std::vector<double> QuantisedRow(const std::vector<double>& scores,
                                 const std::vector<std::vector<double>>& values, Param::QuantType mode,
                                 double vDescale, double pScale) {
    const size_t dv = values.empty() ? 0 : values[0].size();
    double m = -INFINITY, l = 0.0;
    std::vector<double> o(dv, 0.0);
    for (size_t t0 = 0; t0 < scores.size(); t0 += 128) {
        const size_t t1 = std::min(scores.size(), t0 + 128);
        double tileMax = -INFINITY;
        for (size_t j = t0; j < t1; ++j)
            tileMax = std::max(tileMax, scores[j]);
        const double mNew = std::max(m, tileMax);
        const double rescale = std::exp(m - mNew);
        for (double& x : o)
            x *= rescale;
        l *= rescale;
        const double sigma = std::exp(tileMax - mNew) / 127.0;
        for (size_t j = t0; j < t1; ++j) {
            const double p = std::exp(scores[j] - mNew);
            l += p;
            const bool online = mode == Param::TYPE_QUANT_QKV_ONLINE;
            const double p8 =
                std::nearbyint(plan::RoundToDtype(online ? p / sigma : p * pScale, ACL_FLOAT16));
            for (size_t c = 0; c < dv; ++c)
                o[c] += p8 * values[j][c] * vDescale * (online ? sigma : 1.0);
        }
        m = mNew;
    }
    for (double& x : o)
        x /= l;
    return o;
}

class PaQkvQuantTest : public testing::TestWithParam<QkvCase> {};

TEST_P(PaQkvQuantTest, QuantisesPPerTileOf128Keys) {
    const QkvCase& qc = GetParam();
    std::mt19937_64 rng(650 + qc.heads + qc.mode);
    PaLogical l = DecodeLogical(qc.heads, qc.kvHeads, qc.headDim, 16, {301, 129, 1, 128, 17}, ACL_INT8);
    l.cacheDtype = ACL_INT8;
    if (qc.mla) {
        l.param.mlaVHeadSize = qc.mlaHeadDimV;
        l.headDimV = qc.mlaHeadDimV;
    }
    l.param.quantType = qc.mode;
    l.param.outDataType = qc.out;
    l.param.maskType = Param::MASK_TYPE_NORM;
    l.param.qkScale = 0.4f;
    FillRandom(l, rng);
    // Values over the whole int8 range, so that outputs reach the standard's relative scale (above 1).
    for (std::vector<double>& values : l.values)
        values = RandomValues(ACL_INT8, static_cast<int64_t>(values.size()), -127, 127, rng);
    const std::vector<double> kDescale = RandomValues(ACL_FLOAT, l.Heads(), 0.01, 5.0 / 127, rng);
    std::vector<double> vDescale = RandomValues(ACL_FLOAT, l.Heads(), -5.0 / 127, 5.0 / 127, rng);
    const std::vector<double> pScale = RandomValues(ACL_FLOAT, l.Heads(), 1, 127, rng);
    l.extra["kDescale"] = ValuesTensor(ACL_FLOAT, {l.Heads()}, kDescale);
    l.extra["vDescale"] = ValuesTensor(ACL_FLOAT, {l.Heads()}, vDescale);
    if (qc.mode == Param::TYPE_QUANT_QKV_OFFLINE)
        l.extra["pScale"] = ValuesTensor(ACL_FLOAT, {l.Heads()}, pScale);
    const int64_t batch = 5, cols = 301;
    std::vector<double> m = RandomValues(qc.out, batch * cols, -3, 0, rng);
    // The first sequence's rows weigh only its last 5 keys (the others' weights round to 0 in P), so that
    // each of those keys moves the output well beyond the standard.
    for (int64_t j = 0; j < cols - 5; ++j)
        m[j] = -30.0;
    l.extra["mask"] = ValuesTensor(qc.out, {batch, 1, cols}, m);
    TestCall call = BuildCall(l, rng);

    const int64_t heads = l.Heads(), group = heads / l.KvHeads(), dv = l.headDimV;
    std::vector<double> direct(l.Tokens() * heads * dv, NAN);
    int64_t row = 0;
    for (int64_t b = 0; b < batch; ++b, ++row) {
        for (int64_t h = 0; h < heads; ++h) {
            const int64_t kvh = h / group;
            std::vector<double> scores(l.contextLens[b]);
            std::vector<std::vector<double>> values(l.contextLens[b], std::vector<double>(dv));
            for (int64_t j = 0; j < l.contextLens[b]; ++j) {
                double dot = 0.0;
                for (int64_t c = 0; c < l.headDim; ++c)
                    dot += l.Query(row, h, c) * l.Key(b, j, kvh, c);
                scores[j] = dot * kDescale[h] * l.param.qkScale + m[b * cols + j];
                for (int64_t c = 0; c < dv; ++c)
                    values[j][c] = l.Value(b, j, kvh, c);
            }
            const std::vector<double> o = QuantisedRow(scores, values, qc.mode, vDescale[h], pScale[h]);
            std::copy(o.begin(), o.end(), direct.begin() + (row * heads + h) * dv);
        }
    }
    ExpectReferenceMatches(call, direct);
    ExpectCpuPaths(call, dv, MaxContext(l));
}

// The last three: wide groups, 40 and 36 query heads per kv head at head size 64 and MLA's 576/512, which
// cpu:avx2 and cpu:avx512 run in columns over the 301 keys by int16 pair products (attention_columns.inl): an
// odd number of lane vectors on cpu:avx2 (40 lanes: 5), an odd last tile (45 keys).
INSTANTIATE_TEST_SUITE_P(Modes, PaQkvQuantTest,
                         testing::Values(QkvCase{Param::TYPE_QUANT_QKV_ONLINE, ACL_BF16, 8, 2, false},
                                         QkvCase{Param::TYPE_QUANT_QKV_ONLINE, ACL_FLOAT16, 3, 1, false},
                                         QkvCase{Param::TYPE_QUANT_QKV_OFFLINE, ACL_FLOAT16, 2, 2, false},
                                         QkvCase{Param::TYPE_QUANT_QKV_OFFLINE, ACL_BF16, 4, 1, true},
                                         QkvCase{Param::TYPE_QUANT_QKV_ONLINE, ACL_BF16, 5, 1, true},
                                         QkvCase{Param::TYPE_QUANT_QKV_ONLINE, ACL_FLOAT16, 40, 1, false, 64},
                                         QkvCase{Param::TYPE_QUANT_QKV_OFFLINE, ACL_BF16, 36, 1, true, 64},
                                         QkvCase{Param::TYPE_QUANT_QKV_ONLINE, ACL_FLOAT16, 36, 1, true, 576,
                                                 512}),
                         testing::PrintToStringParamName());

}  // namespace
}  // namespace atbx::test
