// SelfAttention prefills on every CPU path of the registry, forced in turn, with the compressed causal and
// sliding-window tiles as models pass them: hidden keys take a finite term (-10000 in fp16, flags times -3e38
// in bf16), and each path skips the keys such a term hides from a whole row block only where a norm bound
// proves they weigh exactly 0 (docs/decisions.md). Against the float64 reference under the precision
// standard; scores large enough that the term no longer hides anything; a NaN key above the diagonal; a
// prefix beyond L2 (wide row blocks); bitwise identical results on 1, 2 and 3 threads. A path this CPU lacks
// is skipped with the missing feature named.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_call.h"
#include "plan/element.h"
#include "support/cpu_path_fixture.h"
#include "support/run_call.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;

Param Encoder(Param::MaskType mask, uint32_t window = 0) {
    Param p = PaEncoderParam();
    p.headNum = 8;
    p.kvHeadNum = 2;
    p.maskType = mask;
    p.isTriuMask = mask == Param::MASK_TYPE_NORM_COMPRESS ? 1 : 0;
    p.windowSize = window;
    return p;
}

// A causal prefill (lengths 300, 129 and 1, head size 128) or a sliding-window one (window 100, lengths 400
// and 33, head size 64), its mask tile as models pass it.
TestCall ModelPrefill(bool window, aclDataType dtype) {
    TestCall call =
        window ? MakeSaCall(Encoder(Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS, 100),
                            MakeSaShape(64, {400, 33}, dtype))
               : MakeSaCall(Encoder(Param::MASK_TYPE_NORM_COMPRESS), MakeSaShape(128, {300, 129, 1}, dtype));
    UseModelMaskTile(call, window ? 100 : 0);
    return call;
}

// One 1100-token sequence among 38 one-token ones over one kv head (GQA 8, head size 64, causal): 138 + 38
// row blocks of 8 rows, fewer than kUnchunkedRowBlocks, so the schedule cuts each row block's keys into two
// chunks of 1024 keys (kernel_call.cpp, ChunkKeys): tasks longer than kKvChunk whose partial states are
// merged.
TestCall LongChunkPrefill(aclDataType dtype) {
    Param p = Encoder(Param::MASK_TYPE_NORM_COMPRESS);
    p.kvHeadNum = 1;
    std::vector<int32_t> lengths(39, 1);
    lengths[0] = 1100;
    TestCall call = MakeSaCall(p, MakeSaShape(64, lengths, dtype));
    UseModelMaskTile(call, 0);
    return call;
}

// A 20-token PREFIX_ENCODER prefill (causal, GQA 4 over one kv head, head size 64) after a prefix whose keys,
// converted to fp32 (512 bytes a key and its value), take twice this core's L2: its 80 lanes are two row
// blocks of kMaxLanes lanes, or one wide one (kernel_call.h, RowBlockWidth) on every path but cpu:amx.
TestCall LongPrefixPrefill(aclDataType dtype) {
    const auto keys = static_cast<int32_t>(2 * kernels::cpu::Level2CacheBytes() / 512);
    Param p = PrefixParam(Param::MASK_TYPE_CAUSAL_MASK);
    p.headNum = 4;
    p.kvHeadNum = 1;
    SaShape s = MakeSaShape(64, {20}, dtype);
    s.kvSeqLen = {(keys + 127) / 128 * 128 + 20};
    return MakeSaCall(p, s);
}

// A causal prefill (lengths 300, 129 and 1, head size 128) with the full NORM mask models often pass in place
// of the compressed tile: [rows, cols], 0 on and below the diagonal, -10000 (fp16) or the flag 1 (bf16) above
// it, which the planner decodes to the causal mask it holds (plan/mask_causal_form.h); with a window, the
// SLIDING_WINDOW_NORM mask, hidden before the window too.
TestCall FullMaskPrefill(aclDataType dtype, uint32_t window = 0) {
    const Param p =
        window > 0 ? Encoder(Param::MASK_TYPE_SLIDING_WINDOW_NORM, window) : Encoder(Param::MASK_TYPE_NORM);
    TestCall call = MakeSaCall(p, MakeSaShape(128, {300, 129, 1}, dtype));
    io::HostTensor& mask = call.In("attentionMask");
    const int64_t rows = mask.desc.shape.dims[0], cols = mask.desc.shape.dims[1];
    const double masked = dtype == ACL_BF16 ? 1.0 : -10000.0;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            const bool hidden = c > r || (window > 0 && c <= r - window);
            plan::StoreElement(mask.bytes.data(), mask.desc.dtype, r * cols + c, hidden ? masked : 0.0);
        }
    }
    return call;
}

// A causal prefill (lengths 300, 129 and 1, head size 128) with an ALiBi mask [H, S, S] as models pass it
// (UseModelAlibiMask: -10000 plus the bias above the diagonal in fp16, -inf in bf16), which the planner
// bounds above the diagonal (plan/mask_diagonal_bound.h) so that the paths skip what the bound proves
// weightless.
TestCall AlibiMaskPrefill(aclDataType dtype) {
    SaShape shape = MakeSaShape(128, {300, 129, 1}, dtype);
    shape.mask = SaMaskForm::kPerHead;
    TestCall call = MakeSaCall(Encoder(Param::MASK_TYPE_ALIBI), shape);
    UseModelAlibiMask(call);
    return call;
}

class PrefillPathTest : public CpuPathFixture {
  protected:
    void ExpectMeetsTheStandard(TestCall& call, const std::vector<double>& reference, int64_t headSize) {
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, GetParam());
        EXPECT_EQ(PrecisionFailure(call, reference, headSize, 400), "");
    }

    // Queries and keys times 150: scores spread over some ±10000 (qkScale 1/8), so a -10000 term no longer
    // makes the hidden keys' weights 0 and the bound must keep every such key.
    void ExpectScoresBeyondTheTermKeepTheHiddenKeys(TestCall call) {
        ScaleElements(call.In("query"), 150.0);
        ScaleElements(call.In("key"), 150.0);
        ExpectMeetsTheStandard(call, ReferenceResult(call), 128);
    }

    // Token 200's key (kv head 1) made NaN: hidden from rows 0-199 by a finite term, it still makes their
    // scores NaN in the reference, so the path must give the same NaN rows (skipping it would not).
    void ExpectANaNKeyAboveTheDiagonalKeepsItsRowsNaN(TestCall& call) {
        SetElement(call.In("key"), (200 * 2 + 1) * 128 + 7, NAN);
        ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
        const std::string expected = OutputClasses(call);
        ASSERT_NE(expected.find('n'), std::string::npos);
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(OutputClasses(call), expected);
    }

    // A causal fp16 prefill of 300 tokens over one kv head (its tile as models pass it) run twice on one
    // operation and workspace (ExecuteTwiceOnOneWorkspace), change(call) between: the second call's output
    // must meet the standard against its own reference. One kv head and one sequence, so that every thread's
    // last item of the first call is the second call's first.
    void ExpectTheSecondCallMeetsTheStandard(const std::function<void(TestCall&)>& change) {
        Param p = Encoder(Param::MASK_TYPE_NORM_COMPRESS);
        p.kvHeadNum = 1;
        TestCall call = MakeSaCall(p, MakeSaShape(128, {300}, ACL_FLOAT16));
        UseModelMaskTile(call, 0);
        const Status status = ExecuteTwiceOnOneWorkspace(call, Path(), change);
        ASSERT_TRUE(status.ok()) << status.ToString();
        EXPECT_EQ(PrecisionFailure(call, ReferenceResult(call), 128, 400), "");
    }
};

TEST_P(PrefillPathTest, ModelMaskTilesMeetThePrecisionStandard) {
    for (const bool window : {false, true}) {
        for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
            SCOPED_TRACE(std::string(window ? "sliding window " : "causal ") +
                         (dtype == ACL_BF16 ? "bf16" : "fp16"));
            TestCall call = ModelPrefill(window, dtype);
            ExpectMeetsTheStandard(call, ReferenceResult(call), window ? 64 : 128);
        }
    }
}

TEST_P(PrefillPathTest, ScoresBeyondTheMaskTermKeepTheHiddenKeys) {
    ExpectScoresBeyondTheTermKeepTheHiddenKeys(ModelPrefill(false, ACL_FLOAT16));
}

// The compressed causal tile: a NaN key above the diagonal keeps its rows NaN.
TEST_P(PrefillPathTest, ANaNKeyAboveTheDiagonalIsNeverSkipped) {
    TestCall call = ModelPrefill(false, ACL_FLOAT16);
    ExpectANaNKeyAboveTheDiagonalKeepsItsRowsNaN(call);
}

// Clamp (before the mask) bounds how far two logits differ: clampMax - clampMin. Queries and keys times 150
// (scores over some ±10000, so the norm bound keeps every hidden key, as above) under clamp [-4, 4]: the
// hidden keys' logits are at most 4 - 10000, so the clamp alone proves them weightless; under clamp
// [-20000, 20000] neither bound does. Both meet the standard, fp16 and bf16 (flags: -3e38).
TEST_P(PrefillPathTest, ClampedScoresBoundTheHiddenKeysAsFarAsTheClampAllows) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        for (const float limit : {4.0f, 20000.0f}) {
            SCOPED_TRACE(std::string(dtype == ACL_BF16 ? "bf16" : "fp16") + " clamp " +
                         std::to_string(limit));
            TestCall call = ModelPrefill(false, dtype);
            auto& param = call.Param<Param>();
            param.clampType = Param::CLAMP_TYPE_MIN_MAX;
            param.clampMin = -limit;
            param.clampMax = limit;
            ExpectScoresBeyondTheTermKeepTheHiddenKeys(call);
        }
    }
}

// Under clamp a NaN key above the diagonal is still a NaN logit (clamp keeps NaN), which the finite term
// keeps: no path may skip it, whatever the clamp's span.
TEST_P(PrefillPathTest, ANaNKeyAboveTheDiagonalIsNeverSkippedUnderClamp) {
    TestCall call = ModelPrefill(false, ACL_FLOAT16);
    auto& param = call.Param<Param>();
    param.clampType = Param::CLAMP_TYPE_MIN_MAX;
    param.clampMin = -2.0f;
    param.clampMax = 2.0f;
    ExpectANaNKeyAboveTheDiagonalKeepsItsRowsNaN(call);
}

TEST_P(PrefillPathTest, FullCausalMasksMeetThePrecisionStandard) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        for (const uint32_t window : {0u, 100u}) {
            SCOPED_TRACE(std::string(dtype == ACL_BF16 ? "bf16" : "fp16") + " window " +
                         std::to_string(window));
            TestCall call = FullMaskPrefill(dtype, window);
            ExpectMeetsTheStandard(call, ReferenceResult(call), 128);
        }
    }
    ExpectScoresBeyondTheTermKeepTheHiddenKeys(FullMaskPrefill(ACL_FLOAT16));
}

TEST_P(PrefillPathTest, ANaNKeyAboveTheDiagonalOfAFullMaskIsNeverSkipped) {
    TestCall call = FullMaskPrefill(ACL_FLOAT16);
    ExpectANaNKeyAboveTheDiagonalKeepsItsRowsNaN(call);
}

TEST_P(PrefillPathTest, AlibiMasksMeetThePrecisionStandard) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(dtype == ACL_BF16 ? "bf16" : "fp16");
        TestCall call = AlibiMaskPrefill(dtype);
        ExpectMeetsTheStandard(call, ReferenceResult(call), 128);
    }
    ExpectScoresBeyondTheTermKeepTheHiddenKeys(AlibiMaskPrefill(ACL_FLOAT16));
}

// Compressed ALiBi: the distance and square-root forms, whose terms the paths read from a table of the
// distances (kernels/cpu/alibi_term_table.h), and the [H, rows, 128] tile, whose rows they read shifted by
// each 128-key tile (KernelCall::MaskRows::shiftedTileKeys; MakeSaCall fills it with random values, the
// in-tile part above the diagonal included). PA_ENCODER prefills in fp16 (HIGH_PRECISION, as ATB requires)
// and bf16, and PREFIX_ENCODER prefills after 128-token prefixes, whose rows sit at other positions.
TEST_P(PrefillPathTest, CompressedAlibiMeetsThePrecisionStandard) {
    struct Form {
        const char* name;
        Param::MaskType type;
        SaMaskForm layout;
    };
    for (const Form& form : {Form{"distance", Param::MASK_TYPE_ALIBI_COMPRESS, SaMaskForm::kShared},
                             Form{"sqrt", Param::MASK_TYPE_ALIBI_COMPRESS_SQRT, SaMaskForm::kShared},
                             Form{"[H, rows, 128]", Param::MASK_TYPE_ALIBI_COMPRESS, SaMaskForm::kPerHead}}) {
        for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
            SCOPED_TRACE(std::string(form.name) + (dtype == ACL_BF16 ? " bf16" : " fp16"));
            Param p = Encoder(form.type);
            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
            SaShape shape = MakeSaShape(128, {300, 129, 1}, dtype);
            shape.mask = form.layout;
            TestCall call = MakeSaCall(p, shape);
            ExpectMeetsTheStandard(call, ReferenceResult(call), 128);
            SaShape prefixShape = MakeSaShape(64, {37, 20, 129}, dtype);
            prefixShape.mask = form.layout;
            TestCall prefix = MakeSaCall(PrefixParam(form.type), prefixShape);
            ExpectMeetsTheStandard(prefix, ReferenceResult(prefix), 64);
        }
    }
}

TEST_P(PrefillPathTest, ANaNKeyAboveTheDiagonalOfAnAlibiMaskIsNeverSkipped) {
    TestCall call = AlibiMaskPrefill(ACL_FLOAT16);
    ExpectANaNKeyAboveTheDiagonalKeepsItsRowsNaN(call);
}

// Int8 QKV prefills (online and offline P quantisation) with the causal tile as models pass it: the tiles
// above the diagonal are skipped under the same bound, the keys' logits exact integer dots times each head's
// descale; descales 1e5 times larger put the scores beyond -10000, where the bound must keep every key.
TEST_P(PrefillPathTest, Int8QkvCausalPrefillsMeetThePrecisionStandard) {
    for (const auto quant : {Param::TYPE_QUANT_QKV_ONLINE, Param::TYPE_QUANT_QKV_OFFLINE}) {
        for (const double grow : {1.0, 1e5}) {
            SCOPED_TRACE(std::string(quant == Param::TYPE_QUANT_QKV_ONLINE ? "online" : "offline") +
                         " descale x" + std::to_string(grow));
            Param p = Encoder(Param::MASK_TYPE_NORM_COMPRESS);
            p.quantType = quant;
            p.outDataType = ACL_FLOAT16;
            TestCall call = MakeSaCall(p, MakeSaShape(128, {300, 129, 1}, ACL_FLOAT16));
            UseModelMaskTile(call, 0);
            ScaleElements(call.In("qkDescale"), grow);
            ExpectMeetsTheStandard(call, ReferenceResult(call), 128);
        }
    }
}

// Each Execute bounds the keys it reads: the tile norms one call takes above the diagonal (kept per thread
// across the row blocks of an item) do not carry over to the next call on the same operation and workspace,
// whose keys past token 200 are 30000 times larger, so that the finite term no longer hides them from rows
// under 200.
TEST_P(PrefillPathTest, EachExecuteTakesTheNormsOfItsOwnKeys) {
    ExpectTheSecondCallMeetsTheStandard([](TestCall& c) {
        io::HostTensor& key = c.In("key");
        for (int64_t i = int64_t{200} * 128; i < int64_t{300} * 128; ++i)
            SetElement(key, i, plan::LoadElement(key.bytes.data(), key.desc.dtype, i) * 30000.0);
    });
}

// Each Execute converts the keys and values it reads: the converted tiles a thread keeps across the row
// blocks of an item (kernel_call.h, KvTileTag) do not carry over to the next call on the same operation and
// workspace, whose keys are negated and values doubled.
TEST_P(PrefillPathTest, EachExecuteConvertsItsOwnKeysAndValues) {
    ExpectTheSecondCallMeetsTheStandard([](TestCall& c) {
        ScaleElements(c.In("key"), -1.0);
        ScaleElements(c.In("value"), 2.0);
    });
}

// fp16 prefills whose rows pad: head size 72 (keys and values padded to 80) and MLA 192/128, over several row
// blocks, unmasked so that every key counts. Execute's workspace is all NaNs (support/run_call.h), so a pad
// channel of a converted row left unwritten (the thread's copies of K and V tiles included) spoils the
// result.
TEST_P(PrefillPathTest, PaddedHeadSizesMeetThePrecisionStandard) {
    for (const int headSizeV : {72, 128}) {
        const int headSize = headSizeV == 72 ? 72 : 192;
        SCOPED_TRACE("head size " + std::to_string(headSize) + "/" + std::to_string(headSizeV));
        Param p = Encoder(Param::MASK_TYPE_UNDEFINED);
        if (headSize != headSizeV) {
            p.mlaVHeadSize = headSizeV;
            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
        }
        TestCall call = MakeSaCall(p, MakeSaShape(headSize, {300, 129, 1}, ACL_FLOAT16));
        ExpectMeetsTheStandard(call, ReferenceResult(call), headSizeV);
    }
}

TEST_P(PrefillPathTest, OneTwoAndThreeThreadsGiveIdenticalBits) {
    TestCall call = ModelPrefill(true, ACL_BF16);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

TEST_P(PrefillPathTest, KeyChunksOfSeveralKvChunksMeetTheStandard) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(dtype == ACL_BF16 ? "bf16" : "fp16");
        TestCall call = LongChunkPrefill(dtype);
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(PrecisionFailure(call, ReferenceResult(call), 64, 1100), "");
    }
}

TEST_P(PrefillPathTest, KeyChunksOfSeveralKvChunksGiveIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = LongChunkPrefill(ACL_FLOAT16);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

TEST_P(PrefillPathTest, PrefixesBeyondL2MeetTheStandard) {
    for (const aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(dtype == ACL_BF16 ? "bf16" : "fp16");
        TestCall call = LongPrefixPrefill(dtype);
        ExpectMeetsTheStandard(call, ReferenceResult(call), 64);
    }
}

TEST_P(PrefillPathTest, PrefixesBeyondL2GiveIdenticalBitsOnOneTwoAndThreeThreads) {
    TestCall call = LongPrefixPrefill(ACL_FLOAT16);
    ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
}

INSTANTIATE_TEST_SUITE_P(Registry, PrefillPathTest, testing::ValuesIn(CpuPaths()), PathName);

}  // namespace
}  // namespace atbx::test
