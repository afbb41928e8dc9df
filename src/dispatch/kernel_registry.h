// Kernel selection: the one place that picks the kernel for a plan (reference, or a CPU kernel that supports
// the plan on this machine) and says why when it cannot.
#ifndef ATBX_DISPATCH_KERNEL_REGISTRY_H
#define ATBX_DISPATCH_KERNEL_REGISTRY_H

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
    std::string_view name;  // "reference", "cpu:scalar" ...
    Backend backend;        // kReference or kCpu
    // Why the kernel cannot run the plan on this machine; nothing when it can.
    std::optional<std::string> (*refusal)(const Plan&);
    void (*run)(const Plan&, int threads);
};

using AttentionKernel = Kernel<plan::AttentionPlan>;
using CacheWriteKernel = Kernel<plan::CacheWritePlan>;

// Kernels in preference order (fastest first, the reference last).
std::span<const AttentionKernel> AttentionKernels();
std::span<const CacheWriteKernel> CacheWriteKernels();

// Picks the first kernel of the backend that accepts the plan (kAuto: any CPU kernel, else the reference).
// The CPU path can be restricted with the environment variable ATBX_CPU_PATH (e.g. "scalar"), so tests can
// force each path the machine has. Fails with rule id dispatch.cpu.unsupported and every kernel's reason.
Status SelectKernel(const plan::AttentionPlan& plan, Backend backend, const AttentionKernel** chosen);
Status SelectKernel(const plan::CacheWritePlan& plan, Backend backend, const CacheWriteKernel** chosen);

}  // namespace atbx::dispatch

#endif  // ATBX_DISPATCH_KERNEL_REGISTRY_H
