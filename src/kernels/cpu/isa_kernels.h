// The attention kernel compiled once per instruction set (attention_kernel.inl), each in its own namespace.
// Call one only where core::HostCpu() has its features.
#ifndef ATBX_KERNELS_CPU_ISA_KERNELS_H
#define ATBX_KERNELS_CPU_ISA_KERNELS_H

#include "kernels/cpu/kernel_call.h"

namespace atbx::kernels::cpu {
namespace avx512 {
void RunAttention(const KernelCall& call);  // AVX-512 F/BW/DQ/VL, FMA, F16C
}
namespace avx2 {
void RunAttention(const KernelCall& call);  // AVX2, FMA, F16C
}
namespace scalar {
void RunAttention(const KernelCall& call);  // baseline x86-64
}
}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_ISA_KERNELS_H
