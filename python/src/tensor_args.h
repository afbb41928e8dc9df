// Python arrays as atbx tensors. A NumPy array or a PyTorch CPU tensor (through DLPack) is bound in place:
// the tensor points at the array's own memory, nothing is copied. The Python side names each array's ATB
// dtype (a bfloat16 array travels as its uint16 bits) and format.
#ifndef ATBX_PYTHON_TENSOR_ARGS_H
#define ATBX_PYTHON_TENSOR_ARGS_H

#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "atbx/types.h"

namespace atbx::python {

// (array, aclDataType code, aclFormat code), as atbx/_operation.py passes them.
using ArrayArg = std::tuple<nanobind::ndarray<>, int, int>;
// (shape, aclDataType code, aclFormat code): a descriptor without data (infer_shape).
using DescArg = std::tuple<std::vector<int64_t>, int, int>;

// Binds the array's memory as deviceData and hostData, its nbytes as dataSize. Raises ValueError for memory
// that is not on the CPU, not C-contiguous or of more than MAX_DIM dims, TypeError when the array's item size
// is not the dtype's. `label` names the tensor in messages ("input 2 (valueCache)").
Tensor BindArray(const ArrayArg& arg, const std::string& label);

TensorDesc Describe(const DescArg& arg, const std::string& label);
DescArg ToDescArg(const TensorDesc& desc);

}  // namespace atbx::python

#endif  // ATBX_PYTHON_TENSOR_ARGS_H
