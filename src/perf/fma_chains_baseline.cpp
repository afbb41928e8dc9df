// fp32 multiply-add chains for the baseline SSE2 (mul + add) ceiling (compiled with the x86-64 baseline only;
// see perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunFmaChainsBaseline(int64_t rounds) {
    // 12 independent accumulators (of 16 registers, with scale and bias): enough to cover the latency of two
    // ports on current cores.
    constexpr int kChains = 12;
    const __m128 scale = _mm_set1_ps(0.999999f);
    const __m128 bias = _mm_set1_ps(1e-6f);
    __m128 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm_set1_ps(1.0f + 0.01f * static_cast<float>(c));
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], scale), bias);
    }
    __m128 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm_add_ps(sum, acc[c]);
    alignas(64) float lanes[4];
    _mm_store_ps(lanes, sum);
    volatile float sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 4 * 2.0;
}

}  // namespace atbx::perf
