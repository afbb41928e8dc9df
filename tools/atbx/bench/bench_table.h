// The text `atbx bench` prints: the machine and its ceilings, then one Markdown table row per benchmark row
// (so that BENCHMARKS.md can quote it as printed), then the rows it skipped and why.
#ifndef ATBX_TOOLS_ATBX_BENCH_BENCH_TABLE_H
#define ATBX_TOOLS_ATBX_BENCH_BENCH_TABLE_H

#include <ostream>
#include <string_view>
#include <vector>

#include "bench/bench_json.h"
#include "bench/machine_ceilings.h"
#include "bench/row_result.h"

namespace atbx::cli::bench {

// The machine: its CPU, instruction sets, threads, last-level cache and pages.
void PrintMachine(std::ostream& out, const MachineCeilings& machine);
// One line of the machine's ceilings, after `label` ("ceilings measured now" ...).
void PrintCeilings(std::ostream& out, const MachineCeilings& machine, std::string_view label);
void PrintTable(std::ostream& out, const std::vector<RowResult>& rows,
                const std::vector<SkippedRow>& skipped);
// `atbx bench features`: each feature's row against the main path's, per KV byte and in % of the roofline.
void PrintFeatureTable(std::ostream& out, const std::vector<RowResult>& rows);
// One line for the progress report (stderr).
void PrintRowLine(std::ostream& out, const RowResult& row);

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_BENCH_TABLE_H
