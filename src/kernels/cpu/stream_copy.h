// Copies for large cache writes (cache_write_cpu.cpp) with non-temporal stores: such a write then moves each
// byte once each way instead of first reading the destination's lines into the cache. From the destination's
// first 64-byte boundary each line is written by whole-line stores (one AVX-512 store, two AVX2 ones, four
// SSE2 ones), the source read a few lines ahead; the edges are copied with ordinary stores. The caller fences
// (_mm_sfence) before the copies count as done. One translation unit per instruction set.
#ifndef ATBX_KERNELS_CPU_STREAM_COPY_H
#define ATBX_KERNELS_CPU_STREAM_COPY_H

#include <cstddef>

namespace atbx::kernels::cpu {

using StreamCopyFn = void (*)(char* to, const char* from, size_t bytes);

namespace baseline {
void StreamCopy(char* to, const char* from, size_t bytes);  // SSE2, part of x86-64
}
namespace avx2 {
void StreamCopy(char* to, const char* from, size_t bytes);
}
namespace avx512 {
void StreamCopy(char* to, const char* from, size_t bytes);
}

// The widest the host CPU runs (core::HostCpu()).
StreamCopyFn HostStreamCopy();

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_STREAM_COPY_H
