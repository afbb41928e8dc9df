#include "kernels/cpu/cpu_paths.h"

#include <initializer_list>
#include <utility>
#include <variant>

#include "core/cpu_features.h"
#include "core/parallel.h"
#include "kernels/cpu/amx_kernel.h"
#include "kernels/cpu/isa_kernels.h"
#include "kernels/cpu/kernel_call.h"

namespace atbx::kernels::cpu {
namespace {

using Feature = std::pair<bool core::CpuFeatures::*, const char*>;

std::optional<std::string> Refusal(std::initializer_list<Feature> needed, const plan::AttentionPlan& plan) {
    for (const auto& [feature, name] : needed) {
        if (!(core::HostCpu().*feature)) return std::string("this CPU lacks ") + name;
    }
    return CallRefusal(plan);
}

// The call of the AVX-512 kernel (cpu:avx512, and the tasks cpu:amx hands it): its int16 dot products need
// AVX512-VNNI.
KernelCall Avx512Call(const plan::AttentionPlan& plan, int threads, RowBlockWidth width, void* workspace) {
    KernelCall call = PrepareCall(plan, threads, width, workspace);
    call.int8Dots = call.int8Dots && core::HostCpu().avx512vnni;
    call.int8Pairs = call.int8Pairs && core::HostCpu().avx512vnni;
    call.int8PV = call.int8PV && core::HostCpu().avx512vnni;
    return call;
}

}  // namespace

bool AmxTilesOnModel() {
#if defined(ATBX_AMX_MODEL)
    return true;
#else
    return false;
#endif
}

std::optional<std::string> AmxRefusal(const plan::AttentionPlan& plan) {
    using F = core::CpuFeatures;
    if (AmxTilesOnModel() ? core::CpuFeatureHidden(&F::amxBf16) : !core::HostCpu().amxBf16)
        return "this CPU lacks AMX-BF16 (or Linux refused its tile state)";
    return Refusal({{&F::avx512f, "AVX-512F"},
                    {&F::avx512bw, "AVX-512BW"},
                    {&F::avx512dq, "AVX-512DQ"},
                    {&F::avx512vl, "AVX-512VL"},
                    {&F::avx512bf16, "AVX512-BF16"},
                    {&F::fma, "FMA"},
                    {&F::f16c, "F16C"}},
                   plan);
}

std::optional<std::string> Avx512Refusal(const plan::AttentionPlan& plan) {
    using F = core::CpuFeatures;
    return Refusal({{&F::avx512f, "AVX-512F"},
                    {&F::avx512bw, "AVX-512BW"},
                    {&F::avx512dq, "AVX-512DQ"},
                    {&F::avx512vl, "AVX-512VL"},
                    {&F::fma, "FMA"},
                    {&F::f16c, "F16C"}},
                   plan);
}

std::optional<std::string> Avx2Refusal(const plan::AttentionPlan& plan) {
    using F = core::CpuFeatures;
    return Refusal({{&F::avx2, "AVX2"}, {&F::fma, "FMA"}, {&F::f16c, "F16C"}}, plan);
}

std::optional<std::string> ScalarRefusal(const plan::AttentionPlan& plan) {
    return CallRefusal(plan);
}

uint64_t AttentionWorkspaceBytes(const plan::AttentionPlan& plan, int threads) {
    return CallWorkspaceBytes(plan, threads, RowBlockWidth::kWide);
}

uint64_t AmxWorkspaceBytes(const plan::AttentionPlan& plan, int threads) {
    const auto perThread =
        static_cast<uint64_t>(amx::ThreadScratchBytes(plan.headDim, plan.headDimV, LongTasks(plan)));
    const auto order = static_cast<uint64_t>(amx::OrderScratchBytes(static_cast<int64_t>(plan.items.size())));
    return CallWorkspaceBytes(plan, threads, RowBlockWidth::kNarrow) +
           perThread * static_cast<uint64_t>(core::ResolveThreads(threads)) + order + 64;
}

// The AMX scratch follows the call's own workspace, 64-byte aligned: per thread, then the order of tasks.
void RunAmx(const plan::AttentionPlan& plan, int threads, void* workspace) {
    auto* amxScratch =
        static_cast<char*>(workspace) + CallWorkspaceBytes(plan, threads, RowBlockWidth::kNarrow);
    amxScratch += (64 - reinterpret_cast<uintptr_t>(amxScratch) % 64) % 64;
    amx::AmxOptions options;
    options.queriesAsStored = !plan.qPreScale.has_value();
    if (const auto* causal = std::get_if<plan::CausalMask>(&plan.mask)) {
        options.causal = true;
        options.maskedValue = static_cast<float>(causal->maskedValue);
        options.window = causal->window;
    }
    const int64_t perThread = amx::ThreadScratchBytes(plan.headDim, plan.headDimV, LongTasks(plan));
    char* orderScratch = amxScratch + perThread * core::ResolveThreads(threads);
    amx::RunAttention(Avx512Call(plan, threads, RowBlockWidth::kNarrow, workspace), amxScratch, orderScratch,
                      static_cast<int64_t>(plan.items.size()), options);
}

void RunAvx512(const plan::AttentionPlan& plan, int threads, void* workspace) {
    KernelCall call = Avx512Call(plan, threads, RowBlockWidth::kWide, workspace);
    if (call.bf16Dots) {
        call.columnItemLanes = kMinColumnItemLanes;
    } else if (call.key.dtype == ACL_FLOAT16 && call.value.dtype == ACL_FLOAT16) {
        call.columnItemLanes = kMinColumnItemLanes;
        call.columnLaneMultiple = kMinColumnItemLanes;
    }
    avx512::RunAttention(call);
}

void RunAvx2(const plan::AttentionPlan& plan, int threads, void* workspace) {
    KernelCall call = PrepareCall(plan, threads, RowBlockWidth::kWide, workspace);
    call.columnItemLanes = kMinColumnItemLanes;
    avx2::RunAttention(call);
}

void RunScalar(const plan::AttentionPlan& plan, int threads, void* workspace) {
    scalar::RunAttention(PrepareCall(plan, threads, RowBlockWidth::kWide, workspace));
}

}  // namespace atbx::kernels::cpu
