#include "dispatch/kernel_registry.h"

#include <array>
#include <cstdlib>

#include "core/str_cat.h"
#include "kernels/cpu/cache_write_cpu.h"
#include "kernels/cpu/cpu_paths.h"
#include "kernels/ref/attention_ref.h"
#include "kernels/ref/cache_write_ref.h"

namespace atbx::dispatch {
namespace {

namespace cpu = kernels::cpu;

std::optional<std::string> AcceptsEverything(const plan::AttentionPlan&) {
    return std::nullopt;
}
std::optional<std::string> AcceptsEveryWrite(const plan::CacheWritePlan&) {
    return std::nullopt;
}
template <class Plan>
uint64_t NoWorkspace(const Plan&, int) {
    return 0;
}
void RunReference(const plan::AttentionPlan& plan, int threads, void*) {
    kernels::ref::ExecuteAttention(plan, threads);
}
void RunReferenceCacheWrites(const plan::CacheWritePlan& plan, int, void*) {
    kernels::ref::ExecuteCacheWrites(plan);
}
void RunCpuCacheWrites(const plan::CacheWritePlan& plan, int threads, void*) {
    cpu::ExecuteCacheWrites(plan, threads);
}

const std::array<AttentionKernel, 5> kAttentionKernels = {{
    {"cpu:amx", Backend::kCpu, cpu::AmxRefusal, cpu::AmxWorkspaceBytes, cpu::RunAmx},
    {"cpu:avx512", Backend::kCpu, cpu::Avx512Refusal, cpu::AttentionWorkspaceBytes, cpu::RunAvx512},
    {"cpu:avx2", Backend::kCpu, cpu::Avx2Refusal, cpu::AttentionWorkspaceBytes, cpu::RunAvx2},
    {"cpu:scalar", Backend::kCpu, cpu::ScalarRefusal, cpu::AttentionWorkspaceBytes, cpu::RunScalar},
    {"reference", Backend::kReference, AcceptsEverything, NoWorkspace<plan::AttentionPlan>, RunReference},
}};

// Cache writes are copies (and KVHEAD_ROPE means): the CPU kernel writes the reference's bytes, threaded.
const std::array<CacheWriteKernel, 2> kCacheWriteKernels = {{
    {"cpu:copy", Backend::kCpu, AcceptsEveryWrite, NoWorkspace<plan::CacheWritePlan>, RunCpuCacheWrites},
    {"reference", Backend::kReference, AcceptsEveryWrite, NoWorkspace<plan::CacheWritePlan>,
     RunReferenceCacheWrites},
}};

// The CPU path the caller forces ("avx2" or "cpu:avx2"), from the context, else from ATBX_CPU_PATH; empty:
// none forced.
std::string ForcedCpuPath(const Context& context) {
    const char* forced = context.cpuPath != nullptr && *context.cpuPath != '\0'
                             ? context.cpuPath
                             : std::getenv("ATBX_CPU_PATH");
    if (forced == nullptr || *forced == '\0') return {};
    const std::string_view name(forced);
    return name.starts_with("cpu:") ? std::string(name) : core::StrCat("cpu:", name);
}

// Copies have a single path and are never excluded.
bool CpuPathAllowed(std::string_view name, const std::string& forced) {
    return forced.empty() || name == "cpu:copy" || name == forced;
}

template <class Plan>
Status Select(std::span<const Kernel<Plan>> kernels, const Plan& plan, const Context& context,
              const Kernel<Plan>** chosen) {
    const std::string forced = ForcedCpuPath(context);
    std::string reasons;
    for (const Kernel<Plan>& kernel : kernels) {
        if (context.backend != Backend::kAuto && kernel.backend != context.backend) continue;
        if (kernel.backend == Backend::kCpu && !CpuPathAllowed(kernel.name, forced)) {
            reasons += core::StrCat("; ", kernel.name, ": excluded (the caller forces ", forced, ")");
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
                  core::StrCat("no ", BackendName(context.backend), " kernel supports this call", reasons,
                               " (the reference backend supports every call)"));
}

}  // namespace

std::span<const AttentionKernel> AttentionKernels() {
    return kAttentionKernels;
}
std::span<const CacheWriteKernel> CacheWriteKernels() {
    return kCacheWriteKernels;
}

Status SelectKernel(const plan::AttentionPlan& plan, const Context& context, const AttentionKernel** chosen) {
    return Select(AttentionKernels(), plan, context, chosen);
}

Status SelectKernel(const plan::CacheWritePlan& plan, const Context& context,
                    const CacheWriteKernel** chosen) {
    return Select(CacheWriteKernels(), plan, context, chosen);
}

void RunKernel(const AttentionKernel& kernel, const plan::AttentionPlan& plan, int threads, void* workspace) {
    if (kernel.backend == Backend::kCpu) {
        cpu::ExecuteCacheWrites(plan.preWrites, threads);
    } else {
        kernels::ref::ExecuteCacheWrites(plan.preWrites);
    }
    kernel.run(plan, threads, workspace);
}

void RunKernel(const CacheWriteKernel& kernel, const plan::CacheWritePlan& plan, int threads,
               void* workspace) {
    kernel.run(plan, threads, workspace);
}

}  // namespace atbx::dispatch
