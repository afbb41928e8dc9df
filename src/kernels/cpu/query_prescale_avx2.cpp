#include <immintrin.h>

#include "kernels/cpu/query_prescale.h"

namespace atbx::kernels::cpu::avx2 {
namespace {

// The low 32 bits of each 64-bit mask of m, as 4 lanes.
__m128i Narrow(__m256d m) {
    const __m128 low = _mm256_castps256_ps128(_mm256_castpd_ps(m));
    const __m128 high = _mm256_extractf128_ps(_mm256_castpd_ps(m), 1);
    return _mm_castps_si128(_mm_shuffle_ps(low, high, _MM_SHUFFLE(2, 0, 2, 0)));
}

// The 4 products x (exact) rounded to fp32 to odd, as core::RoundToOddFloat: to nearest, one unit toward
// zero where that lies beyond x, the last bit set where inexact.
__m128i ToOdd(__m256d x) {
    const __m128 nearest = _mm256_cvtpd_ps(x);
    const __m256d back = _mm256_cvtps_pd(nearest);
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const __m128i inexact = Narrow(_mm256_cmp_pd(back, x, _CMP_NEQ_UQ));
    const __m128i beyond =
        Narrow(_mm256_cmp_pd(_mm256_and_pd(back, magnitude), _mm256_and_pd(x, magnitude), _CMP_GT_OQ));
    const __m128i stepped = _mm_add_epi32(_mm_castps_si128(nearest), beyond);  // the mask is -1 where beyond
    return _mm_or_si128(stepped, _mm_srli_epi32(inexact, 31));
}

// The 8 products q * scale rounded to fp32 to odd (ToOdd), or to nearest for fp32 queries.
__m256i Products(__m256 q, __m256d scale, bool toOdd) {
    const __m256d low = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(q)), scale);
    const __m256d high = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(q, 1)), scale);
    if (!toOdd) {
        return _mm256_castps_si256(
            _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(low)), _mm256_cvtpd_ps(high), 1));
    }
    return _mm256_inserti128_si256(_mm256_castsi128_si256(ToOdd(low)), ToOdd(high), 1);
}

// bf16 to nearest even of fp32 bits (core::FloatToBf16), widened back; NaN to the reference's quiet NaN.
__m256 RoundToBf16(__m256i bits) {
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_and_si256(_mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))),
                         _mm256_set1_epi32(static_cast<int>(0xFFFF0000u)));
    const __m256 value = _mm256_castsi256_ps(bits);
    return _mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)),
                            _mm256_cmp_ps(value, value, _CMP_UNORD_Q));
}

__m256 Load(const void* query, aclDataType dtype, int64_t i) {
    const auto* half = static_cast<const uint16_t*>(query) + i;
    switch (dtype) {
        case ACL_FLOAT16:
            return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(half)));
        case ACL_BF16:
            return _mm256_castsi256_ps(_mm256_slli_epi32(
                _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(half))), 16));
        default:
            return _mm256_loadu_ps(static_cast<const float*>(query) + i);
    }
}

}  // namespace

void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out) {
    const __m256d s = _mm256_set1_pd(scale);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i products = Products(Load(query, dtype, i), s, dtype != ACL_FLOAT);
        __m256 rounded = _mm256_castsi256_ps(products);
        if (dtype == ACL_FLOAT16) {
            rounded =
                _mm256_cvtph_ps(_mm256_cvtps_ph(rounded, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        } else if (dtype == ACL_BF16) {
            rounded = RoundToBf16(products);
        }
        _mm256_storeu_ps(out + i, rounded);
    }
    const int64_t offset = dtype == ACL_FLOAT ? 4 * i : 2 * i;
    baseline::PrescaleQueries(static_cast<const char*>(query) + offset, dtype, n - i, scale, out + i);
}

}  // namespace atbx::kernels::cpu::avx2
