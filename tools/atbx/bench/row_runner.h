// Times one benchmark row through the public API: a model has one operation per layer, so a cold row creates
// and sets up one operation per layer (each with its own KV) and calls them in turn, until the KV rotated
// over exceeds the last-level cache; a warm row calls one operation again and again.
#ifndef ATBX_TOOLS_ATBX_BENCH_ROW_RUNNER_H
#define ATBX_TOOLS_ATBX_BENCH_ROW_RUNNER_H

#include <cstdint>
#include <optional>
#include <string>

#include "atbx/context.h"
#include "bench/bench_row.h"
#include "perf/page_buffer.h"

namespace atbx::cli::bench {

struct RunLimits {
    int threads = 0;
    Backend backend = Backend::kAuto;
    int64_t memoryBytes = 0;    // the most a row's layers may allocate together
    int64_t coldBytes = 0;      // the KV a cold row rotates over, at least
    double timedSeconds = 1.0;  // time spent on timed calls (at least minRuns calls)
    int minRuns = 5;
    perf::Pages pages = perf::Pages::kDefault;  // of the layers' tensors
};

struct RowTiming {
    std::string kernel;    // the kernel the dispatcher chose ("cpu:scalar", "reference" ...)
    double seconds = 0.0;  // median time of one call
    // Median time of the Setup a serving loop calls before each Execute (ATB's order; a decode step's lengths
    // change every step), timed apart from the calls.
    double setupSeconds = 0.0;
    int runs = 0;
    int layers = 1;
};

struct RowOutcome {
    std::optional<RowTiming> timing;
    std::string skipped;  // why the row did not run, when it did not
};

// Layers a row rotates over: enough to exceed limits.coldBytes (1 for a warm row), as many as memory allows;
// 0 when one layer does not fit.
int LayerCount(const RowSpec& row, const RunLimits& limits);

RowOutcome RunRow(const RowSpec& row, const RunLimits& limits);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_ROW_RUNNER_H
