// Tensor vocabulary of atbx: data types, formats, descriptors and variant packs.
// Names and numeric values follow ATB and CANN (aclDataType, aclFormat, atb::TensorDesc ...) so that code
// written against ATB ports by changing its includes and namespace.
#ifndef ATBX_TYPES_H
#define ATBX_TYPES_H

#include <cstdint>
#include <string>
#include <vector>

namespace atbx {

// CANN's aclDataType values, all of them (so that a call ATB rejects for its dtype is rejected by the same
// rule here); atbx implements the ones its operations accept.
enum aclDataType : int {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
};

// CANN's aclFormat values, all of them (CANN spells FRACTAL_Z_3D without FORMAT_); ND (plain row-major) and
// FRACTAL_NZ (16x16-tiled) are the ones attention uses.
enum aclFormat : int {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
};

constexpr uint32_t MAX_DIM = 8;

struct Dims {
    int64_t dims[MAX_DIM] = {};
    uint64_t dimNum = 0;
};

struct TensorDesc {
    aclDataType dtype = ACL_DT_UNDEFINED;
    aclFormat format = ACL_FORMAT_UNDEFINED;
    Dims shape;
};

// On CPU both pointers address host memory. Operations read host-side tensors (contextLens, qSeqLen, seqLen,
// tokenOffset, batchRunStatus ...) from hostData when it is set and from deviceData otherwise; every other
// tensor is read from deviceData. dataSize is the number of bytes the pointer may be read or written at.
struct Tensor {
    TensorDesc desc;
    void* deviceData = nullptr;
    void* hostData = nullptr;
    uint64_t dataSize = 0;
};

template <class T>
using SVector = std::vector<T>;

struct VariantPack {
    SVector<Tensor> inTensors;
    SVector<Tensor> outTensors;
};

// Element size in bytes of a data type, 0 for types narrower than a byte and for strings.
uint64_t DataTypeSize(aclDataType dtype);
// Number of elements a descriptor describes (product of its dims; 0 for a rank-0 or negative-dim desc).
uint64_t ElementCount(const TensorDesc& desc);
// Name of a data type as case files spell it ("float16", "bfloat16", ...), "undefined" when unknown.
const char* DataTypeName(aclDataType dtype);
// Name of a format ("ND", "FRACTAL_NZ"), "undefined" when unknown.
const char* FormatName(aclFormat format);
// "[2, 32, 128]"-style rendering of a shape, for messages.
std::string ShapeToString(const Dims& shape);

}  // namespace atbx

#endif  // ATBX_TYPES_H
