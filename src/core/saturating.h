// Saturating arithmetic for products of caller-given dims: rules compare such products before any rule has
// bounded the dims, so a product that overflows int64 saturates (and then fails the comparison) instead of
// wrapping.
#ifndef ATBX_CORE_SATURATING_H
#define ATBX_CORE_SATURATING_H

#include <cstdint>
#include <limits>

namespace atbx::core {

// a * b, or INT64_MAX / INT64_MIN (by the product's sign) when it does not fit.
inline int64_t SaturatingMul(int64_t a, int64_t b) {
    int64_t product = 0;
    if (!__builtin_mul_overflow(a, b, &product)) return product;
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}

}  // namespace atbx::core

#endif  // ATBX_CORE_SATURATING_H
