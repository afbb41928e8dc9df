#include "demo_case.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "verify/random_fill.h"

namespace atbx::cli {
namespace {

constexpr int32_t kHeads = 32;
constexpr int32_t kKvHeads = 8;
constexpr int32_t kHeadDim = 128;
constexpr int32_t kBlockSize = 128;
const std::vector<int32_t> kContextLens = {4096, 1531, 777, 2049};

TensorDesc Desc(aclDataType dtype, std::initializer_list<int64_t> dims) {
    TensorDesc desc;
    desc.dtype = dtype;
    desc.format = ACL_FORMAT_ND;
    for (int64_t d : dims)
        desc.shape.dims[desc.shape.dimNum++] = d;
    return desc;
}

}  // namespace

DemoCase MakeDemoCase(uint64_t seed) {
    std::mt19937_64 rng(seed);
    DemoCase demo;
    demo.param.headNum = kHeads;
    demo.param.kvHeadNum = kKvHeads;
    demo.param.qkScale = static_cast<float>(1.0 / std::sqrt(kHeadDim));
    demo.contextLens = kContextLens;
    demo.headDim = kHeadDim;

    const auto batch = static_cast<int64_t>(kContextLens.size());
    const int32_t longest = *std::max_element(kContextLens.begin(), kContextLens.end());
    const int64_t maxBlocks = (longest + kBlockSize - 1) / kBlockSize;
    int64_t usedBlocks = 0;
    for (int32_t len : kContextLens)
        usedBlocks += (len + kBlockSize - 1) / kBlockSize;
    const int64_t numBlocks = usedBlocks + 7;  // a few blocks no sequence uses

    // Each sequence gets distinct blocks, in shuffled order.
    std::vector<int32_t> blockIds(numBlocks);
    std::iota(blockIds.begin(), blockIds.end(), 0);
    std::shuffle(blockIds.begin(), blockIds.end(), rng);
    std::vector<int32_t> table(batch * maxBlocks, 0);
    int64_t next = 0;
    for (int64_t b = 0; b < batch; ++b) {
        for (int64_t k = 0; k < (kContextLens[b] + kBlockSize - 1) / kBlockSize; ++k)
            table[b * maxBlocks + k] = blockIds[next++];
    }

    const std::vector<TensorDesc> descs = {
        Desc(ACL_FLOAT16, {batch, kHeads, kHeadDim}),
        Desc(ACL_FLOAT16, {numBlocks, kBlockSize, kKvHeads, kHeadDim}),
        Desc(ACL_FLOAT16, {numBlocks, kBlockSize, kKvHeads, kHeadDim}),
        Desc(ACL_INT32, {batch, maxBlocks}),
        Desc(ACL_INT32, {batch}),
        Desc(ACL_FLOAT16, {batch, kHeads, kHeadDim}),
    };
    for (const TensorDesc& desc : descs)
        demo.buffers.emplace_back(ElementCount(desc) * DataTypeSize(desc.dtype));
    for (int i = 0; i < 3; ++i) {
        verify::FillUniform(demo.buffers[i].data(), ACL_FLOAT16, static_cast<int64_t>(ElementCount(descs[i])),
                            -1.0, 1.0, rng);
    }
    std::copy(table.begin(), table.end(), reinterpret_cast<int32_t*>(demo.buffers[3].data()));
    std::copy(kContextLens.begin(), kContextLens.end(), reinterpret_cast<int32_t*>(demo.buffers[4].data()));
    verify::FillPoison(demo.buffers[5].data(), ACL_FLOAT16, static_cast<int64_t>(ElementCount(descs[5])));

    for (size_t i = 0; i < descs.size(); ++i) {
        Tensor tensor{descs[i], demo.buffers[i].data(), i == 4 ? demo.buffers[i].data() : nullptr,
                      demo.buffers[i].size()};
        (i + 1 < descs.size() ? demo.pack.inTensors : demo.pack.outTensors).push_back(tensor);
    }
    const int64_t tokens = std::accumulate(kContextLens.begin(), kContextLens.end(), int64_t{0});
    demo.kvBytesRead = tokens * kKvHeads * kHeadDim * 2 * 2;
    demo.flops = tokens * kHeads * kHeadDim * 2 * 2;
    return demo;
}

}  // namespace atbx::cli
