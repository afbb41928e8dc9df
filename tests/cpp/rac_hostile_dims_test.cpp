// ReshapeAndCache shape rules with dims near int64's limits (found by the validate_plan fuzz target: the
// FRACTAL_NZ tile rule multiplied a cache dim by the tile before any rule bounded it, a signed overflow).
// Every such call must be rejected with a rule, never overflow; the ASan + UBSan build checks the "never".
#include <gtest/gtest.h>

#include <limits>

#include "support/rac_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

struct NzCall {
    const char* name;
    Param param;
    RacShape shape;
    Platform platform;
};

std::vector<NzCall> NzCalls() {
    RacShape int8Key;
    int8Key.dtype = ACL_INT8;
    int8Key.valueDtype = ACL_FLOAT16;
    RacShape compressed;
    return {
        {"a2.nz.int8_key", RacParam(0, Param::K_CACHE_V_CACHE_NZ), int8Key, Platform::kAtlasA2},
        {"a2.nz.fp16", RacParam(0, Param::K_CACHE_V_CACHE_NZ), {}, Platform::kAtlasA2},
        {"inference.nz", RacParam(0, Param::K_CACHE_V_CACHE), {}, Platform::kAtlasInference},
        {"a2.kvhead", RacParam(Param::COMPRESS_TYPE_KVHEAD), compressed, Platform::kAtlasA2},
    };
}

TEST(RacHostileDims, HugeDimsAreRejectedWithoutOverflow) {
    constexpr int64_t kHuge[] = {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max() / 3,
                                 2423395790068791866, int64_t{1} << 62, std::numeric_limits<int32_t>::max()};
    for (const NzCall& c : NzCalls()) {
        const TestCall valid = MakeRacCall(c.param, c.shape, c.platform);
        TestCall check = valid;
        ASSERT_TRUE(Violations(check).empty()) << c.name << ": " << DescribeViolations(check);
        for (size_t input = 0; input < valid.inputs.size(); ++input) {
            for (uint64_t d = 0; d < valid.inputs[input].desc.shape.dimNum; ++d) {
                for (int64_t huge : kHuge) {
                    TestCall call = valid;
                    call.inputs[input].desc.shape.dims[d] = huge;
                    EXPECT_FALSE(Violations(call).empty()) << c.name << ": input " << input << " dim " << d
                                                           << " = " << huge << " passes every rule";
                }
            }
        }
    }
}

}  // namespace
}  // namespace atbx::test
