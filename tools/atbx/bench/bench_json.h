// The JSON document of `atbx bench --json FILE`:
// {"machine": {"cpu", "isa", "threads", "read_gbs", "copy_gbs", "fma_gflops", "fma_gflops_by_path",
//              "amx_gflops"|null, "bf16_dot_gflops"|null, "int16_dot_gflops"|null,
//              "int16_pair_gflops"|null, "llc_bytes", "buffer_bytes", "pages", "transparent_huge_pages",
//              "measurements": [each measurement's {"read_gbs" ... "int16_pair_gflops"}]},
//  "rows": [{"op", "shape", "dtype", "kernel", "threads", "cold", "layers", "rotated_bytes", "ms",
//  "kv_bytes", "bytes", "flops",
//            "kv_gbs", "gflops", "roofline_pct", "limit", "ceiling_gbs", "peak_gflops",
//            "peer": null|{"name", "ms", "kv_gbs", ...}}],
//  "skipped": [{"op", "shape", "dtype", "cold", "reason"}]}
#ifndef ATBX_TOOLS_ATBX_BENCH_BENCH_JSON_H
#define ATBX_TOOLS_ATBX_BENCH_BENCH_JSON_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/machine_ceilings.h"
#include "bench/row_result.h"

namespace atbx::cli::bench {

struct SkippedRow {
    const RowSpec* spec = nullptr;
    std::string reason;
};

// `machine`: the ceilings the rows were compared with (HigherCeilings of `measurements`).
nlohmann::json BenchJson(const MachineCeilings& machine, const std::vector<MachineCeilings>& measurements,
                         const std::vector<RowResult>& rows, const std::vector<SkippedRow>& skipped);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_BENCH_JSON_H
