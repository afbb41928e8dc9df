// atbx bench decode|prefill|features: atbx's PagedAttention decode or SelfAttention prefill (and
// ReshapeAndCache) on real model shapes, or each PagedAttention feature on one shape, each row beside the
// machine's ceilings measured in the same run and, with --peer torch or --peer openvino, beside PyTorch or
// OpenVINO running the same shape right after it.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include "bench/bench_json.h"
#include "bench/bench_table.h"
#include "bench/decode_grid.h"
#include "bench/machine_ceilings.h"
#include "bench/peer_process.h"
#include "bench/prefill_grid.h"
#include "bench/row_result.h"
#include "bench/row_runner.h"
#include "commands.h"
#include "core/str_cat.h"
#include "perf/machine_info.h"

namespace atbx::cli {
namespace {

using bench::RowSpec;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kDefaultMemoryCap = int64_t{8} << 30;
constexpr int kMinRuns = 5;
constexpr double kShortRowSeconds = 0.3;

std::vector<RowSpec> Rows(const BenchOptions& o) {
    const bench::GridSize size =
        o.smoke ? bench::GridSize::kSmoke : (o.quick ? bench::GridSize::kQuick : bench::GridSize::kFull);
    if (o.workload == "prefill") return bench::PrefillRows(size);
    std::vector<RowSpec> rows;
    for (const bench::DecodeShape& shape :
         o.workload == "features" ? bench::FeatureGrid(size) : bench::DecodeGrid(size))
        rows.push_back(bench::DecodeRow(shape));
    return rows;
}

std::string RowName(const RowSpec& row) {
    return core::StrCat(row.op, ' ', row.shape, ' ', row.dtype, ' ', row.cold ? "cold" : "warm");
}

bench::RunLimits Limits(const BenchOptions& o, const bench::MachineCeilings& machine) {
    bench::RunLimits limits;
    limits.threads = o.threads;
    limits.backend = o.backend;
    limits.memoryBytes = o.memoryGib > 0 ? static_cast<int64_t>(o.memoryGib * 1024 * kMiB)
                                         : std::min(kDefaultMemoryCap, perf::PhysicalMemoryBytes() / 3);
    limits.coldBytes =
        o.coldMib > 0 ? static_cast<int64_t>(o.coldMib * kMiB) : 4 * machine.lastLevelCacheBytes;
    limits.timedSeconds = o.rowSeconds > 0 ? o.rowSeconds : (o.quick || o.smoke ? kShortRowSeconds : 1.0);
    limits.minRuns = kMinRuns;
    limits.pages = machine.pages;
    return limits;
}

// The time of the last row of the same op and dtype, scaled by the work: a guess good enough to skip rows
// that would take minutes on a slow kernel.
class TimeEstimator {
  public:
    std::optional<double> Estimate(const RowSpec& row) const {
        const auto last = last_.find(Key(row));
        if (last == last_.end()) return std::nullopt;
        const auto& [spec, seconds] = last->second;
        const double byBytes = static_cast<double>(row.bytes) / static_cast<double>(spec->bytes);
        const double byFlops = spec->flops > 0 ? row.flops / spec->flops : 0.0;
        return seconds * std::max(byBytes, byFlops);
    }
    void Record(const RowSpec& row, double seconds) { last_[Key(row)] = {&row, seconds}; }

  private:
    static std::string Key(const RowSpec& row) { return row.op + ' ' + row.dtype; }
    std::map<std::string, std::pair<const RowSpec*, double>> last_;
};

struct PeerDefaults {
    const char* python;
    const char* script;
    const char* installer;  // what to run when the peer does not start
};

PeerDefaults DefaultsOf(const std::string& peer) {
    if (peer == "openvino")
        return {ATBX_OPENVINO_PEER_PYTHON, ATBX_OPENVINO_PEER_SCRIPT,
                "scripts/bench_setup.sh installs OpenVINO into .venv-openvino"};
    return {ATBX_TORCH_PEER_PYTHON, ATBX_TORCH_PEER_SCRIPT,
            "scripts/bench_setup.sh installs PyTorch with OpenBLAS"};
}

std::unique_ptr<bench::PeerProcess> StartPeer(const BenchOptions& o) {
    const PeerDefaults defaults = DefaultsOf(o.peer);
    const std::string python = o.peerPython.empty() ? defaults.python : o.peerPython;
    const std::string script = o.peerScript.empty() ? defaults.script : o.peerScript;
    std::string error;
    auto peer = bench::PeerProcess::Start({python, script}, &error);
    if (!peer) {
        std::cerr << "error: the " << o.peer << " peer (" << python << ' ' << script
                  << ") did not start: " << error << "\n(" << defaults.installer << ")\n";
    }
    return peer;
}

nlohmann::json PeerRequest(const RowSpec& row, const bench::RunLimits& limits, int threads) {
    nlohmann::json request = row.peer;
    request["cold"] = row.cold;
    request["threads"] = threads;
    request["memory_bytes"] = limits.memoryBytes;
    request["cold_bytes"] = limits.coldBytes;
    request["seconds"] = limits.timedSeconds;
    request["min_runs"] = limits.minRuns;
    return request;
}

}  // namespace

int BenchCommand(const BenchOptions& o) {
    std::vector<RowSpec> rows = Rows(o);
    if (!o.filter.empty()) {
        const std::regex pattern(o.filter);
        std::erase_if(rows, [&](const RowSpec& row) { return !std::regex_search(RowName(row), pattern); });
    }
    std::unique_ptr<bench::PeerProcess> peer;
    if (!o.peer.empty()) {
        peer = StartPeer(o);
        if (!peer) return kExitUsage;
        std::cerr << "peer: " << peer->hello().dump() << '\n';
    }
    std::cerr << "measuring the machine's ceilings...\n";
    const int64_t ceilingBytes = static_cast<int64_t>(o.ceilingMib * kMiB);
    const perf::Pages pages = o.hugePages ? perf::Pages::kHuge : perf::Pages::kDefault;
    // Best of three for figures; a smoke run checks the harness (tests/python/test_bench.py), and three runs
    // of each ceiling were most of its time.
    const int repeats = o.smoke ? 1 : 3;
    const bench::MachineCeilings before =
        bench::MeasureMachineCeilings(o.threads, ceilingBytes, pages, repeats);
    PrintMachine(std::cout, before);
    PrintCeilings(std::cout, before, "ceilings measured now");
    const bench::RunLimits limits = Limits(o, before);

    std::vector<bench::RowResult> results;
    std::vector<bench::SkippedRow> skipped;
    TimeEstimator estimator;
    for (size_t i = 0; i < rows.size(); ++i) {
        const RowSpec& row = rows[i];
        std::cerr << '[' << i + 1 << '/' << rows.size() << "] " << RowName(row) << ": " << std::flush;
        const std::optional<double> estimate = estimator.Estimate(row);
        if (estimate && *estimate > o.maxCallSeconds) {
            skipped.push_back(
                {&row, core::StrCat("estimated ", static_cast<int>(*estimate), " s per call, above the ",
                                    o.maxCallSeconds, " s bound (--max-call-seconds)")});
            std::cerr << "skipped: " << skipped.back().reason << '\n';
            continue;
        }
        const bench::RowOutcome outcome = bench::RunRow(row, limits);
        if (!outcome.timing) {
            skipped.push_back({&row, outcome.skipped});
            std::cerr << "skipped: " << outcome.skipped << '\n';
            continue;
        }
        estimator.Record(row, outcome.timing->seconds);
        nlohmann::json peerFigures = nullptr;
        if (peer && !row.peer.is_null()) {
            const nlohmann::json answer = peer->Ask(PeerRequest(row, limits, before.threads));
            if (answer.contains("error")) std::cerr << "peer: " << answer["error"].get<std::string>() << "; ";
            peerFigures = bench::PeerFigures(row, answer);
        }
        bench::RowResult result = bench::Summarize(row, *outcome.timing, before, std::move(peerFigures));
        PrintRowLine(std::cerr, result);
        results.push_back(std::move(result));
    }
    std::cerr << "measuring the machine's ceilings again...\n";
    const bench::MachineCeilings after =
        bench::MeasureMachineCeilings(o.threads, ceilingBytes, pages, repeats);
    PrintCeilings(std::cout, after, "ceilings measured again after the rows");
    const bench::MachineCeilings machine = bench::HigherCeilings(before, after);
    PrintCeilings(std::cout, machine, "ceilings of the table (the higher of each)");
    for (bench::RowResult& result : results)
        result = bench::Summarize(*result.spec, result.timing, machine, std::move(result.peer));
    PrintTable(std::cout, results, skipped);
    if (o.workload == "features") PrintFeatureTable(std::cout, results);
    if (!o.jsonPath.empty()) {
        std::ofstream file(o.jsonPath);
        file << bench::BenchJson(machine, {before, after}, results, skipped).dump(2) << '\n';
        if (!file) {
            std::cerr << "error: cannot write " << o.jsonPath << '\n';
            return kExitUsage;
        }
    }
    return kExitOk;
}

}  // namespace atbx::cli
