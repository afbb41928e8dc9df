// TestCall: an operation call owned by a test: the param, the platform, the input and output tensors. Tests
// build a valid call, change one thing, and validate or execute it.
#ifndef ATBX_TESTS_SUPPORT_TEST_CALL_H
#define ATBX_TESTS_SUPPORT_TEST_CALL_H

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "atbx/platform.h"
#include "atbx/types.h"
#include "io/host_tensor.h"
#include "io/op_param.h"

namespace atbx::test {

TensorDesc Desc(aclDataType dtype, std::initializer_list<int64_t> dims, aclFormat format = ACL_FORMAT_ND);
io::HostTensor ZeroTensor(const TensorDesc& desc);
// A 1-D int32 tensor holding the values.
io::HostTensor Int32Tensor(const std::vector<int32_t>& values);

// Typed element access through the tensor's dtype (plan::LoadElement / StoreElement).
int64_t ElementCount(const io::HostTensor& tensor);
void SetElement(io::HostTensor& tensor, int64_t index, double value);
void ScaleElements(io::HostTensor& tensor, double factor);
// Scales the tensor so that its largest |element| becomes `largest` (each element v / max|v| * largest).
void ScaleLargestTo(io::HostTensor& tensor, double largest);

template <class T>
std::span<T> Elements(io::HostTensor& tensor) {
    return {reinterpret_cast<T*>(tensor.bytes.data()), tensor.bytes.size() / sizeof(T)};
}

struct TestCall {
    io::OpParam param;
    Platform platform = Platform::kAtlasA2;
    std::vector<std::string> inputNames;  // the slots of the param, in order
    std::vector<io::HostTensor> inputs;
    std::vector<io::HostTensor> outputs;
    std::vector<std::string> detachedInputs;  // inputs the pack gives no data pointer

    // Input by ATB name ("query", "contextLens" ...); fails the test when the param has no such input.
    io::HostTensor& In(std::string_view name);
    int IndexOf(std::string_view name) const;  // -1 when absent
    template <class P>
    P& Param() {
        return std::get<P>(param);
    }
    // A pack viewing the tensors (host tensors get both hostData and deviceData).
    VariantPack Pack();
};

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_TEST_CALL_H
