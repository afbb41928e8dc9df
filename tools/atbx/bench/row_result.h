// RowResult: a timed row's figures beside the machine's ceilings measured in the same run. The roofline time
// of a call is max(bytes / memory ceiling, FLOPs / compute peak of the kernel's path); the row reaches
// roofline time / measured time of it.
#ifndef ATBX_TOOLS_ATBX_BENCH_ROW_RESULT_H
#define ATBX_TOOLS_ATBX_BENCH_ROW_RESULT_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_row.h"
#include "bench/machine_ceilings.h"
#include "bench/row_runner.h"

namespace atbx::cli::bench {

struct RowResult {
    const RowSpec* spec = nullptr;
    RowTiming timing;
    int threads = 0;
    double kvGbs = 0.0;       // K/V GB/s (ReshapeAndCache: GB/s moved)
    double gflops = 0.0;      // counted FLOPs per second, in GFLOP/s
    double ceilingGbs = 0.0;  // read ceiling (copy ceiling for cache writes)
    double peakGflops = 0.0;  // the compute peak of the kernel's path (MachineCeilings::PeakOfKernel)
    double rooflinePct = 0.0;
    std::string limit;    // "memory" or "compute": the larger term of the roofline
    nlohmann::json peer;  // null, or {"name", "ms", "kv_gbs", ...}
};

// The row's figures against `ceilings`, with the peer's (PeerFigures, or null).
RowResult Summarize(const RowSpec& spec, const RowTiming& timing, const MachineCeilings& ceilings,
                    nlohmann::json peer);

// The peer's answer with its KV GB/s over the row's KV bytes (so the column compares like with like).
nlohmann::json PeerFigures(const RowSpec& spec, const nlohmann::json& answer);

// `atbx bench features`: the row's time per KV byte over that of the run's main row (feature "main"), or
// nothing when the run has none (filtered out) or the row has no feature.
std::optional<double> KvByteTimeVsMain(const RowResult& row, const std::vector<RowResult>& rows);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_ROW_RESULT_H
