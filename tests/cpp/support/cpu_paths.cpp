#include "support/cpu_paths.h"

#include <cstdlib>

#include "dispatch/kernel_registry.h"
#include "ops/op_spec.h"

namespace atbx::test {
namespace {

template <class Kernels>
std::vector<std::string> CpuKernelNames(Kernels kernels) {
    std::vector<std::string> names;
    for (const auto& kernel : kernels) {
        if (kernel.backend == Backend::kCpu) names.emplace_back(kernel.name);
    }
    return names;
}

}  // namespace

std::vector<std::string> CpuPaths(const TestCall& call) {
    return std::visit(
        [](const auto& param) {
            using Spec = typename ops::SpecOf<std::decay_t<decltype(param)>>::type;
            if constexpr (std::is_same_v<typename Spec::Plan, plan::AttentionPlan>) {
                return CpuKernelNames(dispatch::AttentionKernels());
            } else {
                return CpuKernelNames(dispatch::CacheWriteKernels());
            }
        },
        call.param);
}

ScopedCpuPath::ScopedCpuPath(const std::string& path) {
    if (const char* value = std::getenv("ATBX_CPU_PATH")) previous_ = value;
    const std::string suffix = path.starts_with("cpu:") ? path.substr(4) : path;
    setenv("ATBX_CPU_PATH", suffix.c_str(), 1);
}

ScopedCpuPath::~ScopedCpuPath() {
    if (previous_) {
        setenv("ATBX_CPU_PATH", previous_->c_str(), 1);
    } else {
        unsetenv("ATBX_CPU_PATH");
    }
}

}  // namespace atbx::test
