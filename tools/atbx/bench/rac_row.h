// ReshapeAndCache rows: writing the key and value of `tokens` new tokens into a paged cache (a prefill's
// tokens, or one decode step's), in each of the op's modes: ND caches, FRACTAL_NZ caches (atlas-a2
// K_CACHE_V_CACHE_NZ), the key cache only, and the head-compressed caches (KVHEAD, KVHEAD_ROPE) of one
// sequence of `tokens` tokens.
#ifndef ATBX_TOOLS_ATBX_BENCH_RAC_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_RAC_ROW_H

#include <cstdint>
#include <string>

#include "atbx/types.h"
#include "bench/bench_row.h"

namespace atbx::cli::bench {

enum class RacMode { kNd, kNz, kKeyOnly, kKvHead, kKvHeadRope };

struct RacShape {
    std::string family;
    RacMode mode = RacMode::kNd;
    int32_t kvHeads = 8;
    int32_t headSize = 128;
    int32_t tokens = 2048;
    int32_t blockSize = 128;
    aclDataType dtype = ACL_FLOAT16;
    bool cold = true;
};

RowSpec RacRow(const RacShape& shape);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_RAC_ROW_H
