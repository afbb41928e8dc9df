// Kernel selection: the one place that picks the kernel for a plan (reference, or a CPU kernel that supports
// the plan on this machine) and says why when it cannot, and the one place that runs it.
#ifndef ATBX_DISPATCH_KERNEL_REGISTRY_H
#define ATBX_DISPATCH_KERNEL_REGISTRY_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "atbx/context.h"
#include "atbx/status.h"
#include "plan/attention_plan.h"
#include "plan/cache_write.h"

namespace atbx::dispatch {

template <class Plan>
struct Kernel {
    std::string_view name;  // "reference", "cpu:avx512", "cpu:avx2", "cpu:scalar" ...
    Backend backend;        // kReference or kCpu
    // Why the kernel cannot run the plan on this machine (first the CPU feature it lacks, then the plan
    // feature); nothing when it can.
    std::optional<std::string> (*refusal)(const Plan&);
    // Bytes of workspace run needs on `threads` threads (0: every hardware thread).
    uint64_t (*workspaceBytes)(const Plan&, int threads);
    void (*run)(const Plan&, int threads, void* workspace);
};

using AttentionKernel = Kernel<plan::AttentionPlan>;
using CacheWriteKernel = Kernel<plan::CacheWritePlan>;

// Kernels in preference order (fastest first, the reference last).
std::span<const AttentionKernel> AttentionKernels();
std::span<const CacheWriteKernel> CacheWriteKernels();

// Picks the first kernel of the context's backend that accepts the plan (kAuto: any CPU kernel, else the
// reference). The CPU path can be forced with context.cpuPath, else with the environment variable
// ATBX_CPU_PATH (e.g. "scalar"). Fails with rule id dispatch.cpu.unsupported and every kernel's reason.
Status SelectKernel(const plan::AttentionPlan& plan, const Context& context, const AttentionKernel** chosen);
Status SelectKernel(const plan::CacheWritePlan& plan, const Context& context,
                    const CacheWriteKernel** chosen);

// Runs a selected kernel: an attention plan's cache writes (plan.preWrites) first, once (a CPU kernel's with
// the CPU cache-write kernel, the reference's with the reference's), then the kernel.
void RunKernel(const AttentionKernel& kernel, const plan::AttentionPlan& plan, int threads, void* workspace);
void RunKernel(const CacheWriteKernel& kernel, const plan::CacheWritePlan& plan, int threads,
               void* workspace);

}  // namespace atbx::dispatch

#endif  // ATBX_DISPATCH_KERNEL_REGISTRY_H
