#include "support/rac_calls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

io::HostTensor Random(const TensorDesc& desc, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), -100, 100, rng);
    return t;
}

bool NzCaches(const Param& p, Platform platform) {
    return p.kvCacheCfg == Param::K_CACHE_V_CACHE_NZ || platform == Platform::kAtlasInference ||
           platform == Platform::kAtlasTraining;
}

TensorDesc CacheDesc(const Param& p, Platform platform, const RacShape& shape, aclDataType dtype,
                     int32_t headSize) {
    if (NzCaches(p, platform)) {
        const int64_t tile = (p.kvCacheCfg == Param::K_CACHE_V_CACHE_NZ && dtype == ACL_INT8) ? 32 : 16;
        const int64_t channels = int64_t{shape.heads} * headSize;
        return Desc(dtype, {shape.numBlocks, channels / tile, shape.blockSize, tile}, ACL_FORMAT_FRACTAL_NZ);
    }
    const int32_t cacheHeads = p.compressType != Param::COMPRESS_TYPE_UNDEFINED ? 1 : shape.heads;
    return Desc(dtype, {shape.numBlocks, shape.blockSize, cacheHeads, headSize});
}

// Distinct slots in [-numSlots, numSlots): negative ones are skipped by the op.
std::vector<int32_t> TokenSlots(const RacShape& shape, std::mt19937_64& rng) {
    const int32_t numSlots = shape.blockSize * shape.numBlocks;
    std::vector<int32_t> all(2 * static_cast<size_t>(numSlots));
    std::iota(all.begin(), all.end(), -numSlots);
    std::shuffle(all.begin(), all.end(), rng);
    EXPECT_LE(shape.tokens, 2 * numSlots) << "too many tokens for distinct slots";
    EXPECT_GE(shape.tokens, 0) << "a negative token count";
    return std::vector<int32_t>(all.begin(), all.begin() + std::clamp(shape.tokens, 0, 2 * numSlots));
}

// Per (batch, head) windows of a compress call: wins in [0, L]; offsets -1 or in [0, L - w].
struct Windows {
    std::vector<int32_t> wins, offsets, rows;
};

Windows RandomWindows(const Param& p, const RacShape& shape, std::mt19937_64& rng) {
    Windows w;
    const bool rope = p.compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE;
    for (int32_t length : shape.seqLens) {
        for (int32_t h = 0; h < shape.heads; ++h) {
            const int32_t win = std::uniform_int_distribution<int32_t>(0, length)(rng);
            const int32_t offset = std::uniform_int_distribution<int32_t>(-1, length - win)(rng);
            w.wins.push_back(win);
            w.offsets.push_back(offset);
            const bool averages = rope && offset != -1 && win > 0;
            w.rows.push_back(!rope ? win : (averages ? length - win + 1 : length));
        }
    }
    return w;
}

// A slot per (batch, head): about a quarter negative (skipped), the others start runs of their rows placed at
// random, in random order and with random gaps, without overlap.
std::vector<int32_t> HeadSlots(const std::vector<int32_t>& rows, const RacShape& shape,
                               std::mt19937_64& rng) {
    std::vector<int32_t> slots(rows.size(), -1);
    std::vector<size_t> placed;
    std::bernoulli_distribution skip(0.25);
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!skip(rng) || (i + 1 == rows.size() && placed.empty())) placed.push_back(i);
    }
    std::shuffle(placed.begin(), placed.end(), rng);
    int64_t used = 0;
    for (size_t i : placed)
        used += rows[i];
    const int64_t free = int64_t{shape.blockSize} * shape.numBlocks - used;
    EXPECT_GE(free, 0) << "the cache is too small for the windows";
    std::vector<int64_t> cuts(placed.size());
    for (int64_t& c : cuts)
        c = std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(free, 0))(rng);
    std::sort(cuts.begin(), cuts.end());
    int64_t next = 0;
    for (size_t k = 0; k < placed.size(); ++k) {
        slots[placed[k]] = static_cast<int32_t>(next + cuts[k]);
        next += rows[placed[k]];
    }
    for (int32_t& s : slots) {
        if (s < 0) s = -std::uniform_int_distribution<int32_t>(1, shape.blockSize * shape.numBlocks)(rng);
    }
    return slots;
}

}  // namespace

Param RacParam(int compressType, int kvCacheCfg) {
    Param p;
    p.compressType = static_cast<Param::CompressType>(compressType);
    p.kvCacheCfg = static_cast<Param::KvCacheCfg>(kvCacheCfg);
    return p;
}

TestCall MakeRacCall(const Param& param, const RacShape& shape, Platform platform) {
    std::mt19937_64 rng(shape.seed);
    const aclDataType valueDtype = shape.valueDtype == ACL_DT_UNDEFINED ? shape.dtype : shape.valueDtype;
    const Windows windows = RandomWindows(param, shape, rng);
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
                Random(Desc(valueDtype, {shape.tokens, shape.heads, shape.headSizeV}), rng));
        } else if (name == "keyCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, platform, shape, shape.dtype, shape.headSizeK), rng));
        } else if (name == "valueCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, platform, shape, valueDtype, shape.headSizeV), rng));
        } else if (name == "slotMapping") {
            const bool compressed = param.compressType != Param::COMPRESS_TYPE_UNDEFINED;
            call.inputs.push_back(
                Int32Tensor(compressed ? HeadSlots(windows.rows, shape, rng) : TokenSlots(shape, rng)));
        } else if (name == "wins") {
            call.inputs.push_back(Int32Tensor(windows.wins));
        } else if (name == "seqLen") {
            call.inputs.push_back(Int32Tensor(shape.seqLens));
        } else if (name == "offsetIndex") {
            call.inputs.push_back(Int32Tensor(windows.offsets));
        }
    }
    AttachOutputs(call);
    return call;
}

}  // namespace atbx::test
