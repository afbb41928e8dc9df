#include "support/sa_calls.h"

#include <numeric>
#include <random>

#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

io::HostTensor Random(const TensorDesc& desc, double low, double high, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, rng);
    return t;
}

}  // namespace

infer::SelfAttentionParam PaEncoderParam() {
    infer::SelfAttentionParam param;
    param.calcType = infer::SelfAttentionParam::PA_ENCODER;
    param.headNum = 4;
    param.kvHeadNum = 2;
    param.qkScale = 0.125f;
    return param;
}

TestCall MakeSaCall(const infer::SelfAttentionParam& param, const SaShape& shape, Platform platform) {
    std::mt19937_64 rng(shape.seed);
    const int64_t heads = param.headNum;
    const int64_t kvHeads = param.kvHeadNum > 0 ? param.kvHeadNum : param.headNum;
    const int64_t headSizeV = shape.headSizeV > 0 ? shape.headSizeV : shape.headSize;
    const int64_t tokens = std::accumulate(shape.seqLen.begin(), shape.seqLen.end(), int64_t{0});
    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        if (name == "query") {
            call.inputs.push_back(Random(Desc(shape.dtype, {tokens, heads, shape.headSize}), -1, 1, rng));
        } else if (name == "key") {
            call.inputs.push_back(Random(Desc(shape.dtype, {tokens, kvHeads, shape.headSize}), -1, 1, rng));
        } else if (name == "value") {
            call.inputs.push_back(Random(Desc(shape.dtype, {tokens, kvHeads, headSizeV}), -1, 1, rng));
        } else if (name == "seqLen") {
            call.inputs.push_back(Int32Tensor(shape.seqLen));
        }
    }
    AttachOutputs(call);
    return call;
}

}  // namespace atbx::test
