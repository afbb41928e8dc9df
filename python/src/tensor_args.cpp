#include "tensor_args.h"

#include "core/str_cat.h"

namespace atbx::python {
namespace {

namespace nb = nanobind;
using core::StrCat;

TensorDesc MakeDesc(size_t rank, const auto& dimAt, int dtype, int format, const std::string& label) {
    if (rank > MAX_DIM) {
        throw nb::value_error(
            StrCat(label, " has ", rank, " dims; ATB tensors have at most ", MAX_DIM).c_str());
    }
    TensorDesc desc;
    desc.dtype = static_cast<aclDataType>(dtype);
    desc.format = static_cast<aclFormat>(format);
    desc.shape.dimNum = rank;
    for (size_t i = 0; i < rank; ++i)
        desc.shape.dims[i] = dimAt(i);
    return desc;
}

// C order: each stride (in elements) is the product of the dims after it; a dim of 1 may have any stride.
bool IsCContiguous(const nb::ndarray<>& a) {
    int64_t expected = 1;
    for (size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != expected) return false;
        expected *= static_cast<int64_t>(a.shape(i));
    }
    return true;
}

}  // namespace

Tensor BindArray(const ArrayArg& arg, const std::string& label) {
    const auto& [array, dtype, format] = arg;
    if (array.device_type() != nb::device::cpu::value) {
        throw nb::value_error(StrCat(label, " is not in CPU memory (DLPack device type ", array.device_type(),
                                     "); atbx runs on the CPU")
                                  .c_str());
    }
    const uint64_t itemSize = DataTypeSize(static_cast<aclDataType>(dtype));
    if (itemSize == 0 || array.itemsize() != itemSize) {
        throw nb::type_error(StrCat(label, ": an array of ", array.itemsize(), "-byte items cannot hold ",
                                    DataTypeName(static_cast<aclDataType>(dtype)))
                                 .c_str());
    }
    if (!IsCContiguous(array)) {
        throw nb::value_error(StrCat(label,
                                     " is not C-contiguous; atbx reads and writes arrays in place and never "
                                     "copies them (pass np.ascontiguousarray(x) or x.contiguous())")
                                  .c_str());
    }
    Tensor tensor;
    tensor.desc = MakeDesc(
        array.ndim(), [&](size_t i) { return static_cast<int64_t>(array.shape(i)); }, dtype, format, label);
    tensor.deviceData = array.data();
    tensor.hostData = array.data();
    tensor.dataSize = array.nbytes();
    return tensor;
}

TensorDesc Describe(const DescArg& arg, const std::string& label) {
    const auto& [shape, dtype, format] = arg;
    return MakeDesc(
        shape.size(), [&](size_t i) { return shape[i]; }, dtype, format, label);
}

DescArg ToDescArg(const TensorDesc& desc) {
    return {std::vector<int64_t>(desc.shape.dims, desc.shape.dims + desc.shape.dimNum),
            static_cast<int>(desc.dtype), static_cast<int>(desc.format)};
}

}  // namespace atbx::python
