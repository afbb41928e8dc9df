// IEEE binary16 (fp16) and bfloat16 conversions, exact in the widening direction and round-to-nearest-even in
// the narrowing direction (from double directly, so nothing is rounded twice).
#ifndef ATBX_CORE_FLOAT16_H
#define ATBX_CORE_FLOAT16_H

#include <bit>
#include <cmath>
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

// The fp32 nearest x rounded to odd: where x is not an fp32 value, the neighbour of the two around it whose
// last bit is set. Rounded to odd at 24 bits and then to nearest even at 11 bits (fp16) or 8 (bf16), a value
// is rounded as it would be directly (two bits more than the narrow format suffice), so that a product of two
// fp32 values, exact in double, reaches fp16 or bf16 through fp32 without rounding twice.
// Without branches (half of all inexact products step back, unpredictably): the nearest lying beyond x steps
// toward zero by one unit, and an inexact result sets its last bit (a NaN stays a NaN).
inline float RoundToOddFloat(double x) {
    const float nearest = static_cast<float>(x);
    const double back = nearest;
    const uint32_t inexact = back != x ? 1u : 0u;
    const uint32_t beyond = std::fabs(back) > std::fabs(x) ? 1u : 0u;
    return std::bit_cast<float>((std::bit_cast<uint32_t>(nearest) - beyond) | inexact);
}

// Round to nearest even from fp32 by bits, as DoubleToHalf and DoubleToBf16 round the same value (NaN to
// their quiet NaN): the exact narrowing of a kernel's per-element values, without frexp and ldexp.
inline uint16_t FloatToHalf(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) return 0x7E00u;
    if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // 65520 on rounds to inf
    if (magnitude < 0x38800000u) {
        // Below 2^-14: units of 2^-24 (subnormal), rounded by the fp32 add whose ulp at 0.5 is that unit.
        const float units = std::bit_cast<float>(magnitude) + 0.5f;
        return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(units) - 0x3F000000u));
    }
    // Rebias the exponent (127 - 15), then round the 13 dropped bits to nearest, ties to the even result.
    const uint32_t odd = (magnitude >> 13) & 1u;
    return static_cast<uint16_t>(sign | ((magnitude + 0xC8000FFFu + odd) >> 13));
}
inline uint16_t FloatToBf16(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
    return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace atbx::core

#endif  // ATBX_CORE_FLOAT16_H
