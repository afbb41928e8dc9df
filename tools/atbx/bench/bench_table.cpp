#include "bench/bench_table.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace atbx::cli::bench {
namespace {

// A time in milliseconds with two decimals, or three significant digits below 1 ms: a 32-token cache write
// takes a few microseconds, which two decimals would print as 0.01.
std::string Milliseconds(double ms) {
    const int leadingZeros = ms > 0.0 && ms < 1.0 ? -static_cast<int>(std::floor(std::log10(ms))) : 0;
    std::ostringstream cell;
    cell << std::fixed << std::setprecision(std::max(2, leadingZeros + 2)) << ms;
    return cell.str();
}

std::string PeerCell(const nlohmann::json& peer) {
    if (!peer.is_object()) return "—";
    std::ostringstream cell;
    cell << Milliseconds(peer["ms"].get<double>()) << " ms (" << peer.value("name", std::string("peer"))
         << ")";
    return cell.str();
}

std::string Ratio(const RowResult& r) {
    if (!r.peer.is_object()) return "—";
    std::ostringstream cell;
    cell << std::fixed << std::setprecision(2) << r.peer["ms"].get<double>() / (r.timing.seconds * 1e3)
         << "x";
    return cell.str();
}

}  // namespace

void PrintMachine(std::ostream& out, const MachineCeilings& m) {
    out << "machine: " << m.cpu << " (" << m.isa << "), " << m.threads << " threads, last-level cache "
        << (m.lastLevelCacheBytes >> 20) << " MiB, "
        << (m.pages == perf::Pages::kHuge ? "2 MiB pages asked for" : "the allocator's pages")
        << " (transparent huge pages: " << m.transparentHugePages << ")\n";
}

void PrintCeilings(std::ostream& out, const MachineCeilings& m, std::string_view label) {
    out << std::fixed << std::setprecision(1) << label << " (" << (m.bufferBytes >> 20)
        << " MiB buffers): read " << m.readBytesPerSecond / 1e9 << " GB/s, copy "
        << m.copyBytesPerSecond / 1e9 << " GB/s (read + write)";
    for (const auto& [path, peak] : m.fmaFlopsPerSecond)
        out << ", fp32 FMA " << perf::VectorPathName(path) << ' ' << peak / 1e9 << " GFLOP/s";
    if (m.bf16DotFlopsPerSecond) out << ", bf16 dot avx512 " << *m.bf16DotFlopsPerSecond / 1e9 << " GFLOP/s";
    if (m.int16DotFlopsPerSecond) out << ", int16 dot avx512 " << *m.int16DotFlopsPerSecond / 1e9 << " GOP/s";
    if (m.int16PairFlopsPerSecond)
        out << ", int16 pairs avx2 " << *m.int16PairFlopsPerSecond / 1e9 << " GOP/s";
    out << ", AMX bf16 ";
    if (m.amxBf16FlopsPerSecond) {
        out << *m.amxBf16FlopsPerSecond / 1e9 << " GFLOP/s\n";
    } else {
        out << "none\n";
    }
}

void PrintTable(std::ostream& out, const std::vector<RowResult>& rows,
                const std::vector<SkippedRow>& skipped) {
    out << "\n| op | shape | dtype | cache | kernel | ms | Setup ms | KV GB/s | GFLOP/s | % roofline | limit "
           "| "
           "peer | peer / atbx time |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const RowResult& r : rows) {
        const RowSpec& s = *r.spec;
        out << std::fixed << std::setprecision(2) << "| " << s.op << " | " << s.shape << " | " << s.dtype
            << " | " << (s.cold ? "cold" : "warm") << " | " << r.timing.kernel << " | "
            << Milliseconds(r.timing.seconds * 1e3) << " | " << Milliseconds(r.timing.setupSeconds * 1e3)
            << " | " << r.kvGbs << " | " << r.gflops << " | " << std::setprecision(1) << r.rooflinePct
            << " | " << r.limit << " | " << PeerCell(r.peer) << " | " << Ratio(r) << " |\n";
    }
    for (const SkippedRow& s : skipped)
        out << "skipped: " << s.spec->op << ' ' << s.spec->shape << ' ' << s.spec->dtype << ": " << s.reason
            << '\n';
}

void PrintFeatureTable(std::ostream& out, const std::vector<RowResult>& rows) {
    out << "\n| feature | KV dtype | kernel | ms | KV GB/s | % roofline | time per KV byte / main's |\n"
           "|---|---|---|---|---|---|---|\n";
    for (const RowResult& r : rows) {
        const std::optional<double> ratio = KvByteTimeVsMain(r, rows);
        if (!ratio) continue;
        out << std::fixed << std::setprecision(2) << "| " << r.spec->feature << " | " << r.spec->dtype
            << " | " << r.timing.kernel << " | " << Milliseconds(r.timing.seconds * 1e3) << " | " << r.kvGbs
            << " | " << std::setprecision(1) << r.rooflinePct << " | " << std::setprecision(2) << *ratio
            << "x |\n";
    }
}

void PrintRowLine(std::ostream& out, const RowResult& r) {
    out << std::fixed << std::setprecision(2) << r.timing.kernel << ' '
        << Milliseconds(r.timing.seconds * 1e3) << " ms (Setup " << Milliseconds(r.timing.setupSeconds * 1e3)
        << " ms), " << r.kvGbs << " GB/s KV, " << r.gflops << " GFLOP/s, " << std::setprecision(1)
        << r.rooflinePct << " % of roofline (" << r.limit << ")";
    if (r.spec->cold)
        out << ", " << r.timing.layers << " layers (" << ((r.timing.layers * r.spec->kvBytes) >> 20)
            << " MiB of KV)";
    if (r.peer.is_object()) out << std::setprecision(2) << "; peer " << PeerCell(r.peer);
    out << '\n';
}

}  // namespace atbx::cli::bench
