#include "kernels/cpu/cpu_paths.h"

#include <initializer_list>
#include <utility>

#include "core/cpu_features.h"
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

}  // namespace

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
    return CallWorkspaceBytes(plan, threads);
}

void RunAvx512(const plan::AttentionPlan& plan, int threads, void* workspace) {
    avx512::RunAttention(PrepareCall(plan, threads, workspace));
}

void RunAvx2(const plan::AttentionPlan& plan, int threads, void* workspace) {
    avx2::RunAttention(PrepareCall(plan, threads, workspace));
}

void RunScalar(const plan::AttentionPlan& plan, int threads, void* workspace) {
    scalar::RunAttention(PrepareCall(plan, threads, workspace));
}

}  // namespace atbx::kernels::cpu
