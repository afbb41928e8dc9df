// The atbx subcommands. Each returns the process exit code: 0 success, 1 usage or I/O error, 2 rule
// violation.
#ifndef ATBX_TOOLS_ATBX_COMMANDS_H
#define ATBX_TOOLS_ATBX_COMMANDS_H

#include <optional>
#include <string>

#include "atbx/context.h"
#include "atbx/platform.h"

namespace atbx::cli {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;
constexpr int kExitRule = 2;

struct CaseOptions {
    std::string casePath;
    std::optional<Platform> platform;
    Backend backend = Backend::kAuto;
    int threads = 0;
    std::string outDir;         // empty: next to the case file
    bool allowOutside = false;  // input files may lie outside the case file's folder
};

// --threads: 0 (all cores) to kMaxThreads.
constexpr int kMaxThreads = 1024;

int RunCommand(const CaseOptions& options);
int CheckCommand(const CaseOptions& options);
int RulesCommand(bool markdown);
int PathsCommand();  // the CPU kernel paths and which run here

struct DemoOptions {
    Backend backend = Backend::kAuto;
    int threads = 0;
    int iterations = 5;
};
int DemoCommand(const DemoOptions& options);

struct BenchOptions {
    std::string workload;  // "decode", "prefill" or "features"
    Backend backend = Backend::kAuto;
    int threads = 0;
    bool quick = false;      // one row per shape family and dtype, under two minutes
    bool smoke = false;      // tiny shapes, seconds (tests)
    std::string filter;      // regular expression over "op shape dtype cold|warm"
    std::string peer;        // "torch", "openvino" or empty
    std::string peerPython;  // empty: the peer's own (tools/atbx/CMakeLists.txt)
    std::string peerScript;  // empty: tools/bench/<peer>_peer.py
    std::string jsonPath;
    double memoryGib = 0.0;        // 0: a third of the memory, at most 8 GiB
    double coldMib = 0.0;          // 0: four times the last-level cache
    double ceilingMib = 0.0;       // 0: four times the last-level cache, at least 1 GiB
    double rowSeconds = 1.0;       // timed calls per row
    double maxCallSeconds = 20.0;  // rows estimated slower than this per call are skipped
    bool hugePages = false;        // 2 MiB pages (madvise) for the rows' tensors and the ceilings' buffers
};
int BenchCommand(const BenchOptions& options);

}  // namespace atbx::cli

#endif  // ATBX_TOOLS_ATBX_COMMANDS_H
