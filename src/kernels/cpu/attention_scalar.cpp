// The attention kernel for the scalar path ("cpu:scalar"); CMake compiles this file alone with the path's
// instruction-set flags.
#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/isa_kernels.h"

#define ATBX_KERNEL_NAMESPACE atbx::kernels::cpu::scalar
namespace ATBX_KERNEL_NAMESPACE {
#include "kernels/cpu/simd/simd_scalar.inl"
}  // namespace ATBX_KERNEL_NAMESPACE
#include "kernels/common/online_softmax.inl"
#include "kernels/cpu/attention_kernel.inl"
