// fp32 multiply-add chains for the AVX2 FMA3 (ymm) ceiling (compiled with -mavx2 -mfma only; see
// perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunFmaChainsAvx2(int64_t rounds) {
    // 12 independent accumulators (of 16 registers, with scale and bias): enough to cover the latency of two
    // ports on current cores.
    constexpr int kChains = 12;
    const __m256 scale = _mm256_set1_ps(0.999999f);
    const __m256 bias = _mm256_set1_ps(1e-6f);
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(c));
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_fmadd_ps(acc[c], scale, bias);
    }
    __m256 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm256_add_ps(sum, acc[c]);
    alignas(64) float lanes[8];
    _mm256_store_ps(lanes, sum);
    volatile float sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 8 * 2.0;
}

}  // namespace atbx::perf
