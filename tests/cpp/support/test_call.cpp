#include "support/test_call.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "plan/element.h"

namespace atbx::test {

TensorDesc Desc(aclDataType dtype, std::initializer_list<int64_t> dims, aclFormat format) {
    TensorDesc desc;
    desc.dtype = dtype;
    desc.format = format;
    for (int64_t d : dims)
        desc.shape.dims[desc.shape.dimNum++] = d;
    return desc;
}

io::HostTensor ZeroTensor(const TensorDesc& desc) {
    return {desc, std::vector<uint8_t>(ElementCount(desc) * DataTypeSize(desc.dtype), 0)};
}

io::HostTensor Int32Tensor(const std::vector<int32_t>& values) {
    io::HostTensor tensor = ZeroTensor(Desc(ACL_INT32, {static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), Elements<int32_t>(tensor).begin());
    return tensor;
}

int TestCall::IndexOf(std::string_view name) const {
    auto it = std::find(inputNames.begin(), inputNames.end(), name);
    return it == inputNames.end() ? -1 : static_cast<int>(it - inputNames.begin());
}

io::HostTensor& TestCall::In(std::string_view name) {
    const int index = IndexOf(name);
    EXPECT_GE(index, 0) << "the call has no input named " << name;
    return inputs.at(index < 0 ? inputs.size() : static_cast<size_t>(index));
}

VariantPack TestCall::Pack() {
    VariantPack pack;
    const auto view = [](io::HostTensor& t) {
        return Tensor{t.desc, t.bytes.data(), t.bytes.data(), t.bytes.size()};
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        pack.inTensors.push_back(view(inputs[i]));
        const bool detached = i < inputNames.size() && std::find(detachedInputs.begin(), detachedInputs.end(),
                                                                 inputNames[i]) != detachedInputs.end();
        if (detached) pack.inTensors.back().deviceData = pack.inTensors.back().hostData = nullptr;
    }
    for (io::HostTensor& t : outputs)
        pack.outTensors.push_back(view(t));
    return pack;
}

int64_t ElementCount(const io::HostTensor& tensor) {
    return static_cast<int64_t>(tensor.bytes.size() / DataTypeSize(tensor.desc.dtype));
}

void SetElement(io::HostTensor& tensor, int64_t index, double value) {
    plan::StoreElement(tensor.bytes.data(), tensor.desc.dtype, index, value);
}

void ScaleElements(io::HostTensor& tensor, double factor) {
    for (int64_t i = 0; i < ElementCount(tensor); ++i)
        SetElement(tensor, i, plan::LoadElement(tensor.bytes.data(), tensor.desc.dtype, i) * factor);
}

void ScaleLargestTo(io::HostTensor& tensor, double largest) {
    double now = 0.0;
    for (int64_t i = 0; i < ElementCount(tensor); ++i)
        now = std::max(now, std::fabs(plan::LoadElement(tensor.bytes.data(), tensor.desc.dtype, i)));
    for (int64_t i = 0; i < ElementCount(tensor); ++i)
        SetElement(tensor, i, plan::LoadElement(tensor.bytes.data(), tensor.desc.dtype, i) / now * largest);
}

}  // namespace atbx::test
