// Every CPU attention path of the registry, forced in turn in-process, against the float64 reference on odd
// sizes (partial last blocks, GQA ratios 1 to 16, batch 1 and 33, contexts 1 to 4097, speculative steps of 1
// to 16 tokens, head sizes 64 to 256, groups wider than a task, dequantised int8 caches), bitwise identical
// on 1, 2 and 3 threads, a second Execute with other queries on the same workspace, and the numeric semantics
// of docs/decisions.md (NaN, fully hidden rows, overflow) on every backend; every Execute on a workspace of
// NaNs (support/run_call.h). A path this CPU lacks is skipped with the missing feature named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/str_cat.h"
#include "support/cpu_path_fixture.h"
#include "support/pa_calls.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

struct PathCase {
    std::string name;
    int32_t heads, kvHeads, headSize;
    PaShape shape;
    Param::CalcType calcType = Param::CALC_TYPE_UNDEFINED;
    bool dequantWithOffsets = false;         // int8 caches, DEQUANT_FUSION with offsets
    Platform platform = Platform::kAtlasA2;  // kAtlasInference: FRACTAL_NZ caches
};

PaShape Shape(int32_t headSize, int32_t blockSize, std::vector<int32_t> lens, aclDataType dtype,
              std::vector<int32_t> qSeqLen = {}) {
    PaShape shape;
    shape.headSize = headSize;
    shape.blockSize = blockSize;
    shape.contextLens = std::move(lens);
    shape.qSeqLen = std::move(qSeqLen);
    shape.dtype = dtype;
    return shape;
}

// 33 sequences of lengths 1 to 97.
std::vector<int32_t> ManyLengths() {
    std::vector<int32_t> lens;
    for (int32_t b = 0; b < 33; ++b)
        lens.push_back(1 + (b * 37) % 97);
    return lens;
}

// 16 sequences of lengths 1501 to 2000.
std::vector<int32_t> LongLengths() {
    std::vector<int32_t> lens;
    for (int32_t b = 0; b < 16; ++b)
        lens.push_back(2000 - (b * 131) % 500);
    return lens;
}

std::vector<PathCase> Cases() {
    return {
        {"gqa7_head72_long", 14, 2, 72, Shape(72, 16, {1, 17, 4097}, ACL_FLOAT16)},
        {"gqa16_head128_batch33", 16, 1, 128, Shape(128, 16, ManyLengths(), ACL_BF16)},
        {"gqa3_head256", 3, 1, 256, Shape(256, 32, {17, 100}, ACL_BF16)},
        {"gqa1_head64", 4, 4, 64, Shape(64, 16, {40, 1}, ACL_FLOAT16)},
        {"gqa4_batch1_long", 8, 2, 128, Shape(128, 128, {4097}, ACL_BF16)},
        // More query heads per kv head than a task's lanes (as MLA's 128), over several key chunks.
        {"gqa96_head64_wide_group", 96, 1, 64, Shape(64, 16, {600, 3}, ACL_FLOAT16)},
        // 16 sequences of up to 2000 keys over 8 kv heads: 128 row blocks, so keys are cut into chunks of
        // 1024 (kernel_call.cpp, ChunkKeys), two kKvChunk each.
        {"gqa4_batch16_chunks_of_1024", 32, 8, 128, Shape(128, 128, LongLengths(), ACL_FLOAT16)},
        // Dequantised int8 caches over several key chunks (partial states merged).
        {"dequant_offsets_long", 8, 2, 128, Shape(128, 16, {1100, 5}, ACL_BF16), Param::CALC_TYPE_UNDEFINED,
         true},
        // Head size 72 ends inside a vector on AVX-512: the last 8 channels of each query take their key
        // scales one by one.
        {"dequant_offsets_head72", 14, 2, 72, Shape(72, 16, {300, 17}, ACL_FLOAT16),
         Param::CALC_TYPE_UNDEFINED, true},
        // 32 query heads per kv head: cpu:amx runs the kv heads of a task side by side on tiles.
        {"gqa32_kv_heads_side_by_side", 64, 2, 128, Shape(128, 16, {700, 33}, ACL_FLOAT16)},
        {"spec2_gqa16_kv_heads_side_by_side", 64, 4, 128, Shape(128, 16, {300, 40}, ACL_BF16, {2, 2}),
         Param::CALC_TYPE_SPEC},
        {"spec_1_to_16", 8, 2, 128, Shape(128, 16, {30, 20, 40, 16}, ACL_FLOAT16, {1, 16, 5, 16}),
         Param::CALC_TYPE_SPEC},
        // 16 query heads per kv head: items of 9 to 32 lanes read cache rows in place on cpu:avx512 (int8
        // values with their folded dequantisation, FRACTAL_NZ channel tiles), staged elsewhere.
        {"dequant_gqa16_in_place", 32, 2, 128, Shape(128, 16, {300, 17}, ACL_FLOAT16),
         Param::CALC_TYPE_UNDEFINED, true},
        {"nz_gqa16_in_place", 32, 2, 128, Shape(128, 16, {300, 17}, ACL_FLOAT16), Param::CALC_TYPE_UNDEFINED,
         false, Platform::kAtlasInference},
    };
}

TestCall MakeCall(const PathCase& c) {
    Param param;
    param.headNum = c.heads;
    param.kvHeadNum = c.kvHeads;
    param.qkScale = static_cast<float>(1.0 / std::sqrt(c.headSize));
    param.calcType = c.calcType;
    if (c.calcType == Param::CALC_TYPE_SPEC) param.maskType = Param::MASK_TYPE_SPEC;
    if (c.dequantWithOffsets) {
        param.quantType = Param::TYPE_DEQUANT_FUSION;
        param.hasQuantOffset = true;
    }
    return MakePaCall(param, c.shape, c.platform);
}

int64_t MaxLength(const PaShape& shape) {
    return *std::max_element(shape.contextLens.begin(), shape.contextLens.end());
}

class CpuPathTest : public CpuPathFixture {};

TEST_P(CpuPathTest, MeetsThePrecisionStandardOnOddSizes) {
    for (const PathCase& c : Cases()) {
        SCOPED_TRACE(c.name);
        TestCall call = MakeCall(c);
        const std::vector<double> reference = ReferenceResult(call);
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, GetParam());
        EXPECT_EQ(PrecisionFailure(call, reference, c.headSize, MaxLength(c.shape)), "");
    }
}

// The first case, and one whose tasks group kv heads (how many depends on the thread count).
TEST_P(CpuPathTest, OneTwoAndThreeThreadsGiveIdenticalBits) {
    for (const PathCase& c : Cases()) {
        if (c.name != Cases()[0].name && c.name != "gqa32_kv_heads_side_by_side") continue;
        SCOPED_TRACE(c.name);
        TestCall call = MakeCall(c);
        ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
    }
}

// A query the kernels take element by element (here with a qScale) is kept per thread between the key chunks
// of a row block (QueryTag): a second Execute on the same workspace with other queries takes its own. One
// sequence of 1500 keys over one kv head: every task (3 key chunks) is of the same row block, so each thread
// starts the second Execute on the row block it ended the first with.
TEST_P(CpuPathTest, EachExecuteTakesItsOwnScaledQueries) {
    Param param;
    param.headNum = 8;
    param.kvHeadNum = 1;
    param.qkScale = 0.125f;
    param.qScale = 0.5f;
    TestCall call = MakePaCall(param, Shape(64, 16, {1500}, ACL_FLOAT16));
    const Status status =
        ExecuteTwiceOnOneWorkspace(call, Path(), [](TestCall& c) { ScaleElements(c.In("query"), -3.0); });
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(PrecisionFailure(call, ReferenceResult(call), 64, 1500), "");
}

INSTANTIATE_TEST_SUITE_P(Registry, CpuPathTest, testing::ValuesIn(CpuPaths()), PathName);

// ---- Numeric semantics (docs/decisions.md): the same class of result on every backend and path.

constexpr uint16_t kHalfNaN = 0x7E00;
constexpr uint16_t kHalfNegInf = 0xFC00;

// 8 query heads on 2 kv heads, head size 64 unless named, fp16, two sequences.
TestCall SmallDecode(Param param = {}, int32_t headSize = 64) {
    param.headNum = 8;
    param.kvHeadNum = 2;
    param.qkScale = 0.125f;
    return MakePaCall(param, Shape(headSize, 16, {40, 17}, ACL_FLOAT16));
}

// Element offset of (position j, kv head, channel c) of sequence b in the BSND cache.
int64_t CacheOffset(TestCall& call, int64_t b, int64_t j, int64_t kvHead, int64_t c) {
    io::HostTensor& table = call.In("blockTables");
    const int64_t width = table.desc.shape.dims[1];
    const int64_t blockSize = call.In("keyCache").desc.shape.dims[1];
    const int64_t headSize = call.In("keyCache").desc.shape.dims[3];
    const int64_t slot = Elements<int32_t>(table)[b * width + j / blockSize] * blockSize + j % blockSize;
    return (slot * 2 + kvHead) * headSize + c;
}

void SetHalf(io::HostTensor& tensor, int64_t offset, uint16_t bits) {
    Elements<uint16_t>(tensor)[offset] = bits;
}

// Runs the call on the reference and on every CPU path here; each must give `expected` row classes.
void ExpectRowClasses(TestCall& call, const std::string& expected) {
    const int64_t headSize = call.In("query").desc.shape.dims[2];
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    EXPECT_EQ(RowClasses(call, headSize), expected) << "reference";
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(RowClasses(call, headSize), expected) << path;
    }
}

TEST(NumericSemantics, NaNInAQueryMakesItsRowNaN) {
    TestCall call = SmallDecode();
    SetHalf(call.In("query"), (1 * 8 + 5) * 64 + 7, kHalfNaN);  // sequence 1, head 5
    ExpectRowClasses(call,
                     "ffffffff"
                     "fffffnff");
}

TEST(NumericSemantics, NaNInAKeyMakesTheRowsOfItsKvHeadNaN) {
    TestCall call = SmallDecode();
    SetHalf(call.In("keyCache"), CacheOffset(call, 0, 33, 1, 3), kHalfNaN);  // sequence 0, kv head 1
    ExpectRowClasses(call,
                     "ffffnnnn"
                     "ffffffff");
}

TEST(NumericSemantics, NaNInAValueMakesTheRowsOfItsKvHeadNaN) {
    TestCall call = SmallDecode();
    SetHalf(call.In("valueCache"), CacheOffset(call, 1, 16, 0, 60), kHalfNaN);  // sequence 1, kv head 0
    ExpectRowClasses(call,
                     "ffffffff"
                     "nnnnffff");
}

// Head size 72 ends inside a vector on AVX-512: the output's NaN check takes the last 8 channels one by one.
TEST(NumericSemantics, NaNInTheLastChannelOfAValueMakesTheRowsOfItsKvHeadNaN) {
    TestCall call = SmallDecode({}, 72);
    SetHalf(call.In("valueCache"), CacheOffset(call, 1, 3, 1, 71), kHalfNaN);  // sequence 1, kv head 1
    ExpectRowClasses(call,
                     "ffffffff"
                     "ffffnnnn");
}

TEST(NumericSemantics, NaNPastTheContextIsNeverRead) {
    TestCall call = SmallDecode();
    SetHalf(call.In("keyCache"), CacheOffset(call, 1, 17, 0, 0),
            kHalfNaN);  // position 17 of a 17-key context
    SetHalf(call.In("valueCache"), CacheOffset(call, 1, 18, 1, 0), kHalfNaN);
    ExpectRowClasses(call, std::string(16, 'f'));
}

TEST(NumericSemantics, ARowWhoseEveryKeyIsHiddenByMinusInfIsNaN) {
    Param param;
    param.maskType = Param::MASK_TYPE_NORM;
    TestCall call = SmallDecode(param);
    io::HostTensor& mask = call.In("mask");  // [2, 1, S]
    const int64_t columns = mask.desc.shape.dims[2];
    for (int64_t j = 0; j < columns; ++j)
        SetHalf(mask, j, kHalfNegInf);     // sequence 0 sees nothing
    SetHalf(mask, columns + 3, kHalfNaN);  // a NaN term in sequence 1
    ExpectRowClasses(call, std::string(16, 'n'));
}

TEST(NumericSemantics, ScoresBeyondFloatRangeGiveNaNRowsEverywhere) {
    Param param;
    TestCall call = SmallDecode(param);
    call.Param<Param>().qkScale = 3e38f;  // q.k * qkScale overflows fp32 for every key
    ExpectRowClasses(call, std::string(16, 'n'));
}

// bf16 values near the dtype's maximum: softmax-weighted sums stay in range, so every row is finite and meets
// the precision standard on every path (fp32 sums of such values would overflow without care).
TEST(NumericSemantics, ValuesNearTheBf16MaximumGiveFiniteRows) {
    Param param;
    param.headNum = 8;
    param.kvHeadNum = 2;
    param.qkScale = 0.125f;
    TestCall call = MakePaCall(param, Shape(64, 16, {40, 17}, ACL_BF16));
    ScaleLargestTo(call.In("valueCache"), 3e38);
    const std::vector<double> reference = ReferenceResult(call);
    ExpectRowClasses(call, std::string(16, 'f'));
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        ASSERT_TRUE(Execute(call, Backend::kCpu, 2, path.c_str()).status.ok());
        EXPECT_EQ(PrecisionFailure(call, reference, 64, 40), "") << path;
    }
}

}  // namespace
}  // namespace atbx::test
