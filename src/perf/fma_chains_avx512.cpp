// fp32 multiply-add chains for the AVX-512 (zmm) ceiling (compiled with -mavx512f only; see
// perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunFmaChainsAvx512(int64_t rounds) {
    // 16 independent accumulators (of 32 registers): enough to cover the FMA latency of two ports on current
    // cores.
    constexpr int kChains = 16;
    const __m512 scale = _mm512_set1_ps(0.999999f);
    const __m512 bias = _mm512_set1_ps(1e-6f);
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(c));
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_ps(acc[c], scale, bias);
    }
    __m512 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ps(sum, acc[c]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    volatile float sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 16 * 2.0;
}

}  // namespace atbx::perf
