#include "support/rac_calls.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

io::HostTensor Random(const TensorDesc& desc, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), -8, 8, rng);
    return t;
}

// Distinct slots in [-numSlots, numSlots): negative ones are skipped by the op.
std::vector<int32_t> Slots(const RacShape& shape, std::mt19937_64& rng) {
    const int32_t numSlots = shape.blockSize * shape.numBlocks;
    std::vector<int32_t> all(2 * numSlots);
    std::iota(all.begin(), all.end(), -numSlots);
    std::shuffle(all.begin(), all.end(), rng);
    return std::vector<int32_t>(all.begin(), all.begin() + shape.tokens);
}

}  // namespace

TestCall MakeRacCall(const infer::ReshapeAndCacheParam& param, const RacShape& shape, Platform platform) {
    std::mt19937_64 rng(shape.seed);
    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        if (name == "key") {
            call.inputs.push_back(
                Random(Desc(shape.dtype, {shape.tokens, shape.heads, shape.headSizeK}), rng));
        } else if (name == "value") {
            call.inputs.push_back(
                Random(Desc(shape.dtype, {shape.tokens, shape.heads, shape.headSizeV}), rng));
        } else if (name == "keyCache") {
            call.inputs.push_back(Random(
                Desc(shape.dtype, {shape.numBlocks, shape.blockSize, shape.heads, shape.headSizeK}), rng));
        } else if (name == "valueCache") {
            call.inputs.push_back(Random(
                Desc(shape.dtype, {shape.numBlocks, shape.blockSize, shape.heads, shape.headSizeV}), rng));
        } else if (name == "slotMapping") {
            call.inputs.push_back(Int32Tensor(Slots(shape, rng)));
        }
    }
    AttachOutputs(call);
    return call;
}

}  // namespace atbx::test
