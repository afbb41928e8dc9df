// atbx paths: the CPU's features, then the CPU kernel paths of the registry, fastest first, and whether each
// runs on this CPU.
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "core/cpu_features.h"
#include "dispatch/kernel_registry.h"
#include "kernels/cpu/cpu_paths.h"

namespace atbx::cli {
namespace {

// "cpu features: avx512 avx512bf16 ... avx2", and what ATBX_HIDE_CPU_FEATURES hides from the kernels.
void PrintFeatures() {
    std::cout << "cpu features: " << core::DescribeCpuFeatures(core::HostCpu());
    const char* hidden = std::getenv(core::kHideCpuFeaturesVariable);
    if (hidden != nullptr && *hidden != '\0')
        std::cout << " (" << core::kHideCpuFeaturesVariable << " hides: " << hidden << ")";
    std::cout << '\n';
}

}  // namespace

int PathsCommand() {
    PrintFeatures();
    // A plan with no work: a path refuses it only for the CPU's sake.
    const plan::AttentionPlan empty;
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        if (kernel.backend != Backend::kCpu) continue;
        const std::optional<std::string> refusal = kernel.refusal(empty);
        const bool lacking = refusal && refusal->starts_with("this CPU lacks");
        std::cout << kernel.name << (lacking ? " unavailable: " + *refusal : std::string(" available"));
        if (kernel.name == "cpu:amx" && kernels::cpu::AmxTilesOnModel())
            std::cout
                << " (its tile instructions on the software model of an ATBX_AMX_MODEL build: for tests)";
        std::cout << '\n';
    }
    const std::vector<std::string>& unknown = core::UnknownHiddenCpuFeatures();
    if (unknown.empty()) return kExitOk;
    std::cerr << "atbx: " << core::kHideCpuFeaturesVariable << " names features atbx does not know:";
    for (const std::string& name : unknown)
        std::cerr << " '" << name << "'";
    std::cerr << " (it knows " << core::HideableCpuFeatureNames() << ")\n";
    return kExitUsage;
}

}  // namespace atbx::cli
