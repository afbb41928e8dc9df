// PagedAttention reference, MLA (docs/spec/paged_attention.md 3.9): the combined cache (V = the first
// mlaVHeadSize channels of K, no valueCache), split caches whose K and V head sizes differ (up to 576), and
// MLA with parallel decoding (MTP). The expected values are written here over the logical data.
#include <gtest/gtest.h>

#include "core/str_cat.h"

#include "support/pa_logical.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

PaLogical Combined(int32_t heads, int64_t dk, int64_t dv, std::vector<int32_t> lens, aclDataType dtype) {
    PaLogical l = DecodeLogical(heads, 1, dk, 16, std::move(lens), dtype);
    l.param.mlaVHeadSize = static_cast<uint32_t>(dv);
    l.headDimV = dv;
    return l;
}

// out = softmax(qkScale * q.K) . K[:, :Dv]
PaFormula CombinedFormula(const PaLogical& l) {
    PaFormula f;
    f.value = [&](const PaIndex& at, int64_t c) { return l.Key(at.sequence, at.j, 0, c); };
    return f;
}

TEST(PaMla, CombinedCacheReadsVFromK) {
    std::mt19937_64 rng(500);
    PaLogical l = Combined(3, 576, 512, {37, 5, 16}, ACL_FLOAT16);
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, CombinedFormula(l)));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

TEST(PaMla, CombinedCacheWithVEqualToK) {
    std::mt19937_64 rng(501);
    PaLogical l = Combined(2, 96, 96, {23}, ACL_BF16);
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, CombinedFormula(l)));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// bf16 NORM [B, 1, S] masks are additive on the MLA decode kernel (only MTP reads bf16 flags).
TEST(PaMla, CombinedCacheWithAdditiveNormMask) {
    std::mt19937_64 rng(502);
    PaLogical l = Combined(8, 192, 128, {40, 3, 17}, ACL_BF16);
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t cols = 40;
    const std::vector<double> m = RandomValues(ACL_BF16, 3 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {3, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f = CombinedFormula(l);
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at) + m[at.b * cols + at.j]; };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// Dynamic batch: batchRunStatus 0 skips a batch like contextLens 0 does; rows are packed.
TEST(PaMla, CombinedCacheWithBatchRunStatus) {
    std::mt19937_64 rng(503);
    PaLogical l = Combined(4, 64, 48, {30, 0, 12, 9}, ACL_FLOAT16);
    l.param.batchRunStatusEnable = true;
    l.batchRunStatus = {1, 0, 0, 1};  // batch 2 has a context but does not run
    FillRandom(l, rng);
    ASSERT_EQ(l.Tokens(), 2);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, CombinedFormula(l)));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

struct SplitCase {
    int32_t heads, kvHeads;
    int64_t dk, dv;
};

void PrintTo(const SplitCase& c, std::ostream* out) {
    *out << core::StrCat("H", c.heads, "_Hk", c.kvHeads, "_Dk", c.dk, "_Dv", c.dv);
}

class PaSplitCacheTest : public testing::TestWithParam<SplitCase> {};

TEST_P(PaSplitCacheTest, VHasItsOwnHeadSize) {
    const SplitCase& sc = GetParam();
    std::mt19937_64 rng(510 + sc.dk);
    PaLogical l = DecodeLogical(sc.heads, sc.kvHeads, sc.dk, 16, {26, 1, 40});
    l.headDimV = sc.dv;
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, {}));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

INSTANTIATE_TEST_SUITE_P(Heads, PaSplitCacheTest,
                         testing::Values(SplitCase{4, 1, 576, 512}, SplitCase{4, 2, 288, 100},
                                         SplitCase{3, 3, 40, 72}, SplitCase{2, 1, 192, 576}),
                         testing::PrintToStringParamName());

// MTP without a mask: every query row of batch b sees all L_b keys.
TEST(PaMla, MultiTokenPredictionWithoutMask) {
    std::mt19937_64 rng(520);
    PaLogical l = Combined(4, 192, 128, {50, 20, 9}, ACL_FLOAT16);
    l.param.calcType = Param::CALC_TYPE_SPEC;
    l.qSeqLen = {11, 20, 1};
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, CombinedFormula(l)));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

}  // namespace
}  // namespace atbx::test
