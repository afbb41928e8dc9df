// HostTensor: a tensor held in memory, its descriptor and its bytes (a case's outputs, the tests' calls).
#ifndef ATBX_IO_HOST_TENSOR_H
#define ATBX_IO_HOST_TENSOR_H

#include <cstdint>
#include <vector>

#include "atbx/types.h"

namespace atbx::io {

struct HostTensor {
    TensorDesc desc;
    std::vector<uint8_t> bytes;
};

}  // namespace atbx::io

#endif  // ATBX_IO_HOST_TENSOR_H
