// PagedAttention reference, scaling (docs/spec/paged_attention.md 3.1, 3.2): GQA/MQA grouping, qkScale,
// qScale (applied only when not 0 or 1, rounded to the query dtype) and logN per original batch (fp32 on ND,
// fp16 on NZ). Expected values come from the formula written here over the logical data
// (support/pa_logical.h).
#include <gtest/gtest.h>

#include "core/str_cat.h"

#include "plan/element.h"
#include "support/pa_logical.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

struct GroupCase {
    int32_t heads, kvHeads;
    int64_t headDim, blockSize;
    std::vector<int32_t> lens;
    aclDataType dtype;
    PaLayout layout;
};

void PrintTo(const GroupCase& c, std::ostream* out) {
    *out << core::StrCat("H", c.heads, "_Hk", c.kvHeads, "_D", c.headDim,
                         c.dtype == ACL_BF16 ? "_bf16" : "_fp16",
                         c.layout == PaLayout::kBnsd ? "_bnsd" : "_bsnd");
}

class PaGroupTest : public testing::TestWithParam<GroupCase> {};

TEST_P(PaGroupTest, DecodeIsSoftmaxOfScaledScoresTimesValues) {
    const GroupCase& g = GetParam();
    std::mt19937_64 rng(100 + g.heads * 7 + g.kvHeads);
    PaLogical l = DecodeLogical(g.heads, g.kvHeads, g.headDim, g.blockSize, g.lens, g.dtype);
    l.layout = g.layout;
    l.param.inputLayout = g.layout == PaLayout::kBnsd ? infer::TYPE_BNSD : infer::TYPE_BSND;
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, {}));
    ExpectCpuPaths(call, g.headDim, MaxContext(l));
}

INSTANTIATE_TEST_SUITE_P(
    Groups, PaGroupTest,
    testing::Values(GroupCase{3, 3, 24, 16, {5, 19}, ACL_FLOAT16, PaLayout::kBsnd},           // MHA
                    GroupCase{6, 2, 40, 16, {33, 1, 16}, ACL_BF16, PaLayout::kBsnd},          // GQA 3
                    GroupCase{16, 1, 16, 32, {47, 2}, ACL_FLOAT16, PaLayout::kBnsd},          // MQA 16
                    GroupCase{17, 1, 8, 16, {18}, ACL_BF16, PaLayout::kBnsd},                 // MQA 17, odd
                    GroupCase{12, 4, 24, 48, {97, 0, 3, 48}, ACL_FLOAT16, PaLayout::kBsnd}),  // skipped batch
    testing::PrintToStringParamName());

// logit = qkScale * q'.K with q' = round_dtype(q * qScale) when qScale is not 0 or 1, else q.
void CheckQScale(float qScale, aclDataType dtype) {
    std::mt19937_64 rng(200 + static_cast<uint64_t>(qScale * 10));
    PaLogical l = DecodeLogical(4, 2, 24, 16, {21, 9}, dtype);
    l.param.qScale = qScale;
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    const bool applied = qScale != 0.0f && qScale != 1.0f;
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        double dot = 0.0;
        for (int64_t c = 0; c < l.headDim; ++c) {
            const double q = l.Query(at.row, at.h, c);
            const double scaled = applied ? plan::RoundToDtype(q * qScale, dtype) : q;
            dot += scaled * l.Key(at.sequence, at.j, at.cacheHead, c);
        }
        return l.param.qkScale * dot;
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

TEST(PaQScale, AppliedAndRoundedToFp16) {
    CheckQScale(0.37f, ACL_FLOAT16);
}
TEST(PaQScale, AppliedAndRoundedToBf16) {
    CheckQScale(1.7f, ACL_BF16);
}
TEST(PaQScale, ZeroMeansOff) {
    CheckQScale(0.0f, ACL_FLOAT16);
}
TEST(PaQScale, OneMeansOff) {
    CheckQScale(1.0f, ACL_BF16);
}

TEST(PaQkScale, MultipliesTheScoreBeforeTheMask) {
    std::mt19937_64 rng(210);
    PaLogical l = DecodeLogical(4, 4, 16, 16, {30, 12}, ACL_FLOAT16);
    l.param.qkScale = 0.61f;
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    // NORM [B, 1, S]: an additive term the scale must not touch.
    const std::vector<double> mask = RandomValues(ACL_FLOAT16, 2 * 30, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {2, 1, 30}, mask);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return 0.61f * Dot(l, at) + mask[at.b * 30 + at.j]; };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// logit = qkScale * logN[b] * q.K with b the original batch: batch 1 is skipped, so batch 2 takes query row 1
// but logN[2].
TEST(PaLogN, Fp32OnNdIndexedByOriginalBatch) {
    std::mt19937_64 rng(220);
    PaLogical l = DecodeLogical(6, 3, 32, 16, {40, 0, 17, 5}, ACL_BF16);
    l.param.scaleType = Param::SCALE_TYPE_LOGN;
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const std::vector<double> logN = RandomValues(ACL_FLOAT, 4, 1, 2, rng);
    const std::vector<double> mask = RandomValues(ACL_BF16, 4 * 40, -3, 0, rng);
    l.extra["logN"] = ValuesTensor(ACL_FLOAT, {4}, logN);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {4, 1, 40}, mask);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        return l.param.qkScale * logN[at.b] * Dot(l, at) + mask[at.b * 40 + at.j];
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

TEST(PaLogN, Fp16OnNzCaches) {
    std::mt19937_64 rng(230);
    PaLogical l = DecodeLogical(4, 4, 32, 32, {70, 33, 1}, ACL_FLOAT16);
    l.platform = Platform::kAtlasInference;
    l.layout = PaLayout::kNz;
    l.param.scaleType = Param::SCALE_TYPE_LOGN;
    FillRandom(l, rng);
    const std::vector<double> logN = RandomValues(ACL_FLOAT16, 3, 1, 2, rng);
    l.extra["logN"] = ValuesTensor(ACL_FLOAT16, {3}, logN);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * logN[at.b] * Dot(l, at); };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

}  // namespace
}  // namespace atbx::test
