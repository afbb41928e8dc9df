// Bad input never crashes and never reads out of bounds: every call of the PagedAttention and SelfAttention
// catalogues, mutated at random (dims, ranks, dtypes, formats, host values and indices, param fields), is
// validated through every stage; a mutated call that still passes every rule is executed on the reference and
// the CPU backend. Run under the ASan and UBSan build, a rule that indexes a dim or an element an earlier
// stage did not vouch for, a size that overflows, or a kernel that reads past a tensor the rules accepted,
// fails here.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "support/pa_calls.h"
#include "support/run_call.h"
#include "support/sa_valid_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

constexpr int kMutationsPerCall = 24;

template <class T>
T Pick(std::mt19937_64& rng, std::initializer_list<T> values) {
    std::uniform_int_distribution<size_t> index(0, values.size() - 1);
    return *(values.begin() + index(rng));
}

int64_t HostileDim(std::mt19937_64& rng) {
    return Pick<int64_t>(
        rng, {1, 2, 3, 7, 16, 17, 128, 256, 2048, 1 << 20, std::numeric_limits<int64_t>::max() / 3});
}

int32_t HostileValue(std::mt19937_64& rng) {
    return Pick<int32_t>(rng, {-7, -1, 0, 1, 2, 16, 129, 300, std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min()});
}

int SmallValue(std::mt19937_64& rng) {
    return static_cast<int>(rng() % 12) - 1;
}

void MutateTensor(TestCall& call, std::mt19937_64& rng) {
    std::uniform_int_distribution<size_t> which(0, call.inputs.size() - 1);
    io::HostTensor& tensor = call.inputs[which(rng)];
    Dims& shape = tensor.desc.shape;
    switch (rng() % 5) {
        case 0:
            shape.dims[rng() % shape.dimNum] = HostileDim(rng);
            break;
        case 1:
            shape.dimNum = 1 + rng() % 6;
            for (uint64_t d = 0; d < shape.dimNum; ++d) {
                if (shape.dims[d] <= 0) shape.dims[d] = HostileDim(rng);
            }
            break;
        case 2:
            tensor.desc.dtype = Pick(rng, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_INT8, ACL_INT32, ACL_UINT32,
                                           ACL_INT64, ACL_BOOL});
            break;
        case 3:
            tensor.desc.format = Pick(rng, {ACL_FORMAT_ND, ACL_FORMAT_FRACTAL_NZ, static_cast<aclFormat>(4)});
            break;
        default:
            // A host value or index: any int32 element.
            if (tensor.bytes.size() >= sizeof(int32_t)) {
                auto values = Elements<int32_t>(tensor);
                values[rng() % values.size()] = HostileValue(rng);
            }
            break;
    }
}

void MutateParam(infer::PagedAttentionParam& p, std::mt19937_64& rng) {
    using P = infer::PagedAttentionParam;
    const int value = SmallValue(rng);
    switch (rng() % 10) {
        case 0:
            p.headNum = value;
            break;
        case 1:
            p.kvHeadNum = value;
            break;
        case 2:
            p.maskType = static_cast<P::MaskType>(value);
            break;
        case 3:
            p.calcType = static_cast<P::CalcType>(value);
            break;
        case 4:
            p.quantType = static_cast<P::QuantType>(value);
            break;
        case 5:
            p.mlaVHeadSize = static_cast<uint32_t>(HostileDim(rng));
            break;
        case 6:
            p.compressType = static_cast<P::CompressType>(value);
            break;
        case 7:
            p.inputLayout = static_cast<infer::InputLayout>(value);
            break;
        case 8:
            p.batchRunStatusEnable = !p.batchRunStatusEnable;
            break;
        default:
            p.scaleType = static_cast<P::ScaleType>(value);
            break;
    }
}

void MutateParam(infer::SelfAttentionParam& p, std::mt19937_64& rng) {
    using P = infer::SelfAttentionParam;
    const int value = SmallValue(rng);
    switch (rng() % 10) {
        case 0:
            p.headNum = value;
            break;
        case 1:
            p.kvHeadNum = value;
            break;
        case 2:
            p.maskType = static_cast<P::MaskType>(value);
            break;
        case 3:
            p.calcType = static_cast<P::CalcType>(value);
            break;
        case 4:
            p.kernelType = static_cast<P::KernelType>(value);
            break;
        case 5:
            p.mlaVHeadSize = static_cast<uint32_t>(HostileDim(rng));
            break;
        case 6:
            p.windowSize = static_cast<uint32_t>(value);
            break;
        case 7:
            p.inputLayout = static_cast<infer::InputLayout>(value);
            break;
        case 8:
            p.isTriuMask = static_cast<uint32_t>(value);
            break;
        default:
            p.scaleType = static_cast<P::ScaleType>(value);
            break;
    }
}

void MutateParam(infer::ReshapeAndCacheParam&, std::mt19937_64&) {}

// Mutates `valid` kMutationsPerCall times; each mutant is validated, and executed when it is still valid.
void MutateAndRun(const TestCall& valid, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < kMutationsPerCall; ++i) {
        TestCall call = valid;
        for (int changes = 1 + static_cast<int>(rng() % 3); changes > 0; --changes) {
            if (rng() % 4 == 0) {
                std::visit([&](auto& param) { MutateParam(param, rng); }, call.param);
            } else {
                MutateTensor(call, rng);
            }
        }
        const std::vector<rules::Violation> violations = Violations(call);
        for (const rules::Violation& v : violations)
            EXPECT_FALSE(v.message.empty()) << v.rule->id;
        if (violations.empty()) {
            EXPECT_EQ(RunOnEveryBackend(call), "") << "mutant " << i << " passes every rule";
        }
    }
}

class PaMutationTest : public testing::TestWithParam<PaValidCall> {};

TEST_P(PaMutationTest, NeverCrashesNorReadsOutOfBounds) {
    MutateAndRun(GetParam().make(), std::hash<std::string>{}(GetParam().name));
}

class SaMutationTest : public testing::TestWithParam<SaValidCall> {};

TEST_P(SaMutationTest, NeverCrashesNorReadsOutOfBounds) {
    MutateAndRun(GetParam().make(), std::hash<std::string>{}(GetParam().name));
}

template <class Call>
std::string Name(const testing::TestParamInfo<Call>& info) {
    std::string name = info.param.name;
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(PagedAttention, PaMutationTest, testing::ValuesIn(PaValidCalls()),
                         Name<PaValidCall>);
INSTANTIATE_TEST_SUITE_P(SelfAttention, SaMutationTest, testing::ValuesIn(SaValidCalls()), Name<SaValidCall>);

}  // namespace
}  // namespace atbx::test
