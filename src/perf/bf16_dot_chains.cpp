// bf16 dot-product chains (VDPBF16PS, AVX512-BF16) for the bf16 dot ceiling (compiled with -mavx512f
// -mavx512bf16 only; see perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunBf16DotChains(int64_t rounds) {
    // 16 independent accumulators, as the FMA chains: each instruction adds two bf16 products per fp32 lane.
    constexpr int kChains = 16;
    const __m512bh a = __builtin_bit_cast(__m512bh, _mm512_set1_epi16(0x3F80));  // 1.0
    const __m512bh b = __builtin_bit_cast(__m512bh, _mm512_set1_epi16(0x3380));  // 2^-24
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(c));
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
    }
    __m512 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ps(sum, acc[c]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    volatile float sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 16 * 4.0;
}

}  // namespace atbx::perf
