#include "core/float16.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace atbx::core {
namespace {

// A binary floating-point format with 1 sign bit, kExpBits exponent bits and kMantBits stored mantissa bits.
template <int kExpBits, int kMantBits>
struct SmallFloat {
    static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
    static constexpr int kMinExp = 1 - kBias;  // exponent of the smallest normal
    static constexpr uint16_t kExpMask = static_cast<uint16_t>(((1 << kExpBits) - 1) << kMantBits);
    static constexpr uint16_t kInfBits = kExpMask;
    static constexpr uint16_t kNanBits = static_cast<uint16_t>(kExpMask | (1u << (kMantBits - 1)));

    static uint16_t Encode(double value) {
        if (std::isnan(value)) return kNanBits;
        const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
        const double magnitude = std::fabs(value);
        if (magnitude == 0.0) return sign;
        if (std::isinf(magnitude)) return static_cast<uint16_t>(sign | kInfBits);
        // Quantum of the binade the value lies in, never finer than the subnormal quantum.
        int binade;
        std::frexp(magnitude, &binade);  // magnitude in [2^(binade-1), 2^binade)
        const int quantumExp = std::max(binade - 1 - kMantBits, kMinExp - kMantBits);
        const double units = std::nearbyint(std::ldexp(magnitude, -quantumExp));  // ties to even
        if (units == 0.0) return sign;
        const double rounded = std::ldexp(units, quantumExp);
        return static_cast<uint16_t>(sign | EncodeExact(rounded));
    }

  private:
    // Bits of a positive value that the format represents exactly (or that overflows it).
    static uint16_t EncodeExact(double magnitude) {
        int binade;
        std::frexp(magnitude, &binade);
        const int exponent = binade - 1;
        if (exponent > kBias) return kInfBits;
        if (exponent < kMinExp) {
            return static_cast<uint16_t>(std::ldexp(magnitude, kMantBits - kMinExp));  // subnormal units
        }
        const auto fraction =
            static_cast<uint16_t>(std::ldexp(magnitude, kMantBits - exponent) - (1 << kMantBits));
        return static_cast<uint16_t>(((exponent + kBias) << kMantBits) | fraction);
    }
};

using Half = SmallFloat<5, 10>;
using Bf16 = SmallFloat<8, 7>;

}  // namespace

uint16_t DoubleToHalf(double value) {
    return Half::Encode(value);
}

uint16_t DoubleToBf16(double value) {
    return Bf16::Encode(value);
}

}  // namespace atbx::core
