// fp32 scales for tests of products rounded to fp16 and bf16 (core/float16.h, kernels/cpu/query_prescale.h):
// products on and near the narrow formats' ties, overflow, underflow and subnormals, then `random` scales of
// either sign between 2^-12 and 2^13 (the same ones on every call).
#ifndef ATBX_TESTS_SUPPORT_PRODUCT_SCALES_H
#define ATBX_TESTS_SUPPORT_PRODUCT_SCALES_H

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace atbx::test {

inline std::vector<float> ProductScales(int random) {
    std::vector<float> scales = {0.5f,
                                 3.0f,
                                 1.0f / 3.0f,
                                 0.3f,
                                 0.2f,
                                 0.1f,
                                 1.0f + 0x1p-12f,
                                 1.0f + 0x1p-13f + 0x1p-23f,
                                 0x1.fffffep-1f,
                                 1e-5f,
                                 0x1p-20f,
                                 4096.0f,
                                 1e30f,
                                 1e-30f,
                                 -0.75f,
                                 std::numeric_limits<float>::max(),
                                 std::numeric_limits<float>::denorm_min()};
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-12, 12);
    for (int i = 0; i < random; ++i)
        scales.push_back(std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 == 0 ? 1.0f : -1.0f));
    return scales;
}

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PRODUCT_SCALES_H
