// PagedAttention reference, masks (docs/spec/paged_attention.md 3.5, 3.6, 3.9; DECISIONS 5-8): every mask
// type, rank and layout, each read at the element the spec names, including masks larger than needed (the row
// stride is the last dim) and NZ masks of the Atlas inference/training profiles. Mask values are random so
// that a wrong row, batch, head or column is visible; the expected logits are written here.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/element.h"
#include "support/pa_logical.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;
using Term = std::function<double(const PaIndex&)>;

void CheckMask(PaLogical& l, std::mt19937_64& rng, const Term& term) {
    TestCall call = BuildCall(l, rng);
    PaFormula f;
    f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at) + term(at); };
    ExpectReferenceMatches(call, DirectAttention(l, f));
    ExpectCpuPaths(call, l.headDimV, MaxContext(l));
}

PaLogical Spec(PaLogical l, std::vector<int32_t> qSeqLen) {
    l.param.calcType = Param::CALC_TYPE_SPEC;
    l.qSeqLen = std::move(qSeqLen);
    return l;
}

// [planes, rows, cols] row-major -> FRACTAL_NZ [planes, cols/16, rows, 16].
std::vector<double> ToNz(const std::vector<double>& nd, int64_t planes, int64_t rows, int64_t cols) {
    std::vector<double> nz(nd.size());
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
                nz[((p * (cols / 16) + c / 16) * rows + r) * 16 + c % 16] = nd[(p * rows + r) * cols + c];
    return nz;
}

// ---- NORM, ND (atlas-a2) ----

TEST(PaMaskNorm, Shared2dDecodeReadsRowZero) {
    std::mt19937_64 rng(300);
    PaLogical l = DecodeLogical(4, 2, 24, 16, {19, 40, 3});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t rows = 3, cols = 45;  // [X, S] with X != S and S > max context
    const std::vector<double> m = RandomValues(ACL_FLOAT16, rows * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {rows, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[0 * cols + at.j]; });
}

TEST(PaMaskNorm, Shared2dSpecReadsRowI) {
    std::mt19937_64 rng(301);
    PaLogical l = Spec(DecodeLogical(4, 4, 16, 16, {20, 9, 33}), {5, 1, 7});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t rows = 8, cols = 40;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, rows * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {rows, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.i * cols + at.j]; });
}

// The square [S, S] mask is the standard parallel-decoding mask: query i of batch b reads row L_b - q_b + i.
TEST(PaMaskNorm, SquareSpecShiftsRowsByThePrefix) {
    std::mt19937_64 rng(302);
    PaLogical l = Spec(DecodeLogical(6, 2, 16, 16, {10, 64, 64, 37}, ACL_BF16), {1, 15, 30, 6});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t s = 64;
    std::vector<double> m = RandomValues(ACL_BF16, s * s, -2, 2, rng);
    for (int64_t r = 0; r < s; ++r)
        for (int64_t c = r + 1; c < s; ++c)
            m[r * s + c] = -10000;  // causal, as ATB's tests build it
    for (double& v : m)
        v = plan::RoundToDtype(v, ACL_BF16);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {s, s}, m);
    CheckMask(l, rng, [&](const PaIndex& at) {
        return m[(l.contextLens[at.b] - l.qSeqLen[at.b] + at.i) * s + at.j];
    });
}

TEST(PaMaskNorm, SquareDecodeReadsRowLMinusOne) {
    std::mt19937_64 rng(303);
    PaLogical l = DecodeLogical(4, 1, 24, 16, {50, 7, 1});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t s = 53;  // square and larger than the longest context
    const std::vector<double> m = RandomValues(ACL_FLOAT16, s * s, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {s, s}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(l.contextLens[at.b] - 1) * s + at.j]; });
}

TEST(PaMaskNorm, PerBatch3dDecodeReadsRowZeroOfItsPlane) {
    std::mt19937_64 rng(304);
    PaLogical l = DecodeLogical(8, 2, 16, 32, {65, 0, 12, 31});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t batch = 4, rows = 1,
                  cols = 70;  // [B, 1, S] with S > max context (R > 1: pa.host.mask_norm_shape)
    const std::vector<double> m = RandomValues(ACL_FLOAT16, batch * rows * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {batch, rows, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(at.b * rows + 0) * cols + at.j]; });
}

// DECISIONS 5: a 3-D NORM mask with SPEC is [B, S, S]: batch b's own plane, row i, no prefix shift, also for
// batches with q_b == 1.
TEST(PaMaskNorm, PerBatch3dSpecReadsRowIOfItsPlane) {
    std::mt19937_64 rng(305);
    PaLogical l = Spec(DecodeLogical(4, 2, 16, 16, {30, 8, 25}), {4, 1, 6});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t batch = 3, s = 30;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, batch * s * s, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {batch, s, s}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(at.b * s + at.i) * s + at.j]; });
}

// ---- ALIBI, ND ----

TEST(PaMaskAlibi, PerHead3dIsSharedByBatches) {
    std::mt19937_64 rng(310);
    PaLogical l = DecodeLogical(6, 3, 16, 16, {22, 41}, ACL_BF16);
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t heads = 6, cols = 48;
    const std::vector<double> m = RandomValues(ACL_BF16, heads * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {heads, 1, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.h * cols + at.j]; });
}

TEST(PaMaskAlibi, PerBatchAndHead4d) {
    std::mt19937_64 rng(311);
    PaLogical l = DecodeLogical(5, 1, 24, 16, {13, 0, 37});
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t batch = 3, heads = 5, cols = 40;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, batch * heads * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {batch, heads, 1, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(at.b * heads + at.h) * cols + at.j]; });
}

// Standard ALiBi biases slope_h * (j - L_b + 1) in a [B, H, 1, S] mask.
TEST(PaMaskAlibi, StandardSlopes) {
    std::mt19937_64 rng(312);
    PaLogical l = DecodeLogical(8, 8, 16, 16, {29, 64});
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t batch = 2, heads = 8, cols = 64;
    std::vector<double> m(batch * heads * cols, 0.0);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t j = 0; j < l.contextLens[b]; ++j)
                m[(b * heads + h) * cols + j] =
                    plan::RoundToDtype(std::pow(2.0, -(h + 1.0)) * (j - l.contextLens[b] + 1.0), ACL_FLOAT16);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {batch, heads, 1, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) {
        return plan::RoundToDtype(std::pow(2.0, -(at.h + 1.0)) * (at.j - l.contextLens[at.b] + 1.0),
                                  ACL_FLOAT16);
    });
}

// ---- SPEC [T, S]: row cu_b + i over the packed query rows ----

TEST(PaMaskSpec, RowIsThePackedQueryRow) {
    std::mt19937_64 rng(320);
    PaLogical l = Spec(DecodeLogical(4, 2, 16, 16, {10, 0, 64, 21}), {1, 3, 15, 6});
    l.param.maskType = Param::MASK_TYPE_SPEC;
    FillRandom(l, rng);
    const int64_t rows = l.Tokens() + 3, cols = 70;  // larger than T and than the longest context
    const std::vector<double> m = RandomValues(ACL_FLOAT16, rows * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {rows, cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.row * cols + at.j]; });
}

// ---- MLA + SPEC (MTP): fp16 additive, bf16 0/1 flags times -3e38 (DECISIONS 8) ----

PaLogical MtpLogical(aclDataType dtype) {
    PaLogical l = Spec(DecodeLogical(4, 1, 48, 16, {40, 19, 33}, dtype), {5, 1, 9});
    l.param.mlaVHeadSize = 32;
    l.headDimV = 32;
    l.param.maskType = Param::MASK_TYPE_SPEC;
    return l;
}

// 0 on and below the causal diagonal (key j <= L_b - q_b + i), `hidden` above.
std::vector<double> CausalSpecMask(const PaLogical& l, int64_t cols, double hidden) {
    std::vector<double> m(l.Tokens() * cols, 0.0);
    int64_t row = 0;
    for (size_t b = 0; b < l.contextLens.size(); ++b) {
        for (int64_t i = 0; i < l.qSeqLen[b]; ++i, ++row)
            for (int64_t j = l.contextLens[b] - l.qSeqLen[b] + i + 1; j < cols; ++j)
                m[row * cols + j] = hidden;
    }
    return m;
}

TEST(PaMaskMtp, Bf16MaskHoldsFlags) {
    std::mt19937_64 rng(330);
    PaLogical l = MtpLogical(ACL_BF16);
    FillRandom(l, rng);
    const int64_t cols = 40;
    const std::vector<double> m = CausalSpecMask(l, cols, 1.0);
    l.extra["mask"] = ValuesTensor(ACL_BF16, {l.Tokens(), cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.row * cols + at.j] * -3e38; });
}

TEST(PaMaskMtp, Fp16MaskIsAdditive) {
    std::mt19937_64 rng(331);
    PaLogical l = MtpLogical(ACL_FLOAT16);
    FillRandom(l, rng);
    const int64_t cols = 40;
    std::vector<double> m = CausalSpecMask(l, cols, -10000.0);
    for (double& v : m)
        v = v == 0.0 ? 0.25 : v;  // visible keys get 0.25
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {l.Tokens(), cols}, m);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.row * cols + at.j]; });
}

// ---- Atlas inference (310P): MASK_FREE and NORM_COMPRESS are causal rules ----

PaLogical InferenceSpec(std::vector<int32_t> lens, std::vector<int32_t> qSeqLen, int64_t blockSize) {
    PaLogical l = Spec(DecodeLogical(4, 1, 16, blockSize, std::move(lens)), std::move(qSeqLen));
    l.platform = Platform::kAtlasInference;
    l.layout = PaLayout::kNz;
    return l;
}

// The NZ [1, 8, 128, 16] tile of a 128x128 matrix with -60000 strictly above the diagonal. Query i of batch b
// sees key j iff j <= L_b - q_b + i; hidden keys get -60000.
TEST(PaMaskFree, CausalWithThePrefixShift) {
    std::mt19937_64 rng(340);
    PaLogical l = InferenceSpec({133, 258, 20}, {5, 130, 20}, 128);  // (L - q) % 128 == 0
    l.param.maskType = Param::MASK_TYPE_MASK_FREE;
    FillRandom(l, rng);
    std::vector<double> tile(128 * 128, 0.0);
    for (int64_t r = 0; r < 128; ++r)
        for (int64_t c = r + 1; c < 128; ++c)
            tile[r * 128 + c] = -60000.0;
    l.extra["mask"] =
        ValuesTensor(ACL_FLOAT16, {1, 8, 128, 16}, ToNz(tile, 1, 128, 128), ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) {
        return at.j > l.contextLens[at.b] - l.qSeqLen[at.b] + at.i ? -60000.0 : 0.0;
    });
}

// The ND [2048, 2048] causal mask: prefix max(0, L_b - q_b), contexts beyond 2048, the mask's own value.
TEST(PaMaskNormCompress, CausalBeyond2048WithTheMasksValue) {
    std::mt19937_64 rng(341);
    PaLogical l = InferenceSpec({2100, 40, 9}, {3, 40, 2}, 128);
    l.param.maskType = Param::MASK_TYPE_NORM_COMPRESS;
    FillRandom(l, rng);
    std::vector<double> m(2048 * 2048, 0.0);
    for (int64_t r = 0; r < 2048; ++r)
        for (int64_t c = r + 1; c < 2048; ++c)
            m[r * 2048 + c] = -10000.0;
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {2048, 2048}, m);
    CheckMask(l, rng, [&](const PaIndex& at) {
        const int64_t prefix = std::max<int64_t>(0, l.contextLens[at.b] - l.qSeqLen[at.b]);
        return at.j > prefix + at.i ? -10000.0 : 0.0;
    });
}

// ---- NZ masks (atlas-inference, atlas-training) ----

PaLogical NzDecode(Platform platform, std::vector<int32_t> lens) {
    PaLogical l = DecodeLogical(3, 3, 32, 32, std::move(lens));
    l.platform = platform;
    l.layout = PaLayout::kNz;
    return l;
}

// NORM [B, S/16, R, 16]: row 0 of batch b's plane.
TEST(PaMaskNz, NormPerBatchReadsRowZero) {
    std::mt19937_64 rng(350);
    PaLogical l = NzDecode(Platform::kAtlasTraining, {45, 17});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t planes = 2, rows = 16, cols = 48;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, planes * rows * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {planes, cols / 16, rows, 16}, ToNz(m, planes, rows, cols),
                                   ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(at.b * rows + 0) * cols + at.j]; });
}

// NORM [1, S/16, R, 16]: one plane for every batch.
TEST(PaMaskNz, NormSharedPlane) {
    std::mt19937_64 rng(351);
    PaLogical l = NzDecode(Platform::kAtlasInference, {30, 64, 2});
    l.param.maskType = Param::MASK_TYPE_NORM;
    FillRandom(l, rng);
    const int64_t rows = 16, cols = 64;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, rows * cols, -4, 4, rng);
    l.extra["mask"] =
        ValuesTensor(ACL_FLOAT16, {1, cols / 16, rows, 16}, ToNz(m, 1, rows, cols), ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.j]; });
}

// ALIBI [B*H, S/16, 16, 16]: row 0 of plane b*H + h.
TEST(PaMaskNz, AlibiPerBatchAndHead) {
    std::mt19937_64 rng(352);
    PaLogical l = NzDecode(Platform::kAtlasTraining, {33, 12});
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t planes = 2 * 3, cols = 48;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, planes * 16 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {planes, cols / 16, 16, 16}, ToNz(m, planes, 16, cols),
                                   ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[((at.b * 3 + at.h) * 16) * cols + at.j]; });
}

// ALIBI [H, S/16, 16, 16]: row 0 of plane h, shared by batches.
TEST(PaMaskNz, AlibiPerHead) {
    std::mt19937_64 rng(353);
    PaLogical l = NzDecode(Platform::kAtlasInference, {20, 50, 7, 1});
    l.param.maskType = Param::MASK_TYPE_ALIBI;
    FillRandom(l, rng);
    const int64_t planes = 3, cols = 64;
    const std::vector<double> m = RandomValues(ACL_FLOAT16, planes * 16 * cols, -4, 4, rng);
    l.extra["mask"] = ValuesTensor(ACL_FLOAT16, {planes, cols / 16, 16, 16}, ToNz(m, planes, 16, cols),
                                   ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[(at.h * 16) * cols + at.j]; });
}

// SPEC [1, S/16, T_pad, 16]: row cu_b + i.
TEST(PaMaskNz, SpecReadsThePackedRow) {
    std::mt19937_64 rng(354);
    PaLogical l = InferenceSpec({40, 20, 33}, {7, 1, 9}, 32);
    l.param.maskType = Param::MASK_TYPE_SPEC;
    FillRandom(l, rng);
    const int64_t rows = 32, cols = 48;  // T = 17 padded to 32
    const std::vector<double> m = RandomValues(ACL_FLOAT16, rows * cols, -4, 4, rng);
    l.extra["mask"] =
        ValuesTensor(ACL_FLOAT16, {1, cols / 16, rows, 16}, ToNz(m, 1, rows, cols), ACL_FORMAT_FRACTAL_NZ);
    CheckMask(l, rng, [&](const PaIndex& at) { return m[at.row * cols + at.j]; });
}

// An ND mask on an NZ profile keeps its ND meaning (the runner converts it to NZ itself).
}  // namespace
}  // namespace atbx::test
