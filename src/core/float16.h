// IEEE binary16 (fp16) and bfloat16 conversions, exact in the widening direction and round-to-nearest-even in
// the narrowing direction (from double directly, so nothing is rounded twice).
#ifndef ATBX_CORE_FLOAT16_H
#define ATBX_CORE_FLOAT16_H

#include <bit>
#include <cstdint>

namespace atbx::core {

// Exact without branching on the value class (inline: kernels convert every element they read): the exponent
// and mantissa bits, shifted into fp32 position and multiplied by 2^112 (the difference of the biases), give
// normals and subnormals alike; inf and NaN only need the fp32 exponent field filled in.
inline float HalfToFloat(uint16_t bits) {
    const float scaled = std::bit_cast<float>(static_cast<uint32_t>(bits & 0x7FFFu) << 13) * 0x1p112f;
    uint32_t widened = std::bit_cast<uint32_t>(scaled);
    if ((bits & 0x7C00u) == 0x7C00u) widened |= 0x7F800000u;
    widened |= static_cast<uint32_t>(bits & 0x8000u) << 16;
    return std::bit_cast<float>(widened);
}
uint16_t DoubleToHalf(double value);

inline float Bf16ToFloat(uint16_t bits) {
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
uint16_t DoubleToBf16(double value);

}  // namespace atbx::core

#endif  // ATBX_CORE_FLOAT16_H
