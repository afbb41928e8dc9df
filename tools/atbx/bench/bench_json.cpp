#include "bench/bench_json.h"

namespace atbx::cli::bench {
namespace {

nlohmann::json Giga(const std::optional<double>& perSecond) {
    return perSecond ? nlohmann::json(*perSecond / 1e9) : nullptr;
}

// The ceilings of one measurement, in GB/s and GFLOP/s.
nlohmann::json CeilingsJson(const MachineCeilings& m) {
    nlohmann::json byPath = nlohmann::json::object();
    for (const auto& [path, peak] : m.fmaFlopsPerSecond)
        byPath[perf::VectorPathName(path)] = peak / 1e9;
    return {{"read_gbs", m.readBytesPerSecond / 1e9},
            {"copy_gbs", m.copyBytesPerSecond / 1e9},
            {"fma_gflops", m.WidestFmaPeak() / 1e9},
            {"fma_gflops_by_path", byPath},
            {"amx_gflops", Giga(m.amxBf16FlopsPerSecond)},
            {"bf16_dot_gflops", Giga(m.bf16DotFlopsPerSecond)},
            {"int16_dot_gflops", Giga(m.int16DotFlopsPerSecond)},
            {"int16_pair_gflops", Giga(m.int16PairFlopsPerSecond)}};
}

nlohmann::json MachineJson(const MachineCeilings& m, const std::vector<MachineCeilings>& measurements) {
    nlohmann::json machine = CeilingsJson(m);
    machine.update({{"cpu", m.cpu},
                    {"isa", m.isa},
                    {"threads", m.threads},
                    {"llc_bytes", m.lastLevelCacheBytes},
                    {"buffer_bytes", m.bufferBytes},
                    {"pages", perf::PagesName(m.pages)},
                    {"transparent_huge_pages", m.transparentHugePages}});
    machine["measurements"] = nlohmann::json::array();
    for (const MachineCeilings& each : measurements)
        machine["measurements"].push_back(CeilingsJson(each));
    return machine;
}

nlohmann::json RowJson(const RowResult& r, const std::vector<RowResult>& rows) {
    const RowSpec& s = *r.spec;
    const std::optional<double> vsMain = KvByteTimeVsMain(r, rows);
    return {{"op", s.op},
            {"shape", s.shape},
            {"dtype", s.dtype},
            {"kernel", r.timing.kernel},
            {"threads", r.threads},
            {"cold", s.cold},
            {"layers", r.timing.layers},
            {"rotated_bytes", r.timing.layers * s.kvBytes},
            {"runs", r.timing.runs},
            {"ms", r.timing.seconds * 1e3},
            {"setup_ms", r.timing.setupSeconds * 1e3},
            {"kv_bytes", s.kvBytes},
            {"bytes", s.bytes},
            {"flops", s.flops},
            {"kv_gbs", r.kvGbs},
            {"gflops", r.gflops},
            {"roofline_pct", r.rooflinePct},
            {"limit", r.limit},
            {"ceiling_gbs", r.ceilingGbs},
            {"peak_gflops", r.peakGflops},
            {"peer", r.peer},
            {"feature", s.feature.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.feature)},
            {"kv_byte_time_vs_main", vsMain ? nlohmann::json(*vsMain) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json BenchJson(const MachineCeilings& machine, const std::vector<MachineCeilings>& measurements,
                         const std::vector<RowResult>& rows, const std::vector<SkippedRow>& skipped) {
    nlohmann::json doc = {{"machine", MachineJson(machine, measurements)},
                          {"rows", nlohmann::json::array()},
                          {"skipped", nlohmann::json::array()}};
    for (const RowResult& r : rows)
        doc["rows"].push_back(RowJson(r, rows));
    for (const SkippedRow& s : skipped) {
        doc["skipped"].push_back({{"op", s.spec->op},
                                  {"shape", s.spec->shape},
                                  {"dtype", s.spec->dtype},
                                  {"cold", s.spec->cold},
                                  {"reason", s.reason}});
    }
    return doc;
}

}  // namespace atbx::cli::bench
