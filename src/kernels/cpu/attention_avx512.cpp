// The attention kernel for the avx512 path ("cpu:avx512"); CMake compiles this file alone with the path's
// instruction-set flags.
#include <immintrin.h>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/isa_kernels.h"

#define ATBX_KERNEL_NAMESPACE atbx::kernels::cpu::avx512
namespace ATBX_KERNEL_NAMESPACE {
#include "kernels/cpu/simd/simd_avx512.inl"
}  // namespace ATBX_KERNEL_NAMESPACE
#include "kernels/common/online_softmax.inl"
#include "kernels/cpu/attention_kernel.inl"
