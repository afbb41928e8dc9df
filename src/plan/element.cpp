#include "plan/element.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/float16.h"

namespace atbx::plan {
namespace {

template <class T>
T Load(const void* data, int64_t offset) {
    T value;
    std::memcpy(&value, static_cast<const char*>(data) + offset * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

template <class T>
void Store(void* data, int64_t offset, T value) {
    std::memcpy(static_cast<char*>(data) + offset * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

template <class T>
T SaturateToInt(double value) {
    if (std::isnan(value)) return 0;
    const double rounded = std::nearbyint(value);
    if (rounded <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(rounded);
}

}  // namespace

double LoadElement(const void* data, aclDataType dtype, int64_t offset) {
    switch (dtype) {
        case ACL_FLOAT16:
            return core::HalfToFloat(Load<uint16_t>(data, offset));
        case ACL_BF16:
            return core::Bf16ToFloat(Load<uint16_t>(data, offset));
        case ACL_FLOAT:
            return Load<float>(data, offset);
        case ACL_DOUBLE:
            return Load<double>(data, offset);
        case ACL_INT8:
            return Load<int8_t>(data, offset);
        case ACL_UINT8:
        case ACL_BOOL:
            return Load<uint8_t>(data, offset);
        case ACL_INT32:
            return Load<int32_t>(data, offset);
        case ACL_UINT32:
            return Load<uint32_t>(data, offset);
        case ACL_INT64:
            return static_cast<double>(Load<int64_t>(data, offset));
        case ACL_UINT64:
            return static_cast<double>(Load<uint64_t>(data, offset));
        default:
            return std::numeric_limits<double>::quiet_NaN();
    }
}

double LoadScale(const void* data, aclDataType dtype, int64_t offset) {
    if (dtype != ACL_INT64 && dtype != ACL_UINT64) return LoadElement(data, dtype, offset);
    const auto bits = static_cast<uint32_t>(Load<uint64_t>(data, offset) & 0xFFFFFFFFu);
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

void StoreElement(void* data, aclDataType dtype, int64_t offset, double value) {
    switch (dtype) {
        case ACL_FLOAT16:
            Store<uint16_t>(data, offset, core::DoubleToHalf(value));
            break;
        case ACL_BF16:
            Store<uint16_t>(data, offset, core::DoubleToBf16(value));
            break;
        case ACL_FLOAT:
            Store<float>(data, offset, static_cast<float>(value));
            break;
        case ACL_DOUBLE:
            Store<double>(data, offset, value);
            break;
        case ACL_INT8:
            Store<int8_t>(data, offset, SaturateToInt<int8_t>(value));
            break;
        case ACL_INT32:
            Store<int32_t>(data, offset, SaturateToInt<int32_t>(value));
            break;
        case ACL_INT64:
            Store<int64_t>(data, offset, SaturateToInt<int64_t>(value));
            break;
        default:
            break;
    }
}

double RoundToDtype(double value, aclDataType dtype) {
    switch (dtype) {
        case ACL_FLOAT16:
            return core::HalfToFloat(core::DoubleToHalf(value));
        case ACL_BF16:
            return core::Bf16ToFloat(core::DoubleToBf16(value));
        case ACL_FLOAT:
            return static_cast<float>(value);
        default:
            return value;
    }
}

}  // namespace atbx::plan
