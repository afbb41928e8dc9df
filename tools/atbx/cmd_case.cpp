// atbx run / atbx check.
#include <iostream>

#include "commands.h"
#include "io/case_file.h"
#include "io/case_runner.h"
#include "io/npy.h"
#include "io/output_files.h"
#include "io/user_text.h"

namespace atbx::cli {
namespace {

void PrintViolations(const io::CaseOutcome& outcome) {
    for (const rules::Violation& v : outcome.violations) {
        std::cerr << "violated " << v.rule->id << " (" << ErrorTypeName(v.rule->code) << "): " << v.message
                  << '\n';
    }
    if (outcome.violations.empty()) std::cerr << "error: " << outcome.status.ToString() << '\n';
}

io::LoadOptions LoadOptionsOf(const CaseOptions& options) {
    return {options.platform, options.allowOutside};
}

}  // namespace

int RunCommand(const CaseOptions& options) {
    try {
        const io::CaseFile c = io::LoadCase(options.casePath, LoadOptionsOf(options));
        const io::CaseOutcome outcome = io::RunCase(c, options.backend, options.threads);
        if (!outcome.status.ok()) {
            PrintViolations(outcome);
            return kExitRule;
        }
        std::filesystem::path dir =
            options.outDir.empty() ? c.path.parent_path() : std::filesystem::path(options.outDir);
        if (dir.empty()) dir = ".";
        io::WriteOutputs(c.outputFiles, outcome.outputs, dir);
        std::cout << io::OpName(c.param) << " on " << PlatformName(c.platform) << ": kernel "
                  << outcome.kernel << ", " << outcome.seconds * 1e3 << " ms, " << outcome.outputs.size()
                  << " output(s) written to " << io::Printable(dir.string(), 300) << '\n';
        return kExitOk;
    } catch (const io::IoError& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitUsage;
    } catch (const std::exception& e) {
        // Last line of defence: whatever else goes wrong reading or writing files is reported, not a crash.
        std::cerr << "error: " << io::Printable(e.what(), 1000) << '\n';
        return kExitUsage;
    }
}

int CheckCommand(const CaseOptions& options) {
    try {
        const io::CaseFile c = io::LoadCase(options.casePath, LoadOptionsOf(options));
        const io::CaseOutcome outcome = io::CheckCase(c);
        if (!outcome.status.ok()) {
            PrintViolations(outcome);
            return kExitRule;
        }
        std::cout << io::OpName(c.param) << " on " << PlatformName(c.platform) << ": valid\n";
        return kExitOk;
    } catch (const io::IoError& e) {
        std::cerr << "error: " << e.what() << '\n';
        return kExitUsage;
    } catch (const std::exception& e) {
        // Last line of defence: whatever else goes wrong reading or writing files is reported, not a crash.
        std::cerr << "error: " << io::Printable(e.what(), 1000) << '\n';
        return kExitUsage;
    }
}

}  // namespace atbx::cli
