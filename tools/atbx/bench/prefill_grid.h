// The rows `atbx bench prefill` runs: causal prefills of 512, 2k and 8k tokens for GQA 32/8 and 28/4 at head
// size 128, head size 64, MLA 192/128 and 576/512; a batch of mixed lengths; a prefix prefill (4k cached +
// 512 new); a 4k sliding window over 16k; fp16 and bf16; int8 QKV; and ReshapeAndCache writes.
#ifndef ATBX_TOOLS_ATBX_BENCH_PREFILL_GRID_H
#define ATBX_TOOLS_ATBX_BENCH_PREFILL_GRID_H

#include <vector>

#include "bench/bench_row.h"

namespace atbx::cli::bench {

std::vector<RowSpec> PrefillRows(GridSize size);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_PREFILL_GRID_H
