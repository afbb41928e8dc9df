// IEEE binary16 (fp16) and bfloat16 conversions, exact in the widening direction and round-to-nearest-even in
// the narrowing direction (from double directly, so nothing is rounded twice).
#ifndef ATBX_CORE_FLOAT16_H
#define ATBX_CORE_FLOAT16_H

#include <cstdint>

namespace atbx::core {

float HalfToFloat(uint16_t bits);
uint16_t DoubleToHalf(double value);

float Bf16ToFloat(uint16_t bits);
uint16_t DoubleToBf16(double value);

}  // namespace atbx::core

#endif  // ATBX_CORE_FLOAT16_H
