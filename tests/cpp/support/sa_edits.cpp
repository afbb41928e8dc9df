#include "support/sa_edits.h"

#include <random>

#include "support/sa_valid_calls.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

TensorDesc WithDims(TensorDesc desc, const std::vector<int64_t>& dims) {
    desc.shape = Dims{};
    for (int64_t d : dims)
        desc.shape.dims[desc.shape.dimNum++] = d;
    return desc;
}

}  // namespace

std::function<TestCall()> Valid(std::string name) {
    return [name] { return SaCall(name); };
}

CallEdit OnPlatform(Platform platform) {
    return [platform](TestCall& c) { c.platform = platform; };
}

CallEdit WithParam(std::function<void(SaParam&)> change) {
    return [change](TestCall& c) { change(c.Param<SaParam>()); };
}

void SetDims(TestCall& c, std::string_view input, const std::vector<int64_t>& dims) {
    Dims& shape = c.In(input).desc.shape;
    shape.dimNum = dims.size();
    for (size_t d = 0; d < dims.size(); ++d)
        shape.dims[d] = dims[d];
}

void SetDim(TestCall& c, std::string_view input, int dim, int64_t value) {
    c.In(input).desc.shape.dims[dim] = value;
}

void Resize(TestCall& c, std::string_view input, const std::vector<int64_t>& dims) {
    io::HostTensor& tensor = c.In(input);
    const TensorDesc desc = WithDims(tensor.desc, dims);
    tensor = ZeroTensor(desc);
    std::mt19937_64 rng(5);
    verify::FillUniform(tensor.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), 0.25, 1.0,
                        rng);
}

void SetDtype(TestCall& c, std::string_view input, aclDataType dtype) {
    c.In(input).desc.dtype = dtype;
}

void SetFormat(TestCall& c, std::string_view input, aclFormat format) {
    c.In(input).desc.format = format;
}

void SetValues(TestCall& c, std::string_view input, const std::vector<int32_t>& values,
               std::vector<int64_t> dims) {
    if (dims.empty()) dims = {static_cast<int64_t>(values.size())};
    io::HostTensor& tensor = c.In(input);
    tensor = ZeroTensor(WithDims(tensor.desc, dims));
    std::copy(values.begin(), values.end(), Elements<int32_t>(tensor).begin());
}

void RefreshOutputs(TestCall& c) {
    AttachOutputs(c);
}

}  // namespace atbx::test
