#include <immintrin.h>

#include "kernels/cpu/query_prescale.h"

namespace atbx::kernels::cpu::avx512 {
namespace {

// The 8 products x (exact) rounded to fp32 toward zero, and in `inexact` the lanes where that changed them.
__m256 TowardZero(__m512d x, __mmask8& inexact) {
    const __m256 truncated = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(truncated), x, _CMP_NEQ_UQ);
    return truncated;
}

__m512 Join(__m256 low, __m256 high) {
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(low)), _mm256_castps_pd(high), 1));
}

// The 16 products q * scale rounded to fp32 to odd (core::RoundToOddFloat: toward zero, the last bit set
// where inexact), or to nearest for fp32 queries.
__m512i Products(__m512 q, __m512d scale, bool toOdd) {
    const __m512d low = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(q)), scale);
    const __m512d high = _mm512_mul_pd(
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(q), 1))), scale);
    if (!toOdd) return _mm512_castps_si512(Join(_mm512_cvtpd_ps(low), _mm512_cvtpd_ps(high)));
    __mmask8 lowInexact, highInexact;
    const __m512i truncated =
        _mm512_castps_si512(Join(TowardZero(low, lowInexact), TowardZero(high, highInexact)));
    const auto inexact = static_cast<__mmask16>(lowInexact | (highInexact << 8));
    return _mm512_mask_or_epi32(truncated, inexact, truncated, _mm512_set1_epi32(1));
}

// bf16 to nearest even of fp32 bits (core::FloatToBf16), widened back; NaN to the reference's quiet NaN.
__m512 RoundToBf16(__m512i bits) {
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    const __m512i rounded =
        _mm512_and_si512(_mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF))),
                         _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)));
    const __m512 value = _mm512_castsi512_ps(bits);
    return _mm512_mask_mov_ps(_mm512_castsi512_ps(rounded), _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q),
                              _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

__m512 Load(const void* query, aclDataType dtype, int64_t i) {
    const auto* half = static_cast<const uint16_t*>(query) + i;
    switch (dtype) {
        case ACL_FLOAT16:
            return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(half)));
        case ACL_BF16:
            return _mm512_castsi512_ps(_mm512_slli_epi32(
                _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(half))), 16));
        default:
            return _mm512_loadu_ps(static_cast<const float*>(query) + i);
    }
}

}  // namespace

void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out) {
    const __m512d s = _mm512_set1_pd(scale);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i products = Products(Load(query, dtype, i), s, dtype != ACL_FLOAT);
        __m512 rounded = _mm512_castsi512_ps(products);
        if (dtype == ACL_FLOAT16) {
            rounded =
                _mm512_cvtph_ps(_mm512_cvtps_ph(rounded, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        } else if (dtype == ACL_BF16) {
            rounded = RoundToBf16(products);
        }
        _mm512_storeu_ps(out + i, rounded);
    }
    const int64_t offset = dtype == ACL_FLOAT ? 4 * i : 2 * i;
    baseline::PrescaleQueries(static_cast<const char*>(query) + offset, dtype, n - i, scale, out + i);
}

}  // namespace atbx::kernels::cpu::avx512
