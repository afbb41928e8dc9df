#include "atbx/types.h"

#include <sstream>

namespace atbx {

uint64_t DataTypeSize(aclDataType dtype) {
    switch (dtype) {
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_BOOL:
            return 1;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
            return 8;
        default:
            return 0;
    }
}

uint64_t ElementCount(const TensorDesc& desc) {
    if (desc.shape.dimNum == 0 || desc.shape.dimNum > MAX_DIM) return 0;
    uint64_t count = 1;
    for (uint64_t i = 0; i < desc.shape.dimNum; ++i) {
        const int64_t dim = desc.shape.dims[i];
        if (dim <= 0) return 0;
        // Saturate instead of wrapping: a huge count fails every size check that follows.
        if (count > UINT64_MAX / static_cast<uint64_t>(dim)) return UINT64_MAX;
        count *= static_cast<uint64_t>(dim);
    }
    return count;
}

const char* DataTypeName(aclDataType dtype) {
    switch (dtype) {
        case ACL_FLOAT16:
            return "float16";
        case ACL_BF16:
            return "bfloat16";
        case ACL_FLOAT:
            return "float32";
        case ACL_INT8:
            return "int8";
        case ACL_INT32:
            return "int32";
        case ACL_INT64:
            return "int64";
        case ACL_UINT64:
            return "uint64";
        case ACL_UINT32:
            return "uint32";
        case ACL_UINT8:
            return "uint8";
        case ACL_INT16:
            return "int16";
        case ACL_UINT16:
            return "uint16";
        case ACL_DOUBLE:
            return "float64";
        case ACL_BOOL:
            return "bool";
        default:
            return "undefined";
    }
}

const char* FormatName(aclFormat format) {
    switch (format) {
        case ACL_FORMAT_ND:
            return "ND";
        case ACL_FORMAT_FRACTAL_NZ:
            return "FRACTAL_NZ";
        case ACL_FORMAT_NCHW:
            return "NCHW";
        case ACL_FORMAT_NHWC:
            return "NHWC";
        default:
            return "undefined";
    }
}

std::string ShapeToString(const Dims& shape) {
    std::ostringstream out;
    out << '[';
    const uint64_t rank = shape.dimNum <= MAX_DIM ? shape.dimNum : MAX_DIM;
    for (uint64_t i = 0; i < rank; ++i)
        out << (i ? ", " : "") << shape.dims[i];
    out << ']';
    return out.str();
}

}  // namespace atbx
