// PagedAttention decode rows: one decode step (or a speculative step of several query tokens) of a batch of
// sequences over a paged KV cache.
#ifndef ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H

#include <cstdint>
#include <string>

#include "atbx/types.h"
#include "bench/bench_row.h"

namespace atbx::cli::bench {

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
};

RowSpec DecodeRow(const DecodeShape& shape);

const char* DtypeName(aclDataType dtype);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_DECODE_ROW_H
