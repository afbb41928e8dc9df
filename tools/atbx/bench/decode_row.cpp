#include "bench/decode_row.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "atbx/infer_op_params.h"
#include "core/str_cat.h"
#include "plan/element.h"

namespace atbx::cli::bench {
namespace {

using Param = infer::PagedAttentionParam;

constexpr double kMasked = -10000.0;  // additive mask value of masked keys (docs/spec/paged_attention.md 3.6)

int64_t BlocksPerSequence(const DecodeShape& s) {
    return (s.context + s.blockSize - 1) / s.blockSize;
}

int64_t Tokens(const DecodeShape& s) {
    return int64_t{s.batch} * s.queryTokens;
}

aclDataType QueryType(const DecodeShape& s) {
    return s.cache == ACL_BF16 ? ACL_BF16 : ACL_FLOAT16;
}

Param MakeParam(const DecodeShape& s) {
    Param p;
    p.headNum = s.heads;
    p.kvHeadNum = s.kvHeads;
    p.qkScale = static_cast<float>(1.0 / std::sqrt(s.headSize));
    if (s.mla) p.mlaVHeadSize = static_cast<uint32_t>(s.headSizeV);
    if (s.cache == ACL_INT8) p.quantType = Param::TYPE_DEQUANT_FUSION;
    if (s.queryTokens > 1) {
        p.calcType = Param::CALC_TYPE_SPEC;
        p.maskType = Param::MASK_TYPE_SPEC;
    }
    return p;
}

// Distinct blocks per sequence in shuffled order, as a running server's allocator leaves them.
std::vector<int32_t> BlockTable(const DecodeShape& s, std::mt19937_64& rng) {
    std::vector<int32_t> ids(s.batch * BlocksPerSequence(s));
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    return ids;
}

// SPEC mask [T, S]: query token i of a sequence sees keys j <= context - queryTokens + i.
void FillSpecMask(const DecodeShape& s, uint8_t* data) {
    uint16_t masked = 0;
    plan::StoreElement(&masked, QueryType(s), 0, kMasked);
    auto* elements = reinterpret_cast<uint16_t*>(data);
    for (int64_t row = 0; row < Tokens(s); ++row) {
        const int64_t frontier = s.context - s.queryTokens + row % s.queryTokens;
        for (int64_t j = frontier + 1; j < s.context; ++j)
            elements[row * s.context + j] = masked;
    }
}

BenchCall MakeCall(const DecodeShape& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    BenchCall call{MakeParam(s)};
    const int64_t blocks = s.batch * BlocksPerSequence(s);
    const double range = s.cache == ACL_INT8 ? 100.0 : 1.0;
    call.AddRandomInput(Desc(QueryType(s), {Tokens(s), s.heads, s.headSize}), -1.0, 1.0, rng());
    call.AddRandomInput(Desc(s.cache, {blocks, s.blockSize, s.kvHeads, s.headSize}), -range, range, rng());
    if (!s.mla)
        call.AddRandomInput(Desc(s.cache, {blocks, s.blockSize, s.kvHeads, s.headSizeV}), -range, range,
                            rng());
    const std::vector<int32_t> table = BlockTable(s, rng);
    auto* tableData =
        reinterpret_cast<int32_t*>(call.AddInput(Desc(ACL_INT32, {s.batch, BlocksPerSequence(s)})));
    std::copy(table.begin(), table.end(), tableData);
    call.AddHostInt32(std::vector<int32_t>(s.batch, s.context));
    if (s.queryTokens > 1) FillSpecMask(s, call.AddInput(Desc(QueryType(s), {Tokens(s), s.context})));
    if (s.cache == ACL_INT8) {
        const int64_t channels = int64_t{s.kvHeads} * s.headSize;
        call.AddRandomInput(Desc(ACL_FLOAT, {channels}), 0.005, 0.015, rng());
        call.AddRandomInput(Desc(ACL_FLOAT, {channels}), 0.005, 0.015, rng());
    }
    if (s.queryTokens > 1) call.AddHostInt32(std::vector<int32_t>(s.batch, s.queryTokens));
    call.AddOutput(Desc(QueryType(s), {Tokens(s), s.heads, s.headSizeV}));
    return call;
}

// Query token i of a sequence sees context - queryTokens + i + 1 keys.
double VisibleKeys(const DecodeShape& s) {
    double keys = 0.0;
    for (int32_t i = 0; i < s.queryTokens; ++i)
        keys += s.context - s.queryTokens + i + 1;
    return keys * s.batch;
}

nlohmann::json PeerShape(const DecodeShape& s) {
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
    RowSpec row;
    row.op = "PagedAttention";
    row.family = s.family;
    row.shape =
        core::StrCat(s.family, " b", s.batch, " ctx", s.context, " bs", s.blockSize, " q", s.queryTokens);
    row.dtype = DtypeName(s.cache);
    row.cold = s.cold;
    const int64_t element = DataTypeSize(s.cache);
    const int64_t kvChannels = int64_t{s.kvHeads} * (s.headSize + (s.mla ? 0 : s.headSizeV));
    const int64_t cachedTokens = s.batch * BlocksPerSequence(s) * s.blockSize;
    row.kvBytes = int64_t{s.batch} * s.context * kvChannels * element;
    const int64_t queryBytes = Tokens(s) * s.heads * (s.headSize + s.headSizeV) * 2;
    const int64_t maskBytes = s.queryTokens > 1 ? Tokens(s) * s.context * 2 : 0;
    row.bytes = row.kvBytes + queryBytes + maskBytes;
    row.flops = 2.0 * s.heads * (s.headSize + s.headSizeV) * VisibleKeys(s);
    row.layerBytes = cachedTokens * kvChannels * element + queryBytes + maskBytes;
    row.make = [s](uint64_t seed) { return MakeCall(s, seed); };
    row.peer = PeerShape(s);
    return row;
}

}  // namespace atbx::cli::bench
