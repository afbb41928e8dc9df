// PagedAttention reference, cache layouts and skipped batches (docs/spec/paged_attention.md 2.2, 2.3, 3.10;
// DECISIONS 3): the same logical data as BSND, BNSD and FRACTAL_NZ caches gives the same output; batches with
// contextLens 0 or batchRunStatus 0 take no query or output row and leave the output untouched.
#include <gtest/gtest.h>

#include "support/pa_logical.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

TestCall AsLayout(PaLogical l, PaLayout layout, uint64_t seed) {
    std::mt19937_64 rng(seed);  // a different block shuffle per layout
    l.layout = layout;
    l.param.inputLayout = layout == PaLayout::kBnsd ? infer::TYPE_BNSD : infer::TYPE_BSND;
    if (layout == PaLayout::kNz) l.platform = Platform::kAtlasInference;
    return BuildCall(l, rng);
}

TEST(PaLayoutEquivalence, BsndBnsdAndNzGiveTheSameOutput) {
    std::mt19937_64 rng(800);
    PaLogical l = DecodeLogical(6, 2, 48, 32, {70, 1, 33, 64});
    FillRandom(l, rng);
    const std::vector<double> direct = DirectAttention(l, {});
    std::vector<std::vector<double>> results;
    for (PaLayout layout : {PaLayout::kBsnd, PaLayout::kBnsd, PaLayout::kNz}) {
        TestCall call = AsLayout(l, layout, 801 + results.size());
        ExpectReferenceMatches(call, direct);
        results.push_back(ReferenceResult(call));
    }
    for (size_t i = 0; i < direct.size(); ++i) {
        ASSERT_DOUBLE_EQ(results[0][i], results[1][i]) << "BSND vs BNSD, element " << i;
        ASSERT_DOUBLE_EQ(results[0][i], results[2][i]) << "BSND vs NZ, element " << i;
    }
}

TEST(PaLayoutBnsd, WithNormMaskAndBf16) {
    std::mt19937_64 rng(810);
    PaLogical l = DecodeLogical(8, 4, 40, 16, {18, 50, 3});
    l.dtype = l.cacheDtype = ACL_BF16;
    l.layout = PaLayout::kBnsd;
    l.param.inputLayout = infer::TYPE_BNSD;
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t cols = 50;
    const std::vector<double> m = RandomValues(ACL_BF16, 3 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {3, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at) + m[at.b * cols + at.j]; };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// block_size = head_size = 256 (BSND).
TEST(PaLayoutBsnd, BlockSize256HeadSize256) {
    std::mt19937_64 rng(820);
    PaLogical l = DecodeLogical(2, 1, 256, 256, {300, 2});
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, {}));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// contextLens [2028, 0, 707, 0, 15, 1]-style: status 0 exactly where the context is 0, as ATB's tests do, and
// one batch with a context but status 0 (DECISIONS 3). Queries and outputs hold only the running batches.
TEST(PaSkippedBatches, RowsArePackedAndTheRestIsUntouched) {
    std::mt19937_64 rng(830);
    PaLogical l = DecodeLogical(4, 2, 16, 16, {60, 0, 33, 0, 15, 1, 40});
    l.param.batchRunStatusEnable = true;
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    l.batchRunStatus = {1, 0, 1, 0, 1, 1, 0};
    FillRandom(l, rng);
    ASSERT_EQ(l.Tokens(), 4);
    const int64_t batch = 7, cols = 60;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, batch * 4 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {batch, 4, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        return l.param.qkScale * Dot(l, at) + m[(at.b * 4 + at.h) * cols + at.j];
    };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

// An output with more rows than running batches: rows past the written ones keep their contents.
TEST(PaSkippedBatches, RowsPastTheRunningBatchesAreUntouched) {
    std::mt19937_64 rng(831);
    PaLogical l = DecodeLogical(2, 1, 16, 16, {9, 0, 20});
    l.spareRows = 1;  // T = B = 3, one row more than the two running batches use
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    ExpectReferenceMatches(call, DirectAttention(l, {}));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

}  // namespace
}  // namespace atbx::test
