#include "verify/random_fill.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "plan/element.h"

namespace atbx::verify {

void FillUniform(void* data, aclDataType dtype, int64_t count, double low, double high,
                 std::mt19937_64& rng) {
    std::uniform_real_distribution<double> uniform(low, high);
    const bool integer = dtype == ACL_INT8 || dtype == ACL_INT32 || dtype == ACL_INT64;
    for (int64_t i = 0; i < count; ++i) {
        const double value = uniform(rng);
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
