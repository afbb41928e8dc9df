// Random tensor contents for tests, the demo and benchmarks: uniform values rounded to the tensor's dtype.
#ifndef ATBX_VERIFY_RANDOM_FILL_H
#define ATBX_VERIFY_RANDOM_FILL_H

#include <cstdint>
#include <random>

#include "atbx/types.h"

namespace atbx::verify {

// Fills `count` elements of `dtype` with values uniform in [low, high) (integers: [low, high] truncated).
void FillUniform(void* data, aclDataType dtype, int64_t count, double low, double high, std::mt19937_64& rng);

// Fills with a value no kernel computes (NaN for floats, the type's minimum for integers), so that an element
// a kernel forgets to write is caught.
void FillPoison(void* data, aclDataType dtype, int64_t count);

}  // namespace atbx::verify

#endif  // ATBX_VERIFY_RANDOM_FILL_H
