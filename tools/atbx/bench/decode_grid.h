// The PagedAttention decode rows `atbx bench decode` runs: real model shapes (GQA 32/8 and 28/4 at head size
// 128, MHA 32/32, head sizes 64 and 256, MLA 128 heads at 576/512) over batches, contexts, block sizes, KV
// dtypes and speculative steps; and the features table.
#ifndef ATBX_TOOLS_ATBX_BENCH_DECODE_GRID_H
#define ATBX_TOOLS_ATBX_BENCH_DECODE_GRID_H

#include <vector>

#include "bench/bench_row.h"
#include "bench/decode_row.h"

namespace atbx::cli::bench {

std::vector<DecodeShape> DecodeGrid(GridSize size);

// `atbx bench features`: each PagedAttention feature turned on in turn on one decode shape, the first row
// the main path (fp16, BSND, no mask), so that each feature's time per KV byte compares with it.
std::vector<DecodeShape> FeatureGrid(GridSize size);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_DECODE_GRID_H
