#include "sa_reference_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "plan/element.h"
#include "support/run_call.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test::sa_ref {

io::HostTensor Uniform(const TensorDesc& desc, double low, double high, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, rng);
    return t;
}

io::HostTensor Values(const TensorDesc& desc, const std::vector<double>& values) {
    io::HostTensor t = ZeroTensor(desc);
    EXPECT_EQ(values.size(), ElementCount(desc));
    for (size_t i = 0; i < values.size() && i < ElementCount(desc); ++i)
        plan::StoreElement(t.bytes.data(), desc.dtype, static_cast<int64_t>(i), values[i]);
    return t;
}

io::HostTensor Int32s(std::initializer_list<int64_t> dims, const std::vector<int32_t>& values) {
    io::HostTensor t = ZeroTensor(Desc(ACL_INT32, dims));
    EXPECT_EQ(values.size(), ElementCount(t.desc));
    std::copy(values.begin(), values.end(), Elements<int32_t>(t).begin());
    return t;
}

double At(const io::HostTensor& t, int64_t offset) {
    return plan::LoadElement(t.bytes.data(), t.desc.dtype, offset);
}

TestCall MakeCall(const Param& param, Platform platform, std::map<std::string, io::HostTensor> tensors) {
    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        auto it = tensors.find(name);
        EXPECT_NE(it, tensors.end()) << "the test gives no tensor for input " << name;
        call.inputs.push_back(it == tensors.end() ? io::HostTensor{} : std::move(it->second));
        if (it != tensors.end()) tensors.erase(it);
    }
    for (const auto& [name, tensor] : tensors)
        ADD_FAILURE() << "the param asks for no input named " << name;
    AttachOutputs(call);
    return call;
}

std::vector<double> Attend(const std::vector<double>& logits, int64_t headDimV,
                           const std::function<double(int64_t j, int64_t c)>& value) {
    double top = -std::numeric_limits<double>::infinity();
    for (double l : logits)
        top = std::max(top, l);
    std::vector<double> weights(logits.size());
    double sum = 0.0;
    for (size_t j = 0; j < logits.size(); ++j) {
        weights[j] = std::isinf(logits[j]) && logits[j] < 0 ? 0.0 : std::exp(logits[j] - top);
        sum += weights[j];
    }
    std::vector<double> out(headDimV, 0.0);
    for (int64_t c = 0; c < headDimV; ++c) {
        for (size_t j = 0; j < logits.size(); ++j) {
            if (weights[j] != 0.0) out[c] += weights[j] / sum * value(static_cast<int64_t>(j), c);
        }
    }
    return out;
}

double Dot(int64_t dim, const std::function<double(int64_t c)>& q,
           const std::function<double(int64_t c)>& k) {
    double dot = 0.0;
    for (int64_t c = 0; c < dim; ++c)
        dot += q(c) * k(c);
    return dot;
}

void ExpectReference(TestCall& call, const std::vector<double>& expected) {
    const RunResult run = Execute(call, Backend::kReference);
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    EXPECT_EQ(run.kernel, "reference");
    const std::vector<double> reference = ReferenceResult(call);
    const io::HostTensor& out = call.outputs.at(0);
    ASSERT_EQ(reference.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_NEAR(reference[i], expected[i], 1e-9 * std::max(1.0, std::fabs(expected[i])))
            << "element " << i;
        ASSERT_EQ(At(out, static_cast<int64_t>(i)), plan::RoundToDtype(reference[i], out.desc.dtype))
            << "stored element " << i;
    }
}

void ExpectCpuMeetsStandard(TestCall& call, int64_t headDim, int64_t maxKvLen) {
    // The reference backend runs first: in FA-cache mode it performs the cache writes the reference reads.
    ASSERT_TRUE(Execute(call, Backend::kReference).status.ok());
    const std::vector<double> reference = ReferenceResult(call);
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        SCOPED_TRACE(path);
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, path);
        EXPECT_EQ(PrecisionFailure(call, reference, headDim, maxKvLen), "");
    }
}

}  // namespace atbx::test::sa_ref
