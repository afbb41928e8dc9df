// Random tensor contents for tests, the demo and benchmarks: uniform values rounded to the tensor's dtype.
#ifndef ATBX_VERIFY_RANDOM_FILL_H
#define ATBX_VERIFY_RANDOM_FILL_H

#include <cstdint>
#include <random>

#include "atbx/types.h"

namespace atbx::verify {

// A value uniform in [low, high): the generator's 64 bits as a fraction of 2^64, scaled. The same values as
// libstdc++'s std::uniform_real_distribution<double> on this generator, written out so that a seed gives the
// same data with any standard library and compiler, and so that clang builds compute no long-double
// logarithms per value (libstdc++'s std::generate_canonical leaves two to run time where the compiler does
// not fold them).
double DrawUniform(double low, double high, std::mt19937_64& rng);

// Fills `count` elements of `dtype` with values uniform in [low, high) (integers: [low, high] truncated).
void FillUniform(void* data, aclDataType dtype, int64_t count, double low, double high, std::mt19937_64& rng);

// Fills with a value no kernel computes (NaN for floats, the type's minimum for integers), so that an element
// a kernel forgets to write is caught.
void FillPoison(void* data, aclDataType dtype, int64_t count);

}  // namespace atbx::verify

#endif  // ATBX_VERIFY_RANDOM_FILL_H
