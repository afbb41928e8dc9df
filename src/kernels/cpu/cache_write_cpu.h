// The CPU cache-write kernel: ReshapeAndCache and SelfAttention's KV cache in the op at memory speed. Rows
// are cut into tasks of about 64 KiB run by core::ParallelFor; ND rows are contiguous copies, FRACTAL_NZ rows
// are copied one channel tile (16 or 32 contiguous channels) at a time, and KVHEAD_ROPE means are summed
// across a row's channels at once in the reference's order, so every byte equals the reference's
// (kernels/ref/cache_write_ref.h).
#ifndef ATBX_KERNELS_CPU_CACHE_WRITE_CPU_H
#define ATBX_KERNELS_CPU_CACHE_WRITE_CPU_H

#include "plan/cache_write.h"

namespace atbx::kernels::cpu {

// Runs every write of the plan on `threads` threads (0: every hardware thread). A stream runs after every
// earlier stream that writes the same buffer (the whole-cache copy before the rows written into it); streams
// into distinct buffers run together. The result does not depend on the thread count.
void ExecuteCacheWrites(const plan::CacheWritePlan& plan, int threads);

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_CACHE_WRITE_CPU_H
