#include "kernels/cpu/stream_copy.h"

#include <emmintrin.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu_features.h"

namespace atbx::kernels::cpu {
namespace baseline {
namespace {

void StoreLine(char* to, const char* from) {
    for (int i = 0; i < 64; i += 16) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
    }
}

#include "kernels/cpu/stream_copy.inl"

}  // namespace

void StreamCopy(char* to, const char* from, size_t bytes) {
    StreamCopyLines(to, from, bytes);
}

}  // namespace baseline

StreamCopyFn HostStreamCopy() {
    const core::CpuFeatures& cpu = core::HostCpu();
    if (cpu.avx512f) return avx512::StreamCopy;
    if (cpu.avx2) return avx2::StreamCopy;
    return baseline::StreamCopy;
}

}  // namespace atbx::kernels::cpu
