// RowSpec: one benchmark row before it runs: what it measures (op, shape, dtype, cold or warm), the work one
// call does (bytes, FLOPs) counted from the shape alone, and how to build one layer's call.
#ifndef ATBX_TOOLS_ATBX_BENCH_BENCH_ROW_H
#define ATBX_TOOLS_ATBX_BENCH_BENCH_ROW_H

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "atbx/platform.h"
#include "bench/bench_call.h"

namespace atbx::cli::bench {

// How many rows a grid has: every row, one row per shape family and dtype (under two minutes on the
// portable kernel), or tiny shapes that run in seconds (tests).
enum class GridSize { kFull, kQuick, kSmoke };

struct RowSpec {
    std::string op;       // "PagedAttention", "SelfAttention", "ReshapeAndCache"
    std::string family;   // "gqa32/8-d128", "mla128-d576/512" ...
    std::string shape;    // "gqa32/8 d128 b8 ctx4096 bs128 q1": every dimension that sets the work
    std::string dtype;    // "fp16", "bf16", "int8" (the KV cache's)
    std::string feature;  // `atbx bench features`: the feature the row turns on ("main": none)
    Platform platform = Platform::kAtlasA2;
    bool cold = true;        // rotate over layers whose KV together exceeds the last-level cache
    int64_t kvBytes = 0;     // K and V bytes one call reads (ReshapeAndCache: bytes it reads and writes)
    int64_t bytes = 0;       // every byte one call must move at least: the memory side of the roofline
    double flops = 0.0;      // FLOPs one call must do (an FMA counts 2; work a mask hides is not counted)
    bool copyBound = false;  // the memory side is a copy (read + write) rather than a read
    int64_t layerBytes = 0;  // memory one layer's call allocates
    std::function<BenchCall(uint64_t seed, perf::Pages pages)> make;
    nlohmann::json peer;  // the shape as the peer scripts read it (tools/bench/torch_peer.py); null: none
};

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_BENCH_ROW_H
