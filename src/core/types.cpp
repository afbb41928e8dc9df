#include "atbx/types.h"

#include <string>

#include "core/str_cat.h"

namespace atbx {

uint64_t DataTypeSize(aclDataType dtype) {
    switch (dtype) {
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_BOOL:
        case ACL_HIFLOAT8:
        case ACL_FLOAT8_E5M2:
        case ACL_FLOAT8_E4M3FN:
        case ACL_FLOAT8_E8M0:
            return 1;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
        case ACL_COMPLEX32:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
        case ACL_COMPLEX64:
            return 8;
        case ACL_COMPLEX128:
            return 16;
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
        case ACL_STRING:
            return "string";
        case ACL_COMPLEX64:
            return "complex64";
        case ACL_COMPLEX128:
            return "complex128";
        case ACL_INT4:
            return "int4";
        case ACL_UINT1:
            return "uint1";
        case ACL_COMPLEX32:
            return "complex32";
        case ACL_HIFLOAT8:
            return "hifloat8";
        case ACL_FLOAT8_E5M2:
            return "float8_e5m2";
        case ACL_FLOAT8_E4M3FN:
            return "float8_e4m3fn";
        case ACL_FLOAT8_E8M0:
            return "float8_e8m0";
        case ACL_FLOAT6_E3M2:
            return "float6_e3m2";
        case ACL_FLOAT6_E2M3:
            return "float6_e2m3";
        case ACL_FLOAT4_E2M1:
            return "float4_e2m1";
        case ACL_FLOAT4_E1M2:
            return "float4_e1m2";
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
        case ACL_FORMAT_NC1HWC0:
            return "NC1HWC0";
        case ACL_FORMAT_FRACTAL_Z:
            return "FRACTAL_Z";
        case ACL_FORMAT_NC1HWC0_C04:
            return "NC1HWC0_C04";
        case ACL_FORMAT_HWCN:
            return "HWCN";
        case ACL_FORMAT_NDHWC:
            return "NDHWC";
        case ACL_FORMAT_NCDHW:
            return "NCDHW";
        case ACL_FORMAT_NDC1HWC0:
            return "NDC1HWC0";
        case ACL_FRACTAL_Z_3D:
            return "FRACTAL_Z_3D";
        case ACL_FORMAT_NC:
            return "NC";
        case ACL_FORMAT_NCL:
            return "NCL";
        case ACL_FORMAT_FRACTAL_NZ_C0_16:
            return "FRACTAL_NZ_C0_16";
        case ACL_FORMAT_FRACTAL_NZ_C0_32:
            return "FRACTAL_NZ_C0_32";
        case ACL_FORMAT_FRACTAL_NZ_C0_2:
            return "FRACTAL_NZ_C0_2";
        case ACL_FORMAT_FRACTAL_NZ_C0_4:
            return "FRACTAL_NZ_C0_4";
        case ACL_FORMAT_FRACTAL_NZ_C0_8:
            return "FRACTAL_NZ_C0_8";
        default:
            return "undefined";
    }
}

std::string ShapeToString(const Dims& shape) {
    std::string out = "[";
    const uint64_t rank = shape.dimNum <= MAX_DIM ? shape.dimNum : MAX_DIM;
    for (uint64_t i = 0; i < rank; ++i)
        core::StrAppend(out, i > 0 ? ", " : "", shape.dims[i]);
    out += ']';
    return out;
}

}  // namespace atbx
