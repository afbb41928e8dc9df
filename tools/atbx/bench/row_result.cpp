#include "bench/row_result.h"

#include <algorithm>
#include <utility>

namespace atbx::cli::bench {

RowResult Summarize(const RowSpec& spec, const RowTiming& timing, const MachineCeilings& ceilings,
                    nlohmann::json peer) {
    RowResult r;
    r.spec = &spec;
    r.timing = timing;
    r.peer = std::move(peer);
    r.threads = ceilings.threads;
    const double bandwidth = spec.copyBound ? ceilings.copyBytesPerSecond : ceilings.readBytesPerSecond;
    const double peak = ceilings.PeakOfKernel(timing.kernel, spec.dtype);
    r.kvGbs = static_cast<double>(spec.kvBytes) / timing.seconds / 1e9;
    r.gflops = spec.flops / timing.seconds / 1e9;
    r.ceilingGbs = bandwidth / 1e9;
    r.peakGflops = peak / 1e9;
    const double memorySeconds = static_cast<double>(spec.bytes) / bandwidth;
    const double computeSeconds = spec.flops / peak;
    r.rooflinePct = 100.0 * std::max(memorySeconds, computeSeconds) / timing.seconds;
    r.limit = memorySeconds >= computeSeconds ? "memory" : "compute";
    return r;
}

nlohmann::json PeerFigures(const RowSpec& spec, const nlohmann::json& answer) {
    if (!answer.is_object() || !answer.contains("ms")) return nullptr;
    nlohmann::json peer = answer;
    const double seconds = answer["ms"].get<double>() / 1e3;
    peer["kv_gbs"] = static_cast<double>(spec.kvBytes) / seconds / 1e9;
    peer["gflops"] = spec.flops / seconds / 1e9;
    return peer;
}

std::optional<double> KvByteTimeVsMain(const RowResult& row, const std::vector<RowResult>& rows) {
    const auto main =
        std::find_if(rows.begin(), rows.end(), [](const RowResult& r) { return r.spec->feature == "main"; });
    if (main == rows.end() || row.spec->feature.empty()) return std::nullopt;
    const auto perByte = [](const RowResult& r) {
        return r.timing.seconds / static_cast<double>(r.spec->kvBytes);
    };
    return perByte(row) / perByte(*main);
}

}  // namespace atbx::cli::bench
