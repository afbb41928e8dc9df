// Queries times qScale (plan::AttentionPlan::qPreScale), rounded to their dtype as the reference rounds them
// (docs/spec/paged_attention.md, "q' = cast_dtype(q * qScale)"): each element q * s, exact in double for an
// fp32 s, rounded once to fp16, bf16 or fp32, and given back as fp32. The kernels take a task's query
// elements through the thread's cache (kernel_call.h, QueryTag); per element through double and
// core/float16.cpp's encoders they took a prefill with a qScale to 1.6x the time of the same call without.
// One translation unit per instruction set: products rounded to fp32 to odd and then to the dtype
// (core::RoundToOddFloat), 8 or 16 at a time.
#ifndef ATBX_KERNELS_CPU_QUERY_PRESCALE_H
#define ATBX_KERNELS_CPU_QUERY_PRESCALE_H

#include <cstdint>

#include "atbx/types.h"

namespace atbx::kernels::cpu {

// out[i] = q[i] * scale rounded to `dtype` (ACL_FLOAT16, ACL_BF16 or ACL_FLOAT: the query's), i < n, q[i]
// the i-th element of `query` in that dtype. A NaN product gives a NaN (not necessarily the reference's
// bits).
using PrescaleFn = void (*)(const void* query, aclDataType dtype, int64_t n, float scale, float* out);

namespace baseline {
void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out);
}
namespace avx2 {
void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out);  // + F16C
}
namespace avx512 {
void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out);
}

// The widest the host CPU runs (core::HostCpu()).
PrescaleFn HostPrescaleQueries();

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_QUERY_PRESCALE_H
