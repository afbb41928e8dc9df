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
    std::string outDir;  // empty: next to the case file
};

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

}  // namespace atbx::cli

#endif  // ATBX_TOOLS_ATBX_COMMANDS_H
