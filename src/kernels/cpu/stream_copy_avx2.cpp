#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/stream_copy.h"

namespace atbx::kernels::cpu::avx2 {
namespace {

void StoreLine(char* to, const char* from) {
    const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
    const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to), low);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to + 32), high);
}

#include "kernels/cpu/stream_copy.inl"

}  // namespace

void StreamCopy(char* to, const char* from, size_t bytes) {
    StreamCopyLines(to, from, bytes);
}

}  // namespace atbx::kernels::cpu::avx2
