// PagedAttention reference, parallel / speculative decoding (docs/spec/paged_attention.md 3.6, 3.10): qSeqLen
// rows per batch packed over the batches that run, query i of batch b at position L_b - q_b + i, batches with
// q_b == 1 on the same math. The expected values are written here.
#include <gtest/gtest.h>

#include "plan/element.h"
#include "support/pa_logical.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

PaLogical Spec(PaLogical l, std::vector<int32_t> qSeqLen) {
    l.param.calcType = Param::CALC_TYPE_SPEC;
    l.qSeqLen = std::move(qSeqLen);
    return l;
}

// A square causal NORM mask [S, S] with -10000 above the diagonal and random small values elsewhere.
std::vector<double> SquareMask(int64_t s, std::mt19937_64& rng) {
    std::vector<double> m = RandomValues(ACL_FLOAT16, s * s, -1, 1, rng);
    for (int64_t r = 0; r < s; ++r)
        for (int64_t c = r + 1; c < s; ++c)
            m[r * s + c] = -10000.0;
    return m;
}

// Batch 1 has no query rows (qSeqLen 0) and batch 3 no context: neither takes a query or output row.
TEST(PaSpec, RowsArePackedOverTheBatchesThatRun) {
    std::mt19937_64 rng(400);
    PaLogical l = Spec(DecodeLogical(8, 2, 24, 16, {21, 15, 47, 0, 6}), {4, 0, 11, 3, 1});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    ASSERT_EQ(l.Tokens(), 16);
    const int64_t s = 47;
    const std::vector<double> m = SquareMask(s, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {s, s}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        const int64_t position = l.contextLens[at.b] - l.qSeqLen[at.b] + at.i;
        return l.param.qkScale * Dot(l, at) + m[position * s + at.j];
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// Every batch with q_b == 1 next to one long speculative batch, bf16.
TEST(PaSpec, SingleTokenBatchesUseTheSameMath) {
    std::mt19937_64 rng(401);
    PaLogical l = Spec(DecodeLogical(4, 4, 32, 32, {1, 65, 30, 33}, ACL_BF16), {1, 1, 30, 1});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t s = 65;
    std::vector<double> m = SquareMask(s, rng);
    for (double& v : m)
        v = plan::RoundToDtype(v, ACL_BF16);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {s, s}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        return l.param.qkScale * Dot(l, at) + m[(l.contextLens[at.b] - l.qSeqLen[at.b] + at.i) * s + at.j];
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// Atlas inference allows SPEC without a mask: every query row sees all L_b keys.
TEST(PaSpec, NoMaskOnAtlasInferenceSeesEveryKey) {
    std::mt19937_64 rng(402);
    PaLogical l = Spec(DecodeLogical(2, 2, 16, 16, {40, 19, 7}), {9, 19, 2});
    l.platform = Platform::kAtlasInference;
    l.layout = PaLayout::kNz;
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, {}));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

}  // namespace
}  // namespace atbx::test
