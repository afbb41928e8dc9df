// GQA decode over bf16 caches, whose P.V cpu:avx512 takes by bf16 dot products (AVX512-BF16) in the row
// runner where an item has at least 3 lanes and 256 keys: each sub-tile of 32 keys whose values are all
// finite and at most 2 in magnitude gets its weights rounded to bf16; a sub-tile with a larger value, inf or
// NaN takes the fp32 product (and so do the item's later sub-tiles of the task); a lane whose logits hold a
// NaN keeps its fp32 weights. Every CPU path of the registry, forced in turn, against the float64 reference
// under the precision standard, on GQA groups of 3, 4, 7 and 8, head sizes 64, 96 (a 64-channel and a
// 32-channel block), 128 and 256, partial last tiles and blocks of 16 and 128; bitwise identical results on
// 1, 2 and 3 threads. A path this CPU lacks is skipped with the missing feature named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "plan/element.h"
#include "support/cpu_path_fixture.h"
#include "support/pa_calls.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

struct Group {
    int32_t heads, kvHeads, headSize, blockSize;
};

// A decode step over contexts of 1100 (three key chunks) and 300 keys (and one of 17, below the bf16 P.V's
// 256) unless told, queries times 2 (logits over some ±8), values in [-2, 2].
TestCall Decode(const Group& g, Param::MaskType mask = Param::UNDEFINED,
                std::vector<int32_t> contextLens = {1100, 300, 17}) {
    Param param;
    param.headNum = g.heads;
    param.kvHeadNum = g.kvHeads;
    param.qkScale = static_cast<float>(1.0 / std::sqrt(g.headSize));
    param.maskType = mask;
    PaShape shape;
    shape.headSize = g.headSize;
    shape.blockSize = g.blockSize;
    shape.contextLens = std::move(contextLens);
    shape.dtype = ACL_BF16;
    TestCall call = MakePaCall(param, shape);
    ScaleElements(call.In("query"), 2.0);
    ScaleLargestTo(call.In("valueCache"), 2.0);
    return call;
}

// The element of the value cache (BSND) holding channel c of kv head h at key j of sequence b.
int64_t ValueIndex(TestCall& call, int64_t b, int64_t j, int64_t h, int64_t c) {
    const io::HostTensor& cache = call.In("valueCache");
    const io::HostTensor& table = call.In("blockTables");
    const int64_t blockSize = cache.desc.shape.dims[1], kvHeads = cache.desc.shape.dims[2];
    const int64_t width = table.desc.shape.dims[1];
    const auto block = static_cast<int64_t>(
        plan::LoadElement(table.bytes.data(), table.desc.dtype, b * width + j / blockSize));
    return ((block * blockSize + j % blockSize) * kvHeads + h) * cache.desc.shape.dims[3] + c;
}

class Bf16ValuesDecodeTest : public CpuPathFixture {
  protected:
    void ExpectMeetsTheStandard(TestCall& call, int64_t headSize) {
        const std::vector<double> reference = ReferenceResult(call);
        const RunResult run = Execute(call, Backend::kCpu, 2, Path());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, GetParam());
        EXPECT_EQ(PrecisionFailure(call, reference, headSize, 1100), "");
    }
};

const Group kGroups[] = {
    {12, 4, 128, 128}, {16, 4, 64, 16}, {14, 2, 96, 128}, {16, 2, 256, 16}, {32, 4, 128, 16}};

std::string Name(const Group& g) {
    return std::to_string(g.heads) + "/" + std::to_string(g.kvHeads) + " d" + std::to_string(g.headSize) +
           " bs" + std::to_string(g.blockSize);
}

TEST_P(Bf16ValuesDecodeTest, SmallValuesMeetThePrecisionStandard) {
    for (const Group& g : kGroups) {
        SCOPED_TRACE(Name(g));
        TestCall call = Decode(g);
        ExpectMeetsTheStandard(call, g.headSize);
    }
}

// GQA 32/8 over one context of 600 keys: how many kv heads a task groups depends on the thread count, and the
// bf16 P.V's sub-tiles must not.
TEST_P(Bf16ValuesDecodeTest, SmallValuesGiveIdenticalBitsOnOneTwoAndThreeThreads) {
    {
        SCOPED_TRACE(Name(kGroups[0]));
        TestCall call = Decode(kGroups[0]);
        ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
    }
    {
        SCOPED_TRACE("32/8 d128 bs128, one sequence");
        TestCall call = Decode({32, 8, 128, 128}, Param::UNDEFINED, {600});
        ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
    }
}

// Values up to 40 in magnitude everywhere: with weights rounded to bf16 the outputs, some 1e-2 of that, would
// miss the standard's bound.
TEST_P(Bf16ValuesDecodeTest, LargeValuesMeetThePrecisionStandard) {
    for (const Group& g : {kGroups[0], kGroups[2]}) {
        SCOPED_TRACE(Name(g));
        TestCall call = Decode(g);
        ScaleLargestTo(call.In("valueCache"), 40.0);
        ExpectMeetsTheStandard(call, g.headSize);
    }
}

// Values of 40 here and there (every 40009th element of the cache): the sub-tiles holding one take the fp32
// product, and the rest of their task after them.
TEST_P(Bf16ValuesDecodeTest, LargeValuesHereAndThereMeetThePrecisionStandard) {
    for (const Group& g : {kGroups[0], kGroups[2]}) {
        SCOPED_TRACE(Name(g));
        TestCall call = Decode(g);
        io::HostTensor& values = call.In("valueCache");
        for (int64_t i = 12345; i < ElementCount(values); i += 40009)
            SetElement(values, i, i % 2 == 0 ? 40.0 : -40.0);
        ExpectMeetsTheStandard(call, g.headSize);
        ExpectIdenticalBitsOnOneTwoAndThreeThreads(call, Path());
    }
}

// A NaN value at a key the NORM mask hides (-inf: weight 0) takes no part, where a bf16 product would make
// the kv head's outputs NaN; a +inf value at a visible key of another sequence makes its outputs inf or NaN,
// as the reference's.
TEST_P(Bf16ValuesDecodeTest, ValuesNotFiniteGiveTheReferencesClasses) {
    const Group g = kGroups[0];
    TestCall call = Decode(g, Param::MASK_TYPE_NORM);
    io::HostTensor& mask = call.In("mask");
    const int64_t keys = mask.desc.shape.dims[mask.desc.shape.dimNum - 1];
    SetElement(mask, 0 * keys + 500, -INFINITY);
    SetElement(call.In("valueCache"), ValueIndex(call, 0, 500, 1, 7), NAN);
    SetElement(call.In("valueCache"), ValueIndex(call, 1, 100, 2, 9), INFINITY);
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const std::string expected = OutputClasses(call);
    ASSERT_NE(expected.find('f'), std::string::npos);
    ASSERT_NE(expected.find_first_of("in"), std::string::npos);
    const RunResult run = Execute(call, Backend::kCpu, 2, Path());
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    EXPECT_EQ(OutputClasses(call), expected);
}

// A NaN query element in one head: that head's lane keeps fp32 weights (its outputs NaN, as the reference's),
// and the lanes in its register block with it take the fp32 product too.
TEST_P(Bf16ValuesDecodeTest, NanLogitsInOneHeadGiveTheReferencesClasses) {
    const Group g = kGroups[4];
    TestCall call = Decode(g);
    SetElement(call.In("query"), 5 * g.headSize + 3, NAN);  // sequence 0, head 5
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const std::string expected = RowClasses(call, g.headSize);
    ASSERT_NE(expected.find('n'), std::string::npos);
    const RunResult run = Execute(call, Backend::kCpu, 2, Path());
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    EXPECT_EQ(RowClasses(call, g.headSize), expected);
    ExpectMeetsTheStandard(call, g.headSize);
}

INSTANTIATE_TEST_SUITE_P(Registry, Bf16ValuesDecodeTest, testing::ValuesIn(CpuPaths()), PathName);

}  // namespace
}  // namespace atbx::test
