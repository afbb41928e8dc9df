#include "support/pa_calls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <random>

#include "plan/element.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

constexpr double kMasked = -10000.0;
constexpr int64_t kTile = 16;

int64_t RoundUp(int64_t value, int64_t to) {
    return (value + to - 1) / to * to;
}

// Everything the tensors' shapes and the masks' patterns derive from.
struct Geometry {
    int64_t sequences = 0;  // B': contextLens entries
    int64_t batch = 0;      // B: B' / kvHeadNum under compression
    int64_t tokens = 0;     // T: query rows
    int64_t heads = 0, kvHeads = 0, headSize = 0, headSizeV = 0, blockSize = 0;
    int64_t numBlocks = 0, maxBlocks = 0, maxContext = 0, maxQuery = 0;
    bool nz = false, spec = false, mla = false, compressed = false;
    std::vector<int32_t> contextLens, qLens;
    std::vector<int64_t> firstRow;  // packed query row of each sequence that runs (-1: skipped)
};

Geometry MakeGeometry(const Param& p, const PaShape& shape, Platform platform) {
    Geometry g;
    g.nz = platform == Platform::kAtlasInference || platform == Platform::kAtlasTraining;
    g.spec = p.calcType == Param::CALC_TYPE_SPEC;
    g.mla = p.mlaVHeadSize > 0;
    g.compressed = p.compressType != Param::COMPRESS_TYPE_UNDEFINED;
    g.contextLens = shape.contextLens;
    g.sequences = static_cast<int64_t>(g.contextLens.size());
    g.heads = p.headNum;
    g.kvHeads = p.kvHeadNum > 0 ? p.kvHeadNum : p.headNum;
    g.batch = g.compressed ? g.sequences / g.kvHeads : g.sequences;
    g.headSize = shape.headSize;
    g.headSizeV = g.mla ? p.mlaVHeadSize : (shape.headSizeV > 0 ? shape.headSizeV : shape.headSize);
    g.blockSize = shape.blockSize;
    g.maxContext = *std::max_element(g.contextLens.begin(), g.contextLens.end());
    g.maxBlocks = std::max<int64_t>(1, (g.maxContext + g.blockSize - 1) / g.blockSize);
    g.qLens = g.spec && !shape.qSeqLen.empty() ? shape.qSeqLen : std::vector<int32_t>(g.sequences, 1);
    int64_t row = 0;
    for (int64_t b = 0; b < g.sequences; ++b) {
        const bool stopped =
            p.batchRunStatusEnable && !shape.batchRunStatus.empty() && shape.batchRunStatus[b] == 0;
        const bool runs = g.contextLens[b] > 0 && !stopped;
        g.firstRow.push_back(runs ? row : -1);
        if (runs) {
            row += g.qLens[b];
            g.maxQuery = std::max<int64_t>(g.maxQuery, g.qLens[b]);
        }
    }
    g.tokens = g.compressed ? g.batch : row;
    int64_t used = 0;
    for (int32_t len : g.contextLens)
        used += (len + g.blockSize - 1) / g.blockSize;
    g.numBlocks = used + shape.extraBlocks;
    return g;
}

io::HostTensor Random(const TensorDesc& desc, double low, double high, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, rng);
    return t;
}

// Caches: BSND [NB, BS, Hk, D], BNSD [NB, Hk, BS, D], FRACTAL_NZ [NB, Hk*D/16, BS, 16]; one kv head per block
// under compression.
TensorDesc CacheDesc(const Param& p, const Geometry& g, aclDataType dtype, int64_t headSize) {
    const int64_t heads = g.compressed ? 1 : g.kvHeads;
    if (g.nz)
        return Desc(dtype, {g.numBlocks, heads * headSize / kTile, g.blockSize, kTile},
                    ACL_FORMAT_FRACTAL_NZ);
    if (p.inputLayout == infer::TYPE_BNSD) return Desc(dtype, {g.numBlocks, heads, g.blockSize, headSize});
    return Desc(dtype, {g.numBlocks, g.blockSize, heads, headSize});
}

// Distinct blocks per sequence, shuffled; entries past a sequence's blocks hold 0.
io::HostTensor BlockTables(const Geometry& g, std::mt19937_64& rng) {
    std::vector<int32_t> ids(g.numBlocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    io::HostTensor table = ZeroTensor(Desc(ACL_INT32, {g.sequences, g.maxBlocks}));
    auto values = Elements<int32_t>(table);
    int64_t next = 0;
    for (int64_t r = 0; r < g.sequences; ++r) {
        for (int64_t k = 0; k < (g.contextLens[r] + g.blockSize - 1) / g.blockSize; ++k)
            values[r * g.maxBlocks + k] = ids[next++];
    }
    return table;
}

// A logical mask [planes, rows, cols] stored ND or FRACTAL_NZ ([planes, cols/16, rows, 16]).
struct MaskLayout {
    TensorDesc desc;
    int64_t planes = 1, rows = 1, cols = 1;
    bool nz = false;

    int64_t Offset(int64_t plane, int64_t row, int64_t col) const {
        if (!nz) return (plane * rows + row) * cols + col;
        return ((plane * (cols / kTile) + col / kTile) * rows + row) * kTile + col % kTile;
    }
};

MaskLayout Nd(aclDataType dtype, std::initializer_list<int64_t> dims, int64_t planes, int64_t rows,
              int64_t cols) {
    return {Desc(dtype, dims), planes, rows, cols, false};
}

MaskLayout Nz(aclDataType dtype, int64_t planes, int64_t rows, int64_t cols) {
    return {Desc(dtype, {planes, cols / kTile, rows, kTile}, ACL_FORMAT_FRACTAL_NZ), planes, rows, cols,
            true};
}

MaskLayout ChooseMaskLayout(const Param& p, const PaShape& shape, const Geometry& g, aclDataType dtype) {
    const int64_t s = g.maxContext;
    const int64_t s16 = RoundUp(s, kTile);
    const int64_t b = g.sequences;
    const int64_t h = g.heads;
    switch (p.maskType) {
        case Param::MASK_TYPE_NORM:
            if (g.nz)
                return shape.mask == PaMask::kNzShared ? Nz(dtype, 1, kTile, s16) : Nz(dtype, b, kTile, s16);
            switch (shape.mask) {
                case PaMask::kNormRow:
                    return Nd(dtype, {g.maxQuery, s}, 1, g.maxQuery, s);
                case PaMask::kNormSquare:
                    return Nd(dtype, {s, s}, 1, s, s);
                case PaMask::kNorm3DOriginalBatch:
                    return Nd(dtype, {g.batch, 1, s}, g.batch, 1, s);
                case PaMask::kNorm3D:
                    return g.spec ? Nd(dtype, {b, s, s}, b, s, s) : Nd(dtype, {b, 1, s}, b, 1, s);
                default:
                    return g.spec ? Nd(dtype, {s, s}, 1, s, s) : Nd(dtype, {b, 1, s}, b, 1, s);
            }
        case Param::MASK_TYPE_ALIBI:
            if (g.nz)
                return shape.mask == PaMask::kNzShared ? Nz(dtype, h, kTile, s16)
                                                       : Nz(dtype, b * h, kTile, s16);
            if (shape.mask == PaMask::kAlibi3D) return Nd(dtype, {h, 1, s}, h, 1, s);
            if (shape.mask == PaMask::kAlibi4DOriginalBatch)
                return Nd(dtype, {g.batch, h, 1, s}, g.batch * h, 1, s);
            return Nd(dtype, {b, h, 1, s}, b * h, 1, s);
        case Param::MASK_TYPE_SPEC:
            if (g.nz && shape.mask != PaMask::kNdSpec) return Nz(dtype, 1, RoundUp(g.tokens, kTile), s16);
            return Nd(dtype, {g.tokens, s}, 1, g.tokens, s);
        case Param::MASK_TYPE_MASK_FREE:
            return Nz(ACL_FLOAT16, 1, 128, 128);
        default: {
            const int64_t n = 2048;
            if (shape.mask == PaMask::kNormCompress3D) return Nd(ACL_FLOAT16, {1, n, n}, 1, n, n);
            if (shape.mask == PaMask::kNormCompress4D) return Nd(ACL_FLOAT16, {1, 1, n, n}, 1, n, n);
            return Nd(ACL_FLOAT16, {n, n}, 1, n, n);
        }
    }
}

// Causal masking of one mask row: keys past `frontier` get the masked value (`bits`, the 16-bit pattern of
// the masked value in the mask's dtype). Query row i of sequence b sees key j iff j <= contextLens[b] -
// qLen[b] + i. A row outside the layout (a geometry the rules reject, such as a shrinker's candidate with a
// context shorter than its query rows) is left alone: the builder writes only inside its tensors.
void MaskCausal(const MaskLayout& m, int64_t plane, int64_t row, int64_t frontier, uint16_t bits,
                void* data) {
    if (plane < 0 || plane >= m.planes || row < 0 || row >= m.rows) return;
    auto* elements = static_cast<uint16_t*>(data);
    for (int64_t j = std::max<int64_t>(frontier + 1, 0); j < m.cols; ++j)
        elements[m.Offset(plane, row, j)] = bits;
}

// Mask contents: small additive biases U(-1, 0), with the causal part of SPEC, square and per-batch SPEC
// masks set to -10000; MLA with SPEC and a bfloat16 mask uses 0/1 flags (1 masked, DECISIONS 8); MASK_FREE
// and NORM_COMPRESS hold their fixed causal tiles.
io::HostTensor Mask(const Param& p, const PaShape& shape, const Geometry& g, aclDataType dtype,
                    std::mt19937_64& rng) {
    const MaskLayout m = ChooseMaskLayout(p, shape, g, dtype);
    const bool flags = g.mla && g.spec && m.desc.dtype == ACL_BF16;
    const bool fixedTile =
        p.maskType == Param::MASK_TYPE_MASK_FREE || p.maskType == Param::MASK_TYPE_NORM_COMPRESS;
    io::HostTensor t = (flags || fixedTile) ? ZeroTensor(m.desc) : Random(m.desc, -1.0, 0.0, rng);
    void* data = t.bytes.data();
    const double masked = flags ? 1.0 : (p.maskType == Param::MASK_TYPE_MASK_FREE ? -60000.0 : kMasked);
    uint16_t bits = 0;
    plan::StoreElement(&bits, m.desc.dtype, 0, masked);
    if (fixedTile || (shape.mask == PaMask::kNormSquare && p.maskType == Param::MASK_TYPE_NORM)) {
        for (int64_t r = 0; r < m.rows; ++r)
            MaskCausal(m, 0, r, r, bits, data);
        return t;
    }
    const bool perRow = p.maskType == Param::MASK_TYPE_SPEC;
    const bool perPlane =
        p.maskType == Param::MASK_TYPE_NORM && g.spec && m.planes == g.sequences && m.rows > 1;
    const bool square = p.maskType == Param::MASK_TYPE_NORM && g.spec && m.planes == 1 && m.rows == m.cols;
    if (!perRow && !perPlane && !square) return t;
    for (int64_t b = 0; b < g.sequences; ++b) {
        if (g.firstRow[b] < 0) continue;
        const int64_t prefix = g.contextLens[b] - g.qLens[b];
        for (int64_t i = 0; i < g.qLens[b]; ++i) {
            if (perRow) MaskCausal(m, 0, g.firstRow[b] + i, prefix + i, bits, data);
            if (perPlane) MaskCausal(m, b, i, prefix + i, bits, data);
            if (square) MaskCausal(m, 0, prefix + i, prefix + i, bits, data);
        }
    }
    return t;
}

// DEQUANT descales: float, or int64 holding a float's bits in the low 32 bits
// (docs/spec/paged_attention.md 3.7).
io::HostTensor Descale(aclDataType dtype, int64_t count, std::mt19937_64& rng) {
    io::HostTensor scales = Random(Desc(ACL_FLOAT, {count}), 0.02, 0.1, rng);
    if (dtype != ACL_INT64) return scales;
    io::HostTensor bits = ZeroTensor(Desc(ACL_INT64, {count}));
    auto from = Elements<float>(scales);
    auto to = Elements<int64_t>(bits);
    for (int64_t i = 0; i < count; ++i)
        to[i] = std::bit_cast<uint32_t>(from[i]);
    return bits;
}

}  // namespace

TestCall MakePaCall(Param param, const PaShape& shape, Platform platform) {
    if (param.headNum == 0) param.headNum = 8;
    if (param.headNum == 8 && param.kvHeadNum == 0) param.kvHeadNum = 2;
    std::mt19937_64 rng(shape.seed);
    const Geometry g = MakeGeometry(param, shape, platform);
    const bool qkv =
        param.quantType == Param::TYPE_QUANT_QKV_OFFLINE || param.quantType == Param::TYPE_QUANT_QKV_ONLINE;
    const bool int8Cache = param.quantType != Param::TYPE_QUANT_UNQUANT;
    const aclDataType qType = qkv ? ACL_INT8 : shape.dtype;
    const aclDataType cacheType = int8Cache ? ACL_INT8 : shape.dtype;
    const double cacheRange = int8Cache ? 5.0 : 3.0;
    const int64_t channels = g.kvHeads * g.headSize;

    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        if (name == "query") {
            call.inputs.push_back(
                Random(Desc(qType, {g.tokens, g.heads, g.headSize}), -cacheRange, cacheRange, rng));
        } else if (name == "keyCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, g, cacheType, g.headSize), -cacheRange, cacheRange, rng));
        } else if (name == "valueCache") {
            call.inputs.push_back(
                Random(CacheDesc(param, g, cacheType, g.headSizeV), -cacheRange, cacheRange, rng));
        } else if (name == "blockTables") {
            call.inputs.push_back(BlockTables(g, rng));
        } else if (name == "contextLens") {
            call.inputs.push_back(Int32Tensor(g.contextLens));
        } else if (name == "mask") {
            call.inputs.push_back(Mask(param, shape, g, qkv ? param.outDataType : shape.dtype, rng));
        } else if (name == "batchRunStatus") {
            const bool given = !shape.batchRunStatus.empty();
            call.inputs.push_back(
                Int32Tensor(given ? shape.batchRunStatus : std::vector<int32_t>(g.sequences, 1)));
        } else if (name == "qSeqLen") {
            call.inputs.push_back(Int32Tensor(g.qLens));
        } else if (name == "kDescale" || name == "vDescale") {
            call.inputs.push_back(qkv ? Random(Desc(ACL_FLOAT, {g.heads}), 0.01, 0.05, rng)
                                      : Descale(shape.descaleDtype, channels, rng));
        } else if (name == "pScale") {
            call.inputs.push_back(Random(Desc(ACL_FLOAT, {g.heads}), 1.0, 127.0, rng));
        } else if (name == "kOffset" || name == "vOffset") {
            call.inputs.push_back(Random(Desc(ACL_INT32, {channels}), -20, 20, rng));
        } else if (name == "razorOffset") {
            call.inputs.push_back(Random(Desc(ACL_FLOAT, {g.numBlocks, g.blockSize}), 0.0, 20.0, rng));
        } else if (name == "logN") {
            call.inputs.push_back(Random(Desc(g.nz ? ACL_FLOAT16 : ACL_FLOAT, {g.sequences}), 1.0, 2.0, rng));
        }
    }
    AttachOutputs(call);
    return call;
}

TestCall PaCall(std::string_view name) {
    for (const PaValidCall& c : PaValidCalls()) {
        if (c.name == name) return c.make();
    }
    ADD_FAILURE() << "no valid PagedAttention call named " << name;
    return MakePaCall({});
}

}  // namespace atbx::test
