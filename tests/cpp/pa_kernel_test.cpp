// PagedAttention kernels: the float64 reference against a direct evaluation of the formula written here, and
// every CPU kernel against the reference, on fresh random data with poisoned outputs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/str_cat.h"
#include "plan/element.h"
#include "support/pa_calls.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

// out[b, h, :] = softmax_j(qkScale * q[b, h] . K[b, j, h / g]) . V[b, j, h / g], with K and V read from the
// BSND cache through the block table, every loop written out.
std::vector<double> DirectDecode(TestCall& call) {
    const Param& p = call.Param<Param>();
    const io::HostTensor& q = call.In("query");
    const io::HostTensor& k = call.In("keyCache");
    const io::HostTensor& v = call.In("valueCache");
    auto table = Elements<int32_t>(call.In("blockTables"));
    auto lens = Elements<int32_t>(call.In("contextLens"));
    const int64_t heads = p.headNum, kvHeads = p.kvHeadNum, dim = q.desc.shape.dims[2];
    const int64_t blockSize = k.desc.shape.dims[1], width = call.In("blockTables").desc.shape.dims[1];
    std::vector<double> out(q.bytes.size() / 2, NAN);
    int64_t row = 0;
    for (size_t b = 0; b < lens.size(); ++b) {
        if (lens[b] == 0) continue;
        for (int64_t h = 0; h < heads; ++h) {
            const int64_t kvh = h / (heads / kvHeads);
            std::vector<double> logits(lens[b]);
            for (int32_t j = 0; j < lens[b]; ++j) {
                const int64_t slot = table[b * width + j / blockSize] * blockSize + j % blockSize;
                double dot = 0;
                for (int64_t d = 0; d < dim; ++d) {
                    dot += plan::LoadElement(q.bytes.data(), q.desc.dtype, (row * heads + h) * dim + d) *
                           plan::LoadElement(k.bytes.data(), k.desc.dtype, (slot * kvHeads + kvh) * dim + d);
                }
                logits[j] = dot * p.qkScale;
            }
            double top = -INFINITY, sum = 0;
            for (double l : logits)
                top = std::max(top, l);
            for (double& l : logits)
                sum += (l = std::exp(l - top));
            for (int64_t d = 0; d < dim; ++d) {
                double acc = 0;
                for (int32_t j = 0; j < lens[b]; ++j) {
                    const int64_t slot = table[b * width + j / blockSize] * blockSize + j % blockSize;
                    acc += logits[j] / sum *
                           plan::LoadElement(v.bytes.data(), v.desc.dtype, (slot * kvHeads + kvh) * dim + d);
                }
                out[(row * heads + h) * dim + d] = acc;
            }
        }
        ++row;
    }
    return out;
}

struct DecodeShape {
    int32_t heads, kvHeads, headSize, blockSize;
    std::vector<int32_t> lens;
    aclDataType dtype;
};

// H8_Hk2_D64_bs16_b4_fp16: heads, kv heads, head size, block size, batch, dtype (also the test's name).
void PrintTo(const DecodeShape& s, std::ostream* out) {
    *out << core::StrCat("H", s.heads, "_Hk", s.kvHeads, "_D", s.headSize, "_bs", s.blockSize, "_b",
                         s.lens.size(), s.dtype == ACL_BF16 ? "_bf16" : "_fp16");
}

class PaDecodeTest : public testing::TestWithParam<DecodeShape> {
  protected:
    TestCall MakeCall() const {
        const DecodeShape& s = GetParam();
        Param param;
        param.headNum = s.heads;
        param.kvHeadNum = s.kvHeads;
        param.qkScale = static_cast<float>(2.0 / std::sqrt(s.headSize));
        PaShape shape;
        shape.headSize = s.headSize;
        shape.blockSize = s.blockSize;
        shape.contextLens = s.lens;
        shape.dtype = s.dtype;
        return MakePaCall(param, shape);
    }
};

TEST_P(PaDecodeTest, ReferenceMatchesTheFormula) {
    TestCall call = MakeCall();
    const std::vector<double> reference = ReferenceResult(call);
    const std::vector<double> direct = DirectDecode(call);
    ASSERT_EQ(reference.size(), direct.size());
    for (size_t i = 0; i < direct.size(); ++i)
        ASSERT_NEAR(reference[i], direct[i], 1e-12) << "element " << i;
}

TEST_P(PaDecodeTest, EveryCpuPathMeetsThePrecisionStandard) {
    TestCall call = MakeCall();
    const std::vector<double> reference = ReferenceResult(call);
    const DecodeShape& s = GetParam();
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, path);
        EXPECT_EQ(
            PrecisionFailure(call, reference, s.headSize, *std::max_element(s.lens.begin(), s.lens.end())),
            "")
            << path;
    }
}

// bf16 queries and keys up to 1e19 with qkScale 2.5e-38 at head size 128, GQA 4 (the row runner) and GQA 8
// (cpu:amx's tile columns): the raw dots overflow fp32 where the scaled logits (about ±10) do not. The fp32
// dots scale the query first; bf16 dot products (cpu:avx512 with AVX512-BF16) and tiles must hand such blocks
// to them.
class PaDecodeRawDots : public testing::TestWithParam<int32_t> {};

TEST_P(PaDecodeRawDots, BeyondFloatRangeMeetThePrecisionStandard) {
    Param param;
    param.headNum = GetParam();
    param.kvHeadNum = 2;
    param.qkScale = 2.5e-38f;
    PaShape shape;
    shape.headSize = 128;
    shape.blockSize = 16;
    shape.contextLens = {300, 17};
    shape.dtype = ACL_BF16;
    TestCall call = MakePaCall(param, shape);
    ScaleElements(call.In("query"), 1e19);
    ScaleElements(call.In("keyCache"), 1e19);
    const std::vector<double> reference = ReferenceResult(call);
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(PrecisionFailure(call, reference, 128, 300), "") << path;
    }
}

INSTANTIATE_TEST_SUITE_P(Gqa, PaDecodeRawDots, testing::Values(8, 16),
                         [](const testing::TestParamInfo<int32_t>& param) {
                             return "heads" + std::to_string(param.param);
                         });

TEST_P(PaDecodeTest, ReferenceBackendWritesTheReferenceRounded) {
    TestCall call = MakeCall();
    const std::vector<double> reference = ReferenceResult(call);
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const io::HostTensor& out = call.outputs[0];
    for (size_t i = 0; i < reference.size(); ++i) {
        ASSERT_EQ(plan::LoadElement(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(i)),
                  plan::RoundToDtype(reference[i], out.desc.dtype))
            << "element " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PaDecodeTest,
                         testing::Values(DecodeShape{8, 2, 64, 16, {17, 40, 1, 33}, ACL_FLOAT16},
                                         DecodeShape{8, 2, 64, 16, {17, 40, 1, 33}, ACL_BF16},
                                         DecodeShape{6, 6, 40, 32, {100}, ACL_FLOAT16},
                                         DecodeShape{17, 1, 96, 16, {5, 64, 31}, ACL_BF16},
                                         DecodeShape{32, 8, 128, 128, {300, 129}, ACL_FLOAT16}),
                         testing::PrintToStringParamName());

}  // namespace
}  // namespace atbx::test
