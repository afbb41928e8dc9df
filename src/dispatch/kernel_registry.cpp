#include "dispatch/kernel_registry.h"

#include <array>
#include <cstdlib>

#include "core/str_cat.h"
#include "kernels/cpu/attention_scalar.h"
#include "kernels/ref/attention_ref.h"
#include "kernels/ref/cache_write_ref.h"

namespace atbx::dispatch {
namespace {

std::optional<std::string> AcceptsEverything(const plan::AttentionPlan&) {
    return std::nullopt;
}
std::optional<std::string> AcceptsEveryWrite(const plan::CacheWritePlan&) {
    return std::nullopt;
}
void RunCacheWrites(const plan::CacheWritePlan& plan, int) {
    kernels::ref::ExecuteCacheWrites(plan);
}

const std::array<AttentionKernel, 2> kAttentionKernels = {{
    {"cpu:scalar", Backend::kCpu, kernels::cpu::ScalarAttentionRefusal, kernels::cpu::ScalarAttention},
    {"reference", Backend::kReference, AcceptsEverything, kernels::ref::ExecuteAttention},
}};

// A cache write is a copy: the same routine serves both backends.
const std::array<CacheWriteKernel, 2> kCacheWriteKernels = {{
    {"cpu:copy", Backend::kCpu, AcceptsEveryWrite, RunCacheWrites},
    {"reference", Backend::kReference, AcceptsEveryWrite, RunCacheWrites},
}};

// "cpu:scalar" is allowed by ATBX_CPU_PATH=scalar; an unset variable allows every CPU path. Copies have a
// single path and are never excluded.
bool CpuPathAllowed(std::string_view name) {
    const char* forced = std::getenv("ATBX_CPU_PATH");
    if (forced == nullptr || *forced == '\0' || name == "cpu:copy") return true;
    return name == core::StrCat("cpu:", forced);
}

template <class Plan>
Status Select(std::span<const Kernel<Plan>> kernels, const Plan& plan, Backend backend,
              const Kernel<Plan>** chosen) {
    std::string reasons;
    for (const Kernel<Plan>& kernel : kernels) {
        if (backend != Backend::kAuto && kernel.backend != backend) continue;
        if (kernel.backend == Backend::kCpu && !CpuPathAllowed(kernel.name)) {
            reasons += core::StrCat("; ", kernel.name, ": excluded by ATBX_CPU_PATH");
            continue;
        }
        std::optional<std::string> refusal = kernel.refusal(plan);
        if (!refusal) {
            *chosen = &kernel;
            return Status::Ok();
        }
        reasons += core::StrCat("; ", kernel.name, ": ", *refusal);
    }
    *chosen = nullptr;
    return Status(ERROR_OPERATION_NULL_RUNNER, "dispatch.cpu.unsupported",
                  core::StrCat("no ", BackendName(backend), " kernel supports this call", reasons,
                               " (the reference backend supports every call)"));
}

}  // namespace

std::span<const AttentionKernel> AttentionKernels() {
    return kAttentionKernels;
}
std::span<const CacheWriteKernel> CacheWriteKernels() {
    return kCacheWriteKernels;
}

Status SelectKernel(const plan::AttentionPlan& plan, Backend backend, const AttentionKernel** chosen) {
    return Select(AttentionKernels(), plan, backend, chosen);
}

Status SelectKernel(const plan::CacheWritePlan& plan, Backend backend, const CacheWriteKernel** chosen) {
    return Select(CacheWriteKernels(), plan, backend, chosen);
}

}  // namespace atbx::dispatch
