// int16 pair-product chains (VPMADDWD and VPADDD, AVX2) for the AVX2 int16 ceiling (compiled with -mavx2
// only; see perf/fma_chains.h).
#include <immintrin.h>

#include "perf/fma_chains.h"

namespace atbx::perf {

double RunInt16PairChainsAvx2(int64_t rounds) {
    // 8 independent sums, each step adding VPMADDWD's products of the sum's own words (so that no product can
    // be computed once outside the loop). GCC 12 kept copies of 10 or 12 such sums on the stack, storing them
    // at every step; 8 stay in registers. int32 sums wrap, which the count does not mind.
    constexpr int kChains = 8;
    const __m256i b = _mm256_set1_epi16(-3);
    __m256i acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_epi32(c + 1);
    for (int64_t r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_add_epi32(acc[c], _mm256_madd_epi16(acc[c], b));
    }
    __m256i sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm256_add_epi32(sum, acc[c]);
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
    volatile int32_t sink = lanes[0];
    (void)sink;
    return static_cast<double>(rounds) * kChains * 8 * 4.0;
}

}  // namespace atbx::perf
