// int16 dot-product chains (VPDPWSSD, AVX512-VNNI) for the int16 dot ceiling (compiled with -mavx512f
// -mavx512vnni only; see perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunInt16DotChains(int64_t rounds) {
    // 16 independent accumulators, as the FMA chains: each instruction adds two int16 products per lane.
    constexpr int kChains = 16;
    const __m512i a = _mm512_set1_epi16(3);
    const __m512i b = _mm512_set1_epi16(-2);
    __m512i acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_epi32(c);
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_dpwssd_epi32(acc[c], a, b);
    }
    __m512i sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_epi32(sum, acc[c]);
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, sum);
    volatile int32_t sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 16 * 4.0;
}

}  // namespace atbx::perf
