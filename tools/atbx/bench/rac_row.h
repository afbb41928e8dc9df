// ReshapeAndCache rows: writing the key and value of `tokens` new tokens into a paged ND cache (a prefill's
// tokens, or one decode step's).
#ifndef ATBX_TOOLS_ATBX_BENCH_RAC_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_RAC_ROW_H

#include <cstdint>
#include <string>

#include "atbx/types.h"
#include "bench/bench_row.h"

namespace atbx::cli::bench {

struct RacShape {
    std::string family;
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
