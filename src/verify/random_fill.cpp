#include "verify/random_fill.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "plan/element.h"

namespace atbx::verify {

double DrawUniform(double low, double high, std::mt19937_64& rng) {
    double unit = std::ldexp(static_cast<double>(rng()), -64);
    if (unit >= 1.0) unit = std::nextafter(1.0, 0.0);  // the top values round up to 2^64 as doubles
    return unit * (high - low) + low;
}

void FillUniform(void* data, aclDataType dtype, int64_t count, double low, double high,
                 std::mt19937_64& rng) {
    const bool integer = dtype == ACL_INT8 || dtype == ACL_INT32 || dtype == ACL_INT64;
    for (int64_t i = 0; i < count; ++i) {
        const double value = DrawUniform(low, high, rng);
        plan::StoreElement(data, dtype, i, integer ? std::trunc(value) : value);
    }
}

void FillPoison(void* data, aclDataType dtype, int64_t count) {
    const double poison = (dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_FLOAT)
                              ? std::numeric_limits<double>::quiet_NaN()
                              : -1e300;
    for (int64_t i = 0; i < count; ++i)
        plan::StoreElement(data, dtype, i, poison);
}

}  // namespace atbx::verify
