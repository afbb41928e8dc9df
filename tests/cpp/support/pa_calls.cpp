#include "support/pa_calls.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

struct Dims3 {
    int64_t batch, tokens, heads, kvHeads, headSize, headSizeV, blockSize, numBlocks, maxBlocks, maxContext;
};

io::HostTensor Random(const TensorDesc& desc, double low, double high, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, rng);
    return t;
}

// Caches: BSND [NB, BS, Hk, D], BNSD [NB, Hk, BS, D], FRACTAL_NZ [NB, Hk*D/16, BS, 16].
TensorDesc CacheDesc(const Param& p, const Dims3& d, aclDataType dtype, int64_t headSize, bool nz) {
    const int64_t heads = p.compressType != Param::COMPRESS_TYPE_UNDEFINED ? 1 : d.kvHeads;
    if (nz) return Desc(dtype, {d.numBlocks, heads * headSize / 16, d.blockSize, 16}, ACL_FORMAT_FRACTAL_NZ);
    if (p.inputLayout == infer::TYPE_BNSD) return Desc(dtype, {d.numBlocks, heads, d.blockSize, headSize});
    return Desc(dtype, {d.numBlocks, d.blockSize, heads, headSize});
}

// Distinct blocks per sequence, shuffled; rows past a sequence's blocks hold 0.
io::HostTensor BlockTables(const std::vector<int32_t>& lens, const Dims3& d, std::mt19937_64& rng) {
    std::vector<int32_t> ids(d.numBlocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    io::HostTensor table = ZeroTensor(Desc(ACL_INT32, {static_cast<int64_t>(lens.size()), d.maxBlocks}));
    auto values = Elements<int32_t>(table);
    int64_t next = 0;
    for (size_t r = 0; r < lens.size(); ++r) {
        for (int64_t k = 0; k < (lens[r] + d.blockSize - 1) / d.blockSize; ++k)
            values[r * d.maxBlocks + k] = ids[next++];
    }
    return table;
}

// A mask of the shape the mask type reads, with a masked (-10000) upper-right part and small values
// elsewhere.
io::HostTensor Mask(const Param& p, const Dims3& d, aclDataType dtype, bool spec, std::mt19937_64& rng) {
    TensorDesc desc;
    switch (p.maskType) {
        case Param::MASK_TYPE_NORM:
            desc = spec ? Desc(dtype, {d.maxContext, d.maxContext}) : Desc(dtype, {d.batch, 1, d.maxContext});
            break;
        case Param::MASK_TYPE_ALIBI:
            desc = Desc(dtype, {d.batch, d.heads, 1, d.maxContext});
            break;
        case Param::MASK_TYPE_SPEC:
            desc = Desc(dtype, {d.tokens, d.maxContext});
            break;
        case Param::MASK_TYPE_MASK_FREE:
            desc = Desc(ACL_FLOAT16, {1, 8, 128, 16}, ACL_FORMAT_FRACTAL_NZ);
            break;
        default:
            desc = Desc(ACL_FLOAT16, {2048, 2048});
            break;
    }
    return Random(desc, -1.0, 0.0, rng);
}

}  // namespace

TestCall MakePaCall(Param param, const PaShape& shape, Platform platform) {
    if (param.headNum == 0) param.headNum = 8;
    if (param.headNum == 8 && param.kvHeadNum == 0) param.kvHeadNum = 2;
    std::mt19937_64 rng(shape.seed);
    const bool spec = param.calcType == Param::CALC_TYPE_SPEC;
    const bool nz = platform == Platform::kAtlasInference || platform == Platform::kAtlasTraining;
    const bool mla = param.mlaVHeadSize > 0;
    const bool qkv =
        param.quantType == Param::TYPE_QUANT_QKV_OFFLINE || param.quantType == Param::TYPE_QUANT_QKV_ONLINE;
    const bool int8Cache = param.quantType != Param::TYPE_QUANT_UNQUANT;

    Dims3 d{};
    d.batch = static_cast<int64_t>(shape.contextLens.size());
    d.heads = param.headNum;
    d.kvHeads = param.kvHeadNum > 0 ? param.kvHeadNum : param.headNum;
    d.headSize = shape.headSize;
    d.headSizeV = mla ? param.mlaVHeadSize : (shape.headSizeV > 0 ? shape.headSizeV : shape.headSize);
    d.blockSize = shape.blockSize;
    d.maxContext = *std::max_element(shape.contextLens.begin(), shape.contextLens.end());
    d.maxBlocks = std::max<int64_t>(1, (d.maxContext + d.blockSize - 1) / d.blockSize);
    std::vector<int32_t> qSeqLen = shape.qSeqLen;
    if (spec && qSeqLen.empty()) qSeqLen.assign(shape.contextLens.size(), 1);
    d.tokens = 0;
    for (size_t b = 0; b < shape.contextLens.size(); ++b) {
        if (shape.contextLens[b] > 0) d.tokens += spec ? qSeqLen[b] : 1;
    }
    int64_t used = 0;
    for (int32_t len : shape.contextLens)
        used += (len + d.blockSize - 1) / d.blockSize;
    d.numBlocks =
        used * (param.compressType != Param::COMPRESS_TYPE_UNDEFINED ? d.kvHeads : 1) + shape.extraBlocks;

    const aclDataType qType = qkv ? ACL_INT8 : shape.dtype;
    const aclDataType cacheType = int8Cache ? ACL_INT8 : shape.dtype;
    const double cacheRange = int8Cache ? 5.0 : 1.0;

    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        if (name == "query") {
            call.inputs.push_back(
                Random(Desc(qType, {d.tokens, d.heads, d.headSize}), -cacheRange, cacheRange, rng));
        } else if (name == "keyCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, d, cacheType, d.headSize, nz), -cacheRange, cacheRange, rng));
        } else if (name == "valueCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, d, cacheType, d.headSizeV, nz), -cacheRange, cacheRange, rng));
        } else if (name == "blockTables") {
            call.inputs.push_back(BlockTables(shape.contextLens, d, rng));
        } else if (name == "contextLens") {
            call.inputs.push_back(Int32Tensor(shape.contextLens));
        } else if (name == "mask") {
            call.inputs.push_back(
                Mask(param, d, qkv ? static_cast<aclDataType>(param.outDataType) : shape.dtype, spec, rng));
        } else if (name == "batchRunStatus") {
            call.inputs.push_back(Int32Tensor(std::vector<int32_t>(shape.contextLens.size(), 1)));
        } else if (name == "qSeqLen") {
            call.inputs.push_back(Int32Tensor(qSeqLen));
        } else if (name == "kDescale" || name == "vDescale" || name == "pScale") {
            const int64_t count = qkv ? d.heads : d.kvHeads * d.headSize;
            call.inputs.push_back(Random(Desc(ACL_FLOAT, {count}), 0.01, 0.05, rng));
        } else if (name == "kOffset" || name == "vOffset") {
            call.inputs.push_back(Random(Desc(ACL_INT32, {d.kvHeads * d.headSize}), -20, 20, rng));
        } else if (name == "razorOffset") {
            call.inputs.push_back(Random(Desc(ACL_FLOAT, {d.numBlocks, d.blockSize}), 0.0, 1.0, rng));
        } else if (name == "logN") {
            call.inputs.push_back(Random(Desc(nz ? ACL_FLOAT16 : ACL_FLOAT, {d.batch}), 1.0, 2.0, rng));
        }
    }
    AttachOutputs(call);
    return call;
}

}  // namespace atbx::test
