// Reading and writing single elements of a typed buffer as double: the reference kernels' view of memory.
#ifndef ATBX_PLAN_ELEMENT_H
#define ATBX_PLAN_ELEMENT_H

#include <cstdint>

#include "atbx/types.h"

namespace atbx::plan {

// Value of element `offset` (in elements) of a buffer of the given dtype. For int64/uint64 buffers the value
// is the integer itself; descale tensors that store fp32 bit patterns are decoded where they are planned.
double LoadElement(const void* data, aclDataType dtype, int64_t offset);

// A scale stored as fp32, or as int64/uint64 whose low 32 bits are the bits of an fp32 (ATB's descale form).
double LoadScale(const void* data, aclDataType dtype, int64_t offset);

// Rounds the value to the dtype (round to nearest even; saturating conversions for integers) and stores it.
void StoreElement(void* data, aclDataType dtype, int64_t offset, double value);

// The value the dtype holds after rounding `value` to it, as double (fp16/bf16/fp32 rounding; others
// unchanged).
double RoundToDtype(double value, aclDataType dtype);

// Element address of channel c inside a row that starts at `rowOffset`: plain when tile == 0, FRACTAL_NZ
// (tiles of `tile` channels, `tileStride` elements apart) otherwise.
inline int64_t ChannelOffset(int64_t rowOffset, int64_t c, int tile, int64_t tileStride) {
    if (tile == 0) return rowOffset + c;
    return rowOffset + (c / tile) * tileStride + c % tile;
}

}  // namespace atbx::plan

#endif  // ATBX_PLAN_ELEMENT_H
