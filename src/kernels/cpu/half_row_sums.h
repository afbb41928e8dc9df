// Sums of fp16 rows for the KVHEAD_ROPE means of the CPU cache writes (cache_write_cpu.cpp), with the F16C
// conversions: widening fp16 without them takes a dozen SSE2 operations per four elements, which made a mean
// several times slower per byte than the copy around it. Compiled with -mavx -mf16c alone; called only where
// the CPU has F16C (core::HostCpu()).
#ifndef ATBX_KERNELS_CPU_HALF_ROW_SUMS_H
#define ATBX_KERNELS_CPU_HALF_ROW_SUMS_H

#include <cstdint>

namespace atbx::kernels::cpu::f16c {

// sums[c] += the fp32 value of element c of each of `rows` fp16 rows, row r at first + r * stride elements,
// for c < count: each channel's rows added in row order in fp32, so the sums are those of the same loop
// element by element. Asks for the lines of the row `ahead` rows on as it adds one.
void AddHalfRows(const uint16_t* first, int64_t stride, int32_t rows, int64_t count, int32_t ahead,
                 float* sums);

}  // namespace atbx::kernels::cpu::f16c

#endif  // ATBX_KERNELS_CPU_HALF_ROW_SUMS_H
