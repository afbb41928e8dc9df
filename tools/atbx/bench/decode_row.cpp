#include "bench/decode_row.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>

#include "core/str_cat.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "plan/element.h"

namespace atbx::cli::bench {
namespace {

using Spec = ops::SpecOf<PaParam>::type;

constexpr double kMasked = -10000.0;  // additive mask value of masked keys (docs/spec/paged_attention.md 3.6)
constexpr int64_t kNzTile = 16;       // FRACTAL_NZ's 16-element rows (docs/spec/paged_attention.md 2.3)

// What the tensors' shapes derive from. Under KV-head compression every (sequence, kv head) pair is a
// sequence of its own (contextLens has B * kvHeads entries), one kv head per block.
struct Geometry {
    bool compressed = false;
    int64_t sequences = 0;  // contextLens entries
    int64_t running = 0;    // sequences batchRunStatus lets run
    int64_t tokens = 0;     // query rows
    int64_t blocksPerSequence = 0;
    int64_t blocks = 0;
    int64_t headsPerBlock = 0;
};

Geometry MakeGeometry(const DecodeShape& s) {
    Geometry g;
    g.compressed = s.features.compress != PaParam::COMPRESS_TYPE_UNDEFINED;
    g.sequences = g.compressed ? int64_t{s.batch} * s.kvHeads : s.batch;
    g.running = s.features.skipOddBatches ? (g.sequences + 1) / 2 : g.sequences;
    g.tokens = (g.compressed ? s.batch : g.running) * s.queryTokens;
    g.blocksPerSequence = (s.context + s.blockSize - 1) / s.blockSize;
    g.blocks = g.sequences * g.blocksPerSequence;
    g.headsPerBlock = g.compressed ? 1 : s.kvHeads;
    return g;
}

bool QkvQuant(const DecodeShape& s) {
    return s.features.qkvQuant != PaParam::TYPE_QUANT_UNQUANT;
}

aclDataType QueryType(const DecodeShape& s) {
    if (QkvQuant(s)) return ACL_INT8;
    return s.cache == ACL_BF16 ? ACL_BF16 : ACL_FLOAT16;
}

PaParam MakeParam(const DecodeShape& s) {
    const DecodeFeatures& f = s.features;
    PaParam p;
    p.headNum = s.heads;
    p.kvHeadNum = s.kvHeads;
    p.qkScale = static_cast<float>(1.0 / std::sqrt(s.headSize));
    if (s.mla) p.mlaVHeadSize = static_cast<uint32_t>(s.headSizeV);
    if (s.cache == ACL_INT8) p.quantType = QkvQuant(s) ? f.qkvQuant : PaParam::TYPE_DEQUANT_FUSION;
    if (QkvQuant(s)) p.outDataType = ACL_FLOAT16;
    p.hasQuantOffset = f.offsets;
    p.maskType = f.mask;
    if (s.queryTokens > 1) {
        p.calcType = PaParam::CALC_TYPE_SPEC;
        if (f.mask == PaParam::UNDEFINED) p.maskType = PaParam::MASK_TYPE_SPEC;
    }
    p.batchRunStatusEnable = f.skipOddBatches;
    p.inputLayout = f.bnsd ? infer::TYPE_BNSD : infer::TYPE_BSND;
    if (f.logN) p.scaleType = PaParam::SCALE_TYPE_LOGN;
    p.qScale = f.qScale;
    p.compressType = f.compress;
    return p;
}

TensorDesc CacheDesc(const DecodeShape& s, const Geometry& g, int64_t headSize) {
    if (s.features.platform != Platform::kAtlasA2) {
        TensorDesc desc =
            Desc(s.cache, {g.blocks, g.headsPerBlock * headSize / kNzTile, s.blockSize, kNzTile});
        desc.format = ACL_FORMAT_FRACTAL_NZ;
        return desc;
    }
    if (s.features.bnsd) return Desc(s.cache, {g.blocks, g.headsPerBlock, s.blockSize, headSize});
    return Desc(s.cache, {g.blocks, s.blockSize, g.headsPerBlock, headSize});
}

// The mask of the row's mask type: SPEC [T, S] (causal over the last query tokens); NORM [B', 1, S] and
// ALiBi [B', H, 1, S] for one query token (FRACTAL_NZ [B', S/16, 16, 16] for NORM on atlas-inference).
TensorDesc MaskDesc(const DecodeShape& s, const Geometry& g, PaParam::MaskType type) {
    const aclDataType dtype = QkvQuant(s) ? ACL_FLOAT16 : QueryType(s);
    if (type == PaParam::MASK_TYPE_SPEC) return Desc(dtype, {g.tokens, s.context});
    if (s.features.platform != Platform::kAtlasA2) {
        const int64_t keys = (s.context + kNzTile - 1) / kNzTile * kNzTile;
        TensorDesc desc = Desc(dtype, {g.sequences, keys / kNzTile, kNzTile, kNzTile});
        desc.format = ACL_FORMAT_FRACTAL_NZ;
        return desc;
    }
    if (type == PaParam::MASK_TYPE_ALIBI) return Desc(dtype, {g.sequences, s.heads, 1, s.context});
    return Desc(dtype, {g.sequences, 1, s.context});
}

// Distinct blocks per sequence in shuffled order, as a running server's allocator leaves them.
std::vector<int32_t> BlockTable(const Geometry& g, std::mt19937_64& rng) {
    std::vector<int32_t> ids(g.blocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    return ids;
}

// SPEC mask [T, S]: query token i of a sequence sees keys j <= context - queryTokens + i.
void FillSpecMask(const DecodeShape& s, const Geometry& g, aclDataType dtype, uint8_t* data) {
    uint16_t masked = 0;
    plan::StoreElement(&masked, dtype, 0, kMasked);
    auto* elements = reinterpret_cast<uint16_t*>(data);
    for (int64_t row = 0; row < g.tokens; ++row) {
        const int64_t frontier = s.context - s.queryTokens + row % s.queryTokens;
        for (int64_t j = frontier + 1; j < s.context; ++j)
            elements[row * s.context + j] = masked;
    }
}

void AddMask(const DecodeShape& s, const Geometry& g, PaParam::MaskType type, BenchCall& call,
             uint64_t seed) {
    const TensorDesc desc = MaskDesc(s, g, type);
    if (type == PaParam::MASK_TYPE_SPEC) {
        FillSpecMask(s, g, desc.dtype, call.AddInput(desc));
        return;
    }
    call.AddRandomInput(desc, -1.0, 0.0, seed);  // small additive biases: every key stays visible
}

// DEQUANT_FUSION's per-channel descales (float, or int64 holding a float's bits in its low 32 bits), or
// QKV quantisation's per-head ones.
void AddDescale(const DecodeShape& s, BenchCall& call, uint64_t seed) {
    if (QkvQuant(s)) {
        call.AddRandomInput(Desc(ACL_FLOAT, {s.heads}), 0.5e-4, 1.5e-4, seed);
        return;
    }
    const int64_t channels = int64_t{s.kvHeads} * s.headSize;
    if (!s.features.int64Descales) {
        call.AddRandomInput(Desc(ACL_FLOAT, {channels}), 0.005, 0.015, seed);
        return;
    }
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> scale(0.005f, 0.015f);
    auto* bits = reinterpret_cast<int64_t*>(call.AddInput(Desc(ACL_INT64, {channels})));
    for (int64_t c = 0; c < channels; ++c)
        bits[c] = std::bit_cast<uint32_t>(scale(rng));
}

// Fills each input slot of the param in ATB's order (docs/spec/paged_attention.md 2.1).
void AddInput(std::string_view name, const DecodeShape& s, const Geometry& g, const PaParam& p,
              BenchCall& call, std::mt19937_64& rng) {
    // Real values in [-1, 1): int8 ones as +-100 times descales of about 0.01 (DEQUANT_FUSION's per channel;
    // QKV quantisation's per head multiply two such, query and key), so that logits stay as spread as a
    // model's and no weight underflows to 0.
    const double range = s.cache == ACL_INT8 ? 100.0 : 1.0;
    if (name == "query") {
        const double queryRange = QkvQuant(s) ? 100.0 : 1.0;
        call.AddRandomInput(Desc(QueryType(s), {g.tokens, s.heads, s.headSize}), -queryRange, queryRange,
                            rng());
    } else if (name == "keyCache") {
        call.AddRandomInput(CacheDesc(s, g, s.headSize), -range, range, rng());
    } else if (name == "valueCache") {
        call.AddRandomInput(CacheDesc(s, g, s.headSizeV), -range, range, rng());
    } else if (name == "blockTables") {
        const std::vector<int32_t> table = BlockTable(g, rng);
        auto* data =
            reinterpret_cast<int32_t*>(call.AddInput(Desc(ACL_INT32, {g.sequences, g.blocksPerSequence})));
        std::copy(table.begin(), table.end(), data);
    } else if (name == "contextLens") {
        call.AddHostInt32(std::vector<int32_t>(g.sequences, s.context));
    } else if (name == "mask") {
        AddMask(s, g, p.maskType, call, rng());
    } else if (name == "batchRunStatus") {
        std::vector<int32_t> status(g.sequences);
        for (size_t i = 0; i < status.size(); ++i)
            status[i] = i % 2 == 0 || !s.features.skipOddBatches ? 1 : 0;
        call.AddHostInt32(status);
    } else if (name == "qSeqLen") {
        call.AddHostInt32(std::vector<int32_t>(g.sequences, s.queryTokens));
    } else if (name == "kDescale" || name == "vDescale") {
        AddDescale(s, call, rng());
    } else if (name == "kOffset" || name == "vOffset") {
        call.AddRandomInput(Desc(ACL_INT32, {int64_t{s.kvHeads} * s.headSize}), -20, 20, rng());
    } else if (name == "pScale") {
        call.AddRandomInput(Desc(ACL_FLOAT, {s.heads}), 1.0, 127.0, rng());
    } else if (name == "razorOffset") {
        call.AddRandomInput(Desc(ACL_FLOAT, {g.blocks, s.blockSize}), 0.0, 20.0, rng());
    } else if (name == "logN") {
        const aclDataType dtype = s.features.platform == Platform::kAtlasA2 ? ACL_FLOAT : ACL_FLOAT16;
        call.AddRandomInput(Desc(dtype, {g.sequences}), 1.0, 2.0, rng());
    }
}

BenchCall MakeCall(const DecodeShape& s, uint64_t seed, perf::Pages pages) {
    std::mt19937_64 rng(seed);
    const PaParam param = MakeParam(s);
    const Geometry g = MakeGeometry(s);
    BenchCall call{param, pages};
    for (const rules::TensorSlot& slot : Spec::MakeSubject(param, s.features.platform).inputSlots)
        AddInput(slot.name, s, g, param, call, rng);
    // The output's shape as the operation infers it (the row's inputs pass its rules; RunRow reports it
    // skipped otherwise).
    SVector<TensorDesc> descs;
    for (const Tensor& t : call.pack().inTensors)
        descs.push_back(t.desc);
    ops::CallValidation<Spec> validation(param, s.features.platform);
    validation.SetDescs(descs);
    if (validation.Run(rules::Stage::kParam, rules::Stage::kShape).empty()) {
        for (const TensorDesc& desc : Spec::InferOutputs(validation.subject()))
            call.AddOutput(desc);
    }
    return call;
}

// Query token i of a sequence sees context - queryTokens + i + 1 keys; under KV-head compression each query
// head sees its kv head's sequence, as long as the others.
double VisibleKeys(const DecodeShape& s, const Geometry& g) {
    double keys = 0.0;
    for (int32_t i = 0; i < s.queryTokens; ++i)
        keys += s.context - s.queryTokens + i + 1;
    return keys * static_cast<double>(g.compressed ? s.batch : g.running);
}

nlohmann::json PeerShape(const DecodeShape& s) {
    if (!s.features.name.empty()) return nullptr;  // the peer runs the main path's shapes only
    return {{"op", "decode"},
            {"heads", s.heads},
            {"kv_heads", s.kvHeads},
            {"head_size", s.headSize},
            {"head_size_v", s.headSizeV},
            {"mla", s.mla},
            {"batch", s.batch},
            {"context", s.context},
            {"query_tokens", s.queryTokens},
            {"dtype", DtypeName(s.cache)}};
}

}  // namespace

const char* DtypeName(aclDataType dtype) {
    switch (dtype) {
        case ACL_FLOAT16:
            return "fp16";
        case ACL_BF16:
            return "bf16";
        case ACL_INT8:
            return "int8";
        case ACL_FLOAT:
            return "fp32";
        default:
            return "?";
    }
}

RowSpec DecodeRow(const DecodeShape& s) {
    const Geometry g = MakeGeometry(s);
    const PaParam param = MakeParam(s);
    RowSpec row;
    row.op = "PagedAttention";
    row.family = s.family;
    row.feature = s.features.name;
    row.platform = s.features.platform;
    row.shape =
        core::StrCat(s.family, " b", s.batch, " ctx", s.context, " bs", s.blockSize, " q", s.queryTokens,
                     s.features.name.empty() ? "" : core::StrCat(" [", s.features.name, "]"));
    row.dtype = DtypeName(s.cache);
    row.cold = s.cold;
    const int64_t element = DataTypeSize(s.cache);
    const int64_t channels = g.headsPerBlock * (s.headSize + (s.mla ? 0 : s.headSizeV));
    row.kvBytes = g.running * s.context * channels * element;
    const int64_t queryBytes =
        g.tokens * s.heads * (s.headSize * DataTypeSize(QueryType(s)) + s.headSizeV * int64_t{2});
    const int64_t maskBytes =
        param.maskType == PaParam::UNDEFINED ? 0 : ByteSize(MaskDesc(s, g, param.maskType));
    row.bytes = row.kvBytes + queryBytes + maskBytes;
    row.flops = 2.0 * s.heads * (s.headSize + s.headSizeV) * VisibleKeys(s, g);
    row.layerBytes = g.blocks * s.blockSize * channels * element + queryBytes + maskBytes;
    row.make = [s](uint64_t seed, perf::Pages pages) { return MakeCall(s, seed, pages); };
    row.peer = PeerShape(s);
    return row;
}

}  // namespace atbx::cli::bench
