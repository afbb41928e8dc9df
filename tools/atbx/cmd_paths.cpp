// atbx paths: the CPU kernel paths of the registry, fastest first, and whether each runs on this CPU.
#include <iostream>

#include "commands.h"
#include "dispatch/kernel_registry.h"

namespace atbx::cli {

int PathsCommand() {
    // A plan with no work: a path refuses it only for the CPU's sake.
    const plan::AttentionPlan empty;
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        if (kernel.backend != Backend::kCpu) continue;
        const std::optional<std::string> refusal = kernel.refusal(empty);
        const bool lacking = refusal && refusal->starts_with("this CPU lacks");
        std::cout << kernel.name << (lacking ? " unavailable: " + *refusal : std::string(" available"))
                  << '\n';
    }
    return kExitOk;
}

}  // namespace atbx::cli
