// The attention kernel compiled once per instruction set (attention_kernel.inl), each in its own namespace.
// Call one only where core::HostCpu() has its features. Each offers the whole call (RunAttention) and its
// parts, so that a path may run some tasks itself and hand the rest to another: one task of the schedule with
// a thread's scratch (call.scratch + thread * call.layout.total) and, where the caller has one, the claim of
// the thread's next task (whose first keys the task then requests as it ends), and one merge step after every
// task has run. SoftmaxExp is the path's vector e^x, the one its softmax uses, over n values (for its test).
#ifndef ATBX_KERNELS_CPU_ISA_KERNELS_H
#define ATBX_KERNELS_CPU_ISA_KERNELS_H

#include "core/parallel.h"
#include "kernels/cpu/kernel_call.h"

namespace atbx::kernels::cpu {
namespace avx512 {
void RunAttention(const KernelCall& call);  // AVX-512 F/BW/DQ/VL, FMA, F16C
void RunTask(const KernelCall& call, int64_t task, float* scratch, core::NextTask* next = nullptr);
void MergeRowBlock(const KernelCall& call, int64_t step);
void SoftmaxExp(const float* x, float* y, int64_t n);
}  // namespace avx512
namespace avx2 {
void RunAttention(const KernelCall& call);  // AVX2, FMA, F16C
void RunTask(const KernelCall& call, int64_t task, float* scratch, core::NextTask* next = nullptr);
void MergeRowBlock(const KernelCall& call, int64_t step);
void SoftmaxExp(const float* x, float* y, int64_t n);
}  // namespace avx2
namespace scalar {
void RunAttention(const KernelCall& call);  // baseline x86-64
void RunTask(const KernelCall& call, int64_t task, float* scratch, core::NextTask* next = nullptr);
void MergeRowBlock(const KernelCall& call, int64_t step);
void SoftmaxExp(const float* x, float* y, int64_t n);
}  // namespace scalar
}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_ISA_KERNELS_H
