// The demo's PagedAttention decode call: GQA 32 query heads over 8 kv heads, head size 128, block size 128,
// fp16, sequences of different lengths spread over shuffled blocks, random data.
#ifndef ATBX_TOOLS_ATBX_DEMO_CASE_H
#define ATBX_TOOLS_ATBX_DEMO_CASE_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "atbx/types.h"

namespace atbx::cli {

struct DemoCase {
    infer::PagedAttentionParam param;
    std::vector<int32_t> contextLens;
    std::vector<std::vector<uint8_t>>
        buffers;  // query, keyCache, valueCache, blockTables, contextLens, attnOut
    VariantPack pack;
    int64_t headDim = 0;
    int64_t kvBytesRead = 0;  // K and V bytes one decode step reads
    int64_t flops = 0;        // multiply-adds x 2 of Q.K and P.V
};

DemoCase MakeDemoCase(uint64_t seed);

}  // namespace atbx::cli

#endif  // ATBX_TOOLS_ATBX_DEMO_CASE_H
