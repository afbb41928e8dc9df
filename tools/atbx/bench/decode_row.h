// PagedAttention decode rows: one decode step (or a speculative step of several query tokens) of a batch of
// sequences over a paged KV cache, on the main path or with one of the operation's features turned on.
#ifndef ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H

#include <cstdint>
#include <string>

#include "atbx/infer_op_params.h"
#include "atbx/types.h"
#include "bench/bench_row.h"

namespace atbx::cli::bench {

using PaParam = infer::PagedAttentionParam;

// What a row turns on beside the main path (BSND caches on atlas-a2, no mask but SPEC's, no scale input).
// The grid's rows leave it as it is; `atbx bench features` turns on one feature (or a combination a model
// uses) per row on one shape (docs/spec/paged_attention.md describes each).
struct DecodeFeatures {
    std::string name;                             // "" on the grid's rows; "ALiBi mask", "NZ caches" ...
    Platform platform = Platform::kAtlasA2;       // atlas-inference: FRACTAL_NZ caches and masks
    PaParam::MaskType mask = PaParam::UNDEFINED;  // UNDEFINED: none, or SPEC's causal mask for several tokens
    bool bnsd = false;                            // caches [blocks, kv heads, block size, head size]
    bool int64Descales = false;                   // int8 caches: descales as int64 holding the float's bits
    bool offsets = false;                         // int8 caches: kOffset and vOffset
    PaParam::QuantType qkvQuant = PaParam::TYPE_QUANT_UNQUANT;  // QKV_OFFLINE / ONLINE: int8 q, K and V
    bool logN = false;
    float qScale = 0.0f;  // 0: none
    PaParam::CompressType compress = PaParam::COMPRESS_TYPE_UNDEFINED;
    bool skipOddBatches = false;  // batchRunStatus 0 for every other sequence
};

struct DecodeShape {
    std::string family;
    int32_t heads = 32;
    int32_t kvHeads = 8;
    int32_t headSize = 128;   // of q and K
    int32_t headSizeV = 128;  // of V (MLA: the first headSizeV channels of K)
    bool mla = false;         // combined cache (mlaVHeadSize): V is a view of K, one kv head
    int32_t batch = 1;
    int32_t context = 4096;  // KV tokens per sequence, the new ones included
    int32_t blockSize = 128;
    int32_t queryTokens = 1;          // > 1: calcType SPEC with a causal SPEC mask
    aclDataType cache = ACL_FLOAT16;  // fp16, bf16, or int8 (DEQUANT_FUSION, fp16 query)
    bool cold = true;
    DecodeFeatures features;
};

RowSpec DecodeRow(const DecodeShape& shape);

const char* DtypeName(aclDataType dtype);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H
