// Items of more than 32 lanes of one kv head (prefill row blocks, wide GQA and speculative decode steps),
// which the vector paths run in columns (src/kernels/cpu/attention_columns.inl), and items from 16 lanes,
// which cpu:avx2 runs there, and cpu:avx512 for bf16 where the CPU has bf16 dot products: every CPU path of
// the registry, forced in turn, against the float64 reference under the precision standard. Logits spread
// over ±10 and more, so that the rescales of the running sums matter; values near the bf16 maximum, and large
// values under wide logits (which bf16 P.V leaves to fp32 weights); weights at bf16 rounding midpoints;
// tensor and ALiBi masks, clamp and razor offsets; values that are not finite at keys some rows weigh 0 and
// others do not; head sizes 72, 192/128 and 576/512; keys that are not finite and raw dots beyond fp32 (which
// bf16 dot products hand back to fp32); several key chunks merged; bitwise identical results on 1, 2 and 3
// threads. A path this CPU lacks is skipped with the missing feature named.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "io/param_json.h"
#include "plan/element.h"
#include "support/cpu_path_fixture.h"
#include "support/pa_calls.h"
#include "support/pa_logical.h"
#include "support/run_call.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using SaParam = infer::SelfAttentionParam;
using PaParam = infer::PagedAttentionParam;

// 8 query heads on 2 kv heads: a prefill row block holds 4 heads x 16 rows = 64 lanes.
SaParam Encoder(SaParam::MaskType mask) {
    SaParam p = PaEncoderParam();
    p.headNum = 8;
    p.kvHeadNum = 2;
    p.maskType = mask;
    return p;
}

// Lengths 300, 129 and 1 at head size 128; queries times 8 (logits over some ±12 at qkScale 1/8).
TestCall WidePrefill(const SaParam& param, aclDataType dtype) {
    TestCall call = MakeSaCall(param, MakeSaShape(128, {300, 129, 1}, dtype));
    ScaleElements(call.In("query"), 8.0);
    return call;
}

// Everything the float64 reference of a call depends on: the param, the platform and every input's
// description and bytes.
std::string CallKey(const TestCall& call) {
    std::string key = io::ParamToJson(call.param).dump();
    key += '|' + std::to_string(static_cast<int>(call.platform));
    for (size_t i = 0; i < call.inputs.size(); ++i) {
        const io::HostTensor& in = call.inputs[i];
        key += '|' + (i < call.inputNames.size() ? call.inputNames[i] : std::string()) + ' ' +
               std::to_string(in.desc.dtype) + ' ' + std::to_string(in.desc.format);
        for (uint64_t d = 0; d < in.desc.shape.dimNum; ++d)
            key += ' ' + std::to_string(in.desc.shape.dims[d]);
        key += ':';
        key.append(in.bytes.begin(), in.bytes.end());
    }
    return key;
}

// The float64 reference of a call, computed once per process for the same call: every CPU path's instance of
// a test checks its output against the reference of the same inputs, and under the sanitizers computing it
// was most of each instance's time. tests/CMakeLists.txt runs this suite in one process there, so that a
// test's instances share it. Only the current test's calls are kept (its instances run one after another);
// a test run alone computes its own.
std::vector<double> SharedReference(TestCall& call) {
    static std::string test;
    static std::map<std::string, std::vector<double>> references;
    const std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
    const std::string current = name.substr(0, name.find('/'));
    if (current != test) {
        test = current;
        references.clear();
    }
    std::string key = CallKey(call);
    const auto found = references.find(key);
    if (found != references.end()) return found->second;
    std::vector<double> reference = ReferenceResult(call);
    if (!reference.empty()) references.emplace(std::move(key), reference);  // empty: the call failed
    return reference;
}

class ColumnRunnerTest : public CpuPathFixture {
  protected:
    void ExpectMeetsTheStandard(TestCall& call, int64_t headSize, int64_t maxKeys) {
        const std::vector<double> reference = SharedReference(call);
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, GetParam());
        EXPECT_EQ(PrecisionFailure(call, reference, headSize, maxKeys), "");
    }
};

TEST_P(ColumnRunnerTest, WideLogitsMeetThePrecisionStandard) {
    for (const SaParam::MaskType mask :
         {SaParam::MASK_TYPE_UNDEFINED, SaParam::MASK_TYPE_NORM, SaParam::MASK_TYPE_ALIBI}) {
        for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
            SCOPED_TRACE(std::to_string(mask) + (dtype == ACL_BF16 ? " bf16" : " fp16"));
            TestCall call = WidePrefill(Encoder(mask), dtype);
            ExpectMeetsTheStandard(call, 128, 300);
        }
    }
}

// Head sizes other than 128 in columns, bf16 (the dot products' channel pairs), unmasked so that every logit
// counts: 72 (padded to 80), 112 (three whole 32-channel blocks of value pairs and a last block of 16), MLA
// 192/128, and MLA's 576/512 latent head shared by 36 query heads (rows of 36 lanes).
TEST_P(ColumnRunnerTest, OtherHeadSizesMeetThePrecisionStandard) {
    const auto expect = [this](SaParam p, int64_t headSize, int64_t headSizeV, int32_t length,
                               double queryScale) {
        TestCall call = MakeSaCall(p, MakeSaShape(headSize, {length}, ACL_BF16));
        ScaleElements(call.In("query"), queryScale);
        ExpectMeetsTheStandard(call, headSizeV, length);
    };
    {
        SCOPED_TRACE("gqa7 head 72");
        SaParam p = Encoder(SaParam::MASK_TYPE_UNDEFINED);
        p.headNum = 14;
        expect(p, 72, 72, 300, 8.0);
    }
    {
        SCOPED_TRACE("gqa4 head 112");
        expect(Encoder(SaParam::MASK_TYPE_UNDEFINED), 112, 112, 300, 8.0);
    }
    {
        SCOPED_TRACE("mla 192/128");
        SaParam p = Encoder(SaParam::MASK_TYPE_UNDEFINED);
        p.mlaVHeadSize = 128;
        p.kernelType = SaParam::KERNELTYPE_HIGH_PRECISION;
        expect(p, 192, 128, 300, 8.0);
    }
    {
        SCOPED_TRACE("mla 576/512, 36 heads");
        SaParam p = Encoder(SaParam::MASK_TYPE_UNDEFINED);
        p.headNum = 36;
        p.kvHeadNum = 1;
        p.mlaVHeadSize = 512;
        p.kernelType = SaParam::KERNELTYPE_HIGH_PRECISION;
        expect(p, 576, 512, 256, 4.0);
    }
}

// Clamp at ±3: most logits are clamped, and the clamped ones tie for the maximum.
TEST_P(ColumnRunnerTest, ClampedLogitsMeetThePrecisionStandard) {
    SaParam p = Encoder(SaParam::MASK_TYPE_NORM);
    p.clampType = SaParam::CLAMP_TYPE_MIN_MAX;
    p.clampMin = -3.0f;
    p.clampMax = 3.0f;
    TestCall call = WidePrefill(p, ACL_FLOAT16);
    ExpectMeetsTheStandard(call, 128, 300);
}

// bf16 values near the dtype's maximum under wide logits: weights taken against a maximum a tile may pass by
// up to e^8 (attention_columns.inl, kLazyRescale) must not overflow the fp32 sums.
TEST_P(ColumnRunnerTest, ValuesNearTheBf16MaximumMeetThePrecisionStandard) {
    TestCall call = WidePrefill(Encoder(SaParam::MASK_TYPE_NORM), ACL_BF16);
    ScaleLargestTo(call.In("value"), 3e38);
    ExpectMeetsTheStandard(call, 128, 300);
}

// Where the CPU has AVX512-BF16, bf16 P.V runs on bf16 dot products with the weights rounded to bf16, only
// in tiles whose values are at most 2 in magnitude: rounding moves an output by up to 2^-8 of the weights'
// mean |value - output|, beyond the standard's absolute floor (2^-6 for bf16 outputs under 1) once values are
// large and their weighted sum cancels: unmasked, so that every weight counts, values of magnitude up to 40
// whose outputs are some 1e-3 of that (rounded weights there missed the standard by far).
TEST_P(ColumnRunnerTest, LargeValuesUnderWideLogitsMeetThePrecisionStandard) {
    TestCall call = WidePrefill(Encoder(SaParam::MASK_TYPE_UNDEFINED), ACL_BF16);
    ScaleLargestTo(call.In("value"), 40.0);
    ExpectMeetsTheStandard(call, 128, 300);
}

// Weights an adversary places where rounding them to bf16 moves them most. The queries are tiny (1e-6), so
// each logit is its NORM mask term: in every row key 0 takes 0 (weight 1, value 0), keys 1-7 a term whose
// weight lies just above the bf16 midpoint 0.5 + 2^-9 (rounded up) with values +v, keys 8-14 one just below
// it (rounded down) with values -v. A short fp16 prefill (head size 128 x 15 keys: eps 2^-8): weights rounded
// to bf16 under v = 2 would move each output by some 1.6 times the bound; under v = 0.5 by 0.4 of it
// (docs/decisions.md, "P's bf16 rounding, worst case").
TEST_P(ColumnRunnerTest, WeightsAtBf16RoundingMidpointsMeetThePrecisionStandard) {
    const double midpoint = 0.5 + std::ldexp(1.0, -9);
    // fp16 terms in [-1, -0.5) are multiples of 2^-11: the nearest whose weights clear the midpoint by 2e-4
    // of it, beyond the kernels' exp error.
    double above = 0.0, below = -1.0;
    for (int n = 1024; n < 2048; ++n) {
        const double term = -n * std::ldexp(1.0, -11);
        if (std::exp(term) >= midpoint * (1.0 + 2e-4)) above = term;
        if (std::exp(term) <= midpoint * (1.0 - 2e-4) && below == -1.0) below = term;
    }
    for (const double v : {2.0, 0.5}) {
        SCOPED_TRACE("values of magnitude " + std::to_string(v));
        TestCall call = MakeSaCall(Encoder(SaParam::MASK_TYPE_NORM), MakeSaShape(128, {15}, ACL_FLOAT16));
        ScaleElements(call.In("query"), 1e-6);
        io::HostTensor& mask = call.In("attentionMask");
        const int64_t columns = mask.desc.shape.dims[mask.desc.shape.dimNum - 1];
        for (int64_t i = 0; i < ElementCount(mask); ++i) {
            const int64_t key = i % columns;
            SetElement(mask, i, key == 0 ? 0.0 : key <= 7 ? above : below);
        }
        io::HostTensor& value = call.In("value");
        const int64_t perToken = ElementCount(value) / 15;
        for (int64_t i = 0; i < ElementCount(value); ++i) {
            const int64_t key = i / perToken;
            SetElement(value, i, key == 0 ? 0.0 : key <= 7 ? v : -v);
        }
        ExpectMeetsTheStandard(call, 128, 15);
    }
}

// KVHEAD_ROPE, 96 query heads on 2 kv heads: each (batch, kv head) pair is a sequence of 48 lanes, whose
// logits take the razor offset of each key's physical slot.
TEST_P(ColumnRunnerTest, RazorOffsetsMeetThePrecisionStandard) {
    std::mt19937_64 rng(901);
    PaLogical l = DecodeLogical(96, 2, 128, 16, {700, 16, 33, 600});
    l.param.compressType = PaParam::COMPRESS_TYPE_KVHEAD_ROPE;
    FillRandom(l, rng);
    int64_t numBlocks = l.extraBlocks;
    for (int32_t len : l.contextLens)
        numBlocks += (len + l.blockSize - 1) / l.blockSize;
    l.extra["razorOffset"] = ValuesTensor(ACL_FLOAT, {numBlocks, l.blockSize},
                                          RandomValues(ACL_FLOAT, numBlocks * l.blockSize, 0, 4, rng));
    TestCall call = BuildCall(l, rng);
    ExpectMeetsTheStandard(call, 128, MaxContext(l));
}

// A speculative step (SPEC mask), bf16 unless told, at head size 128, block size 16, queries times 4.
TestCall SpeculativeStep(int32_t heads, int32_t kvHeads, std::vector<int32_t> contextLens,
                         std::vector<int32_t> qSeqLen, aclDataType dtype = ACL_BF16) {
    PaParam param;
    param.headNum = heads;
    param.kvHeadNum = kvHeads;
    param.qkScale = static_cast<float>(1.0 / std::sqrt(128.0));
    param.calcType = PaParam::CALC_TYPE_SPEC;
    param.maskType = PaParam::MASK_TYPE_SPEC;
    PaShape shape;
    shape.headSize = 128;
    shape.blockSize = 16;
    shape.contextLens = std::move(contextLens);
    shape.qSeqLen = std::move(qSeqLen);
    shape.dtype = dtype;
    TestCall call = MakePaCall(param, shape);
    ScaleElements(call.In("query"), 4.0);
    return call;
}

// Steps of 4 and 3 tokens, 16 query heads per kv head (64 and 48 lanes), over contexts of 1500 and 700 keys:
// several key chunks per row block, merged in key order.
TestCall WideSpeculativeStep() {
    return SpeculativeStep(32, 2, {1500, 700}, {4, 3});
}

// Steps of 4, 5 and 3 tokens, 4 query heads per kv head (16, 20 and 12 lanes: cpu:avx512 with bf16 dot
// products and cpu:avx2 run the first two in columns, the rest in rows; cpu:avx512 with fp16 caches the
// first, whose lanes fill one vector, in columns, the others in rows), over 1500, 700 and 33 keys.
TestCall NarrowSpeculativeStep(aclDataType dtype = ACL_BF16) {
    return SpeculativeStep(16, 4, {1500, 700, 33}, {4, 5, 3}, dtype);
}

TEST_P(ColumnRunnerTest, NarrowBf16SpeculativeStepsMeetThePrecisionStandard) {
    TestCall call = NarrowSpeculativeStep();
    ExpectMeetsTheStandard(call, 128, 1500);
}

TEST_P(ColumnRunnerTest, NarrowBf16SpeculativeStepsGiveIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = NarrowSpeculativeStep();
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

TEST_P(ColumnRunnerTest, NarrowFp16SpeculativeStepsMeetThePrecisionStandard) {
    TestCall call = NarrowSpeculativeStep(ACL_FLOAT16);
    ExpectMeetsTheStandard(call, 128, 1500);
}

TEST_P(ColumnRunnerTest, NarrowFp16SpeculativeStepsGiveIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = NarrowSpeculativeStep(ACL_FLOAT16);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

// The narrow steps with a SPEC mask as models pass it: 0 where a token sees a key, -10000 where it does not,
// so that the tiles before each step's last keys hold only zero terms, which the kernels skip (in columns and
// in rows: the 5-token fp16 step on cpu:avx512, every step on cpu:scalar, the 3-token steps everywhere). In
// the first two steps, token 1 gets a term of +100 at key 100 (a tile whose other rows are all zero: its
// weight then outweighs the other keys'), and in the first, token 2 a term of -0 at key 40 (a zero as well).
TestCall ModelMaskSpeculativeStep(aclDataType dtype) {
    TestCall call = NarrowSpeculativeStep(dtype);
    io::HostTensor& mask = call.In("mask");
    const int64_t keys = mask.desc.shape.dims[1];
    for (int64_t i = 0; i < ElementCount(mask); ++i) {
        const double term = plan::LoadElement(mask.bytes.data(), mask.desc.dtype, i);
        plan::StoreElement(mask.bytes.data(), mask.desc.dtype, i, term < -1.0 ? term : 0.0);
    }
    SetElement(mask, 1 * keys + 100, 100.0);
    SetElement(mask, 2 * keys + 40, -0.0);
    SetElement(mask, 5 * keys + 100, 100.0);  // token 1 of the 5-token step
    return call;
}

TEST_P(ColumnRunnerTest, SpeculativeStepsUnderAModelsMaskMeetThePrecisionStandard) {
    for (const aclDataType dtype : {ACL_BF16, ACL_FLOAT16}) {
        SCOPED_TRACE(dtype == ACL_BF16 ? "bf16" : "fp16");
        TestCall call = ModelMaskSpeculativeStep(dtype);
        ExpectMeetsTheStandard(call, 128, 1500);
    }
}

TEST_P(ColumnRunnerTest, SpeculativeStepsOverSeveralChunksMeetThePrecisionStandard) {
    TestCall call = WideSpeculativeStep();
    ExpectMeetsTheStandard(call, 128, 1500);
}

TEST_P(ColumnRunnerTest, SpeculativeStepsOverSeveralChunksGiveIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = WideSpeculativeStep();
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

// A causal prefill of 300 tokens as models pass its tile (hidden keys -10000, weight exactly 0), with +inf at
// token 200 of kv head 1 and NaN at token 250 of kv head 0 in `tensor` ("key" or "value").
TestCall CausalWithNonFinite(aclDataType dtype, const char* tensor) {
    SaParam p = Encoder(SaParam::MASK_TYPE_NORM_COMPRESS);
    p.isTriuMask = 1;
    TestCall call = MakeSaCall(p, MakeSaShape(128, {300}, dtype));
    UseModelMaskTile(call);
    SetElement(call.In(tensor), (200 * 2 + 1) * 128 + 5, INFINITY);
    SetElement(call.In(tensor), (250 * 2 + 0) * 128 + 9, NAN);
    return call;
}

// The path's output has the reference's classes (finite, inf, NaN), some of them finite and some NaN.
void ExpectTheReferencesClasses(TestCall& call, const char* path) {
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const std::string expected = OutputClasses(call);
    ASSERT_NE(expected.find('f'), std::string::npos);
    ASSERT_NE(expected.find('n'), std::string::npos);
    const RunResult run = Execute(call, Backend::kCpu, 2, path);
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    EXPECT_EQ(OutputClasses(call), expected);
}

// Values: rows before each token weigh it 0, so it must take no part there (inf * 0 would make them NaN);
// rows from it on are not finite.
TEST_P(ColumnRunnerTest, ValuesNotFiniteTakeNoPartWhereTheirWeightIsZero) {
    TestCall call = CausalWithNonFinite(ACL_FLOAT16, "value");
    ExpectTheReferencesClasses(call, Path());
}

// bf16 keys: where the CPU takes Q.K by bf16 dot products, such tiles are computed again in fp32.
TEST_P(ColumnRunnerTest, KeysNotFiniteGiveTheReferencesClasses) {
    TestCall call = CausalWithNonFinite(ACL_BF16, "key");
    ExpectTheReferencesClasses(call, Path());
}

// bf16 queries and keys up to 1e19 with qkScale 2.5e-38: the raw dots overflow fp32 where the scaled logits
// (about ±10) do not. The fp32 product scales the query first; bf16 dot products must hand such tiles to it.
TEST_P(ColumnRunnerTest, RawDotsBeyondFloatRangeMeetThePrecisionStandard) {
    SaParam p = Encoder(SaParam::MASK_TYPE_UNDEFINED);
    p.qkScale = 2.5e-38f;
    TestCall call = MakeSaCall(p, MakeSaShape(128, {300}, ACL_BF16));
    ScaleElements(call.In("query"), 1e19);
    ScaleElements(call.In("key"), 1e19);
    ExpectMeetsTheStandard(call, 128, 300);
}

// A causal int8 QKV prefill of the given lengths (the model's mask tile), queries and outputs of `out`.
TestCall Int8QkvPrefill(SaParam::QuantType quant, aclDataType out, std::vector<int32_t> lengths) {
    SaParam p = Encoder(SaParam::MASK_TYPE_NORM_COMPRESS);
    p.isTriuMask = 1;
    p.quantType = quant;
    p.outDataType = out;
    TestCall call = MakeSaCall(p, MakeSaShape(128, std::move(lengths), out));
    UseModelMaskTile(call);
    return call;
}

// int8 QKV prefills (on cpu:avx2 and cpu:avx512 by int16 pair products in columns; an odd last tile of 45
// keys), both P quantisations, causal.
TEST_P(ColumnRunnerTest, Int8QkvPrefillsMeetThePrecisionStandard) {
    for (const auto quant : {SaParam::TYPE_QUANT_QKV_ONLINE, SaParam::TYPE_QUANT_QKV_OFFLINE}) {
        SCOPED_TRACE(quant == SaParam::TYPE_QUANT_QKV_ONLINE ? "online" : "offline");
        TestCall call = Int8QkvPrefill(quant, ACL_BF16, {301, 129, 1});
        ExpectMeetsTheStandard(call, 128, 301);
    }
}

// An int8 QKV decode step of 36 query heads on one kv head (MLA-like wide lanes, in columns on cpu:avx2 and
// cpu:avx512) over 4097 and 1500 keys, which the schedule splits into key chunks merged in a fixed order.
TEST_P(ColumnRunnerTest,
       Int8QkvDecodeOverSeveralChunksMeetsTheStandardWithIdenticalBitsOnOneTwoAndThreeThreads) {
    PaParam param;
    param.headNum = 36;
    param.kvHeadNum = 1;
    param.qkScale = 0.125f;
    param.quantType = PaParam::TYPE_QUANT_QKV_ONLINE;
    param.outDataType = ACL_BF16;
    PaShape shape;
    shape.headSize = 64;
    shape.contextLens = {4097, 1500};
    shape.dtype = ACL_INT8;
    TestCall call = MakePaCall(param, shape);
    ExpectMeetsTheStandard(call, 64, 4097);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

TEST_P(ColumnRunnerTest, Int8QkvPrefillsMeetTheStandardWithIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = Int8QkvPrefill(SaParam::TYPE_QUANT_QKV_OFFLINE, ACL_FLOAT16, {301, 129, 1});
    ExpectMeetsTheStandard(call, 128, 301);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

// int8 QKV OFFLINE with a head's pScale 0: its weights of 0 have no step (0 times 1 / 0), so the reference's
// outputs of that head's rows are NaN, the other heads' finite; a path must not round the missing steps to 0.
TEST_P(ColumnRunnerTest, Int8QkvWeightsWithoutAStepGiveTheReferencesClasses) {
    TestCall call = Int8QkvPrefill(SaParam::TYPE_QUANT_QKV_OFFLINE, ACL_FLOAT16, {300});
    SetElement(call.In("pScale"), 0, 0.0);
    ExpectTheReferencesClasses(call, Path());
}

INSTANTIATE_TEST_SUITE_P(Registry, ColumnRunnerTest, testing::ValuesIn(CpuPaths()), PathName);

}  // namespace
}  // namespace atbx::test
