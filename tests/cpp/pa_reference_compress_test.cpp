// PagedAttention reference, KV-head compression (docs/spec/paged_attention.md 3.3-3.5): one sequence per
// (batch b, kv head k) at block-table and contextLens row b' = b*Hk + k, one head per cache block, query
// heads [k*g, (k+1)*g) of row b; dequantisation by the logical kv head k; masks read at the original batch
// and head; the razor offset of KVHEAD_ROPE added to the raw score of key j at its physical block and slot,
// before the scale. The expected values are written here.
#include <gtest/gtest.h>

#include "support/pa_logical.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

// Batches of `lens.size() / kvHeads` rows; contextLens row b*Hk + k is (b, k)'s own length.
PaLogical Compressed(int32_t heads, int32_t kvHeads, std::vector<int32_t> lens, Param::CompressType type) {
    PaLogical l = DecodeLogical(heads, kvHeads, 32, 16, std::move(lens));
    l.param.compressType = type;
    return l;
}

void Check(PaLogical& l, TestCall& call, const PaFormula& f) {
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

TEST(PaCompress, EachBatchAndKvHeadIsItsOwnSequence) {
    std::mt19937_64 rng(700);
    PaLogical l = Compressed(6, 3, {40, 17, 1, 5, 33, 16}, Param::COMPRESS_TYPE_KVHEAD);
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    Check(l, call, {});
}

// (b=0, k=1) has no context: heads [2, 4) of row 0 stay untouched; the other pairs are unaffected.
// Under compression ATB packs query rows per (batch, kv head) pair, so an empty pair would shift every later
// pair onto another pair's query: atbx rejects it (docs/decisions.md, PagedAttention validation).
TEST(PaCompress, AnEmptyPairIsRejected) {
    std::mt19937_64 rng(701);
    PaLogical l = Compressed(8, 4, {12, 0, 30, 7, 3, 19, 1, 20}, Param::COMPRESS_TYPE_KVHEAD);
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    const RunResult run = Execute(call, Backend::kReference);
    EXPECT_EQ(run.status.rule(), "pa.host.compress_all_sequences_run") << run.status.ToString();
}

// NORM [B, 1, S]: row b (= b' / Hk).
TEST(PaCompress, NormMaskReadsTheOriginalBatch) {
    std::mt19937_64 rng(702);
    PaLogical l = Compressed(4, 2, {20, 9, 14, 31}, Param::COMPRESS_TYPE_KVHEAD);
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t cols = 31;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, 2 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {2, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at) + m[at.b * cols + at.j]; };
    Check(l, call, f);
}

// ALIBI [H, 1, S]: plane (b' mod Hk) * g + h' = the original head h.
TEST(PaCompress, Alibi3dMaskReadsTheOriginalHead) {
    std::mt19937_64 rng(703);
    PaLogical l = Compressed(6, 2, {25, 8, 3, 40}, Param::COMPRESS_TYPE_KVHEAD);
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t cols = 40;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, 6 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {6, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at) + m[at.h * cols + at.j]; };
    Check(l, call, f);
}

// ALIBI [B, H, 1, S]: [b' / Hk, (b' mod Hk) * g + h'].
TEST(PaCompress, Alibi4dMaskReadsTheOriginalBatchAndHead) {
    std::mt19937_64 rng(704);
    PaLogical l = Compressed(4, 2, {11, 26, 30, 2, 5, 18}, Param::COMPRESS_TYPE_KVHEAD);
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t cols = 32;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, 3 * 4 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {3, 4, 1, cols}, m);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        return l.param.qkScale * Dot(l, at) + m[(at.b * 4 + at.h) * cols + at.j];
    };
    Check(l, call, f);
}

// int8 caches (fp16 q): descale and offset [Hk*D] by the logical kv head k.
TEST(PaCompress, DequantUsesTheLogicalKvHead) {
    std::mt19937_64 rng(705);
    PaLogical l = Compressed(6, 3, {19, 4, 37, 1, 22, 16}, Param::COMPRESS_TYPE_KVHEAD);
    l.cacheDtype = ACL_INT8;
    l.param.quantType = Param::TYPE_DEQUANT_FUSION;
    l.param.hasQuantOffset = true;
    l.param.qkScale = 0.05f;
    FillRandom(l, rng);
    const int64_t channels = 3 * l.headDim;
    const std::vector<double> kScale = RandomValues(ACL_FLOAT, channels, 0.1, 0.6, rng);
    const std::vector<double> vScale = RandomValues(ACL_FLOAT, channels, -0.6, 0.6, rng);
    std::vector<double> kOffset(channels), vOffset(channels);
    std::uniform_int_distribution<int> offset(-20, 19);
    for (size_t c = 0; c < kOffset.size(); ++c)
        kOffset[c] = offset(rng), vOffset[c] = offset(rng);
    l.extra["kDescale"] = ValuesTensor(ACL_FLOAT, {channels}, kScale);
    l.extra["kOffset"] = ValuesTensor(ACL_INT32, {channels}, kOffset);
    l.extra["vDescale"] = ValuesTensor(ACL_FLOAT, {channels}, vScale);
    l.extra["vOffset"] = ValuesTensor(ACL_INT32, {channels}, vOffset);
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        double dot = 0.0;
        for (int64_t c = 0; c < l.headDim; ++c) {
            const int64_t ch = at.kvh * l.headDim + c;
            dot += l.Query(at.row, at.h, c) * (l.Key(at.sequence, at.j, 0, c) + kOffset[ch]) * kScale[ch];
        }
        return l.param.qkScale * dot;
    };
    f.value = [&](const PaIndex& at, int64_t c) {
        const int64_t ch = at.kvh * l.headDimV + c;
        return (l.Value(at.sequence, at.j, 0, c) + vOffset[ch]) * vScale[ch];
    };
    Check(l, call, f);
}

// KVHEAD_ROPE: logit = (q.K_j + razorOffset[p, s]) * qkScale with p, s the physical block and slot of key j.
TEST(PaCompress, RazorOffsetIsAddedBeforeTheScale) {
    std::mt19937_64 rng(706);
    PaLogical l = Compressed(9, 3, {70, 16, 33, 2, 47, 5}, Param::COMPRESS_TYPE_KVHEAD_ROPE);
    l.param.qkScale = 0.3f;
    FillRandom(l, rng);
    int64_t numBlocks = l.extraBlocks;
    for (int32_t len : l.contextLens)
        numBlocks += (len + l.blockSize - 1) / l.blockSize;
    const std::vector<double> razor = RandomValues(ACL_FLOAT, numBlocks * l.blockSize, 0, 4, rng);
    l.extra["razorOffset"] = ValuesTensor(ACL_FLOAT, {numBlocks, l.blockSize}, razor);
    TestCall call = BuildCall(l, rng);
    const std::span<const int32_t> table = Elements<int32_t>(call.In("blockTables"));
    const int64_t width = call.In("blockTables").desc.shape.dims[1];
    PaFormula f;
    f.logit = [&](const PaIndex& at) {
        const int64_t block = table[at.sequence * width + at.j / l.blockSize];
        return (Dot(l, at) + razor[block * l.blockSize + at.j % l.blockSize]) * l.param.qkScale;
    };
    Check(l, call, f);
}

// batchRunStatus (allowed with KVHEAD) is sized like contextLens: a 0 skips that (b, k) pair.
TEST(PaCompress, APairStoppedByBatchRunStatusIsRejected) {
    std::mt19937_64 rng(707);
    PaLogical l = Compressed(4, 2, {10, 21, 13, 6}, Param::COMPRESS_TYPE_KVHEAD);
    l.param.batchRunStatusEnable = true;
    l.batchRunStatus = {1, 0, 1, 1};
    FillRandom(l, rng);
    TestCall call = BuildCall(l, rng);
    const RunResult run = Execute(call, Backend::kReference);
    EXPECT_EQ(run.status.rule(), "pa.host.compress_all_sequences_run") << run.status.ToString();
}

}  // namespace
}  // namespace atbx::test
