#include <immintrin.h>

#include "kernels/cpu/half_row_sums.h"

namespace atbx::kernels::cpu::f16c {
namespace {

constexpr int64_t kBlockChannels = 64;  // channels whose sums stay in registers over the rows
constexpr int kVectors = kBlockChannels / 8;

// Channels [c0, c0 + kBlockChannels) of AddHalfRows.
void AddBlock(const uint16_t* first, int64_t stride, int32_t rows, int64_t c0, int32_t ahead, float* sums) {
    __m256 acc[kVectors];
    for (int i = 0; i < kVectors; ++i)
        acc[i] = _mm256_loadu_ps(sums + c0 + 8 * i);
    for (int32_t r = 0; r < rows; ++r) {
        const uint16_t* row = first + r * stride + c0;
        if (r + ahead < rows) {
            const auto* next = reinterpret_cast<const char*>(row + ahead * stride);
            _mm_prefetch(next, _MM_HINT_T1);
            _mm_prefetch(next + 64, _MM_HINT_T1);
        }
        for (int i = 0; i < kVectors; ++i) {
            const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 8 * i));
            acc[i] = _mm256_add_ps(acc[i], _mm256_cvtph_ps(half));
        }
    }
    for (int i = 0; i < kVectors; ++i)
        _mm256_storeu_ps(sums + c0 + 8 * i, acc[i]);
}

}  // namespace

void AddHalfRows(const uint16_t* first, int64_t stride, int32_t rows, int64_t count, int32_t ahead,
                 float* sums) {
    int64_t c0 = 0;
    for (; c0 + kBlockChannels <= count; c0 += kBlockChannels)
        AddBlock(first, stride, rows, c0, ahead, sums);
    for (; c0 < count; ++c0) {  // the last channels one at a time, rows in order
        float sum = sums[c0];
        for (int32_t r = 0; r < rows; ++r)
            sum += _cvtsh_ss(first[r * stride + c0]);
        sums[c0] = sum;
    }
}

}  // namespace atbx::kernels::cpu::f16c
