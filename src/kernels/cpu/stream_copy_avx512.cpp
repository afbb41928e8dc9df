#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/stream_copy.h"

namespace atbx::kernels::cpu::avx512 {
namespace {

void StoreLine(char* to, const char* from) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(to), _mm512_loadu_si512(from));
}

#include "kernels/cpu/stream_copy.inl"

}  // namespace

void StreamCopy(char* to, const char* from, size_t bytes) {
    StreamCopyLines(to, from, bytes);
}

}  // namespace atbx::kernels::cpu::avx512
