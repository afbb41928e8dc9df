// Bad SelfAttention input never crashes validation: every call of the catalogue, mutated at random (dims,
// ranks, dtypes, formats, host values, param fields), is validated through every stage. Run under the ASan
// and UBSan build, a rule that indexes a dim or an element an earlier stage did not vouch for, or overflows a
// size, fails here.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "support/sa_valid_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;

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
            tensor.desc.dtype =
                Pick(rng, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_INT8, ACL_INT32, ACL_UINT32, ACL_BOOL});
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

void MutateParam(TestCall& call, std::mt19937_64& rng) {
    Param& p = call.Param<Param>();
    const int value = static_cast<int>(rng() % 12) - 1;
    switch (rng() % 10) {
        case 0:
            p.headNum = value;
            break;
        case 1:
            p.kvHeadNum = value;
            break;
        case 2:
            p.maskType = static_cast<Param::MaskType>(value);
            break;
        case 3:
            p.calcType = static_cast<Param::CalcType>(value);
            break;
        case 4:
            p.kernelType = static_cast<Param::KernelType>(value);
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
            p.scaleType = static_cast<Param::ScaleType>(value);
            break;
    }
}

class SaMutationTest : public testing::TestWithParam<SaValidCall> {};

TEST_P(SaMutationTest, ValidationNeverCrashes) {
    const TestCall valid = GetParam().make();
    std::mt19937_64 rng(std::hash<std::string>{}(GetParam().name));
    for (int i = 0; i < kMutationsPerCall; ++i) {
        TestCall call = valid;
        for (int changes = 1 + static_cast<int>(rng() % 3); changes > 0; --changes) {
            if (rng() % 4 == 0) {
                MutateParam(call, rng);
            } else {
                MutateTensor(call, rng);
            }
        }
        const std::vector<rules::Violation> violations = Violations(call);
        for (const rules::Violation& v : violations)
            EXPECT_FALSE(v.message.empty()) << v.rule->id;
    }
}

std::string Name(const testing::TestParamInfo<SaValidCall>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(SelfAttention, SaMutationTest, testing::ValuesIn(SaValidCalls()), Name);

}  // namespace
}  // namespace atbx::test
