#include "support/run_call.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "atbx/operation.h"
#include "core/str_cat.h"
#include "dispatch/kernel_registry.h"
#include "kernels/ref/attention_ref.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "plan/element.h"
#include "verify/precision.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

// Every byte of the workspaces the tests hand to Execute: a NaN in every float, so that a kernel reading
// scratch it has not written spoils its result (the operation's own workspace, without one, is zeroed).
constexpr uint8_t kWorkspaceFill = 0xFF;

void PoisonOutputs(TestCall& call) {
    for (io::HostTensor& out : call.outputs)
        verify::FillPoison(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(ElementCount(out.desc)));
}

}  // namespace

RunResult Execute(TestCall& call, Backend backend, int threads, const char* cpuPath) {
    PoisonOutputs(call);
    return std::visit(
        [&](const auto& param) {
            RunResult result;
            using Spec = typename ops::SpecOf<std::decay_t<decltype(param)>>::type;
            if constexpr (ops::Executable<Spec>) {
                Operation* raw = nullptr;
                result.status = CreateOperation(param, &raw, call.platform);
                std::unique_ptr<Operation> op(raw);
                if (!result.status.ok()) return result;
                Context context{call.platform, threads, backend, cpuPath};
                const VariantPack pack = call.Pack();
                uint64_t workspaceSize = 0;
                result.status = op->Setup(pack, workspaceSize, &context);
                std::vector<uint8_t> workspace(result.status.ok() ? workspaceSize : 0, kWorkspaceFill);
                if (result.status.ok())
                    result.status = op->Execute(pack, workspace.data(), workspaceSize, &context);
                result.kernel = op->KernelName();
            } else {
                ADD_FAILURE() << Spec::kName << " cannot execute yet";
            }
            return result;
        },
        call.param);
}

Status ExecuteTwiceOnOneWorkspace(TestCall& call, const char* path,
                                  const std::function<void(TestCall&)>& change) {
    return std::visit(
        [&](const auto& param) {
            Operation* raw = nullptr;
            Status status = CreateOperation(param, &raw, call.platform);
            const std::unique_ptr<Operation> op(raw);
            Context context{call.platform, 2, Backend::kCpu, path};
            const VariantPack pack = call.Pack();
            std::vector<uint8_t> workspace;
            for (int run = 0; run < 2 && status.ok(); ++run) {
                if (run == 1) change(call);
                PoisonOutputs(call);
                uint64_t workspaceSize = 0;
                status = op->Setup(pack, workspaceSize, &context);
                if (!status.ok()) break;
                if (run == 0) workspace.assign(workspaceSize, kWorkspaceFill);
                EXPECT_EQ(workspace.size(), workspaceSize);
                status = op->Execute(pack, workspace.data(), workspaceSize, &context);
            }
            return status;
        },
        call.param);
}

std::vector<std::string> CpuPaths() {
    std::vector<std::string> paths;
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        if (kernel.backend == Backend::kCpu) paths.emplace_back(kernel.name);
    }
    return paths;
}

std::string MissingCpuFeature(const std::string& path) {
    // A plan with no work: the only reason to refuse it is the CPU.
    const plan::AttentionPlan empty;
    for (const dispatch::AttentionKernel& kernel : dispatch::AttentionKernels()) {
        if (kernel.name != path) continue;
        const std::optional<std::string> refusal = kernel.refusal(empty);
        return refusal && refusal->starts_with("this CPU lacks") ? *refusal : std::string();
    }
    return "no such path";
}

std::vector<double> ReferenceResult(TestCall& call) {
    return std::visit(
        [&](const auto& param) -> std::vector<double> {
            using Spec = typename ops::SpecOf<std::decay_t<decltype(param)>>::type;
            if constexpr (std::is_same_v<typename Spec::Plan, plan::AttentionPlan> && ops::Executable<Spec>) {
                const VariantPack pack = call.Pack();
                ops::CallValidation<Spec> validation(param, call.platform);
                validation.SetPack(pack);
                const auto violations = validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues);
                if (!violations.empty()) {
                    ADD_FAILURE() << "invalid call: " << violations.front().ToStatus().ToString();
                    return {};
                }
                return kernels::ref::ComputeAttention(Spec::BuildPlan(validation.subject()), 2);
            } else {
                ADD_FAILURE() << "not an executable attention op";
                return {};
            }
        },
        call.param);
}

std::string PrecisionFailure(TestCall& call, const std::vector<double>& reference, int64_t headDim,
                             int64_t maxKvLen) {
    const io::HostTensor& out = call.outputs.at(0);
    const double eps = verify::PrecisionEpsilon(out.desc.dtype, headDim, maxKvLen);
    const verify::PrecisionReport report =
        verify::CheckPrecision(out.bytes.data(), out.desc.dtype, reference, eps);
    return report.pass && report.checked > 0 ? std::string() : report.Summary();
}

std::string OutputClasses(const TestCall& call) {
    const io::HostTensor& out = call.outputs[0];
    std::string classes;
    for (int64_t i = 0; i < ElementCount(out); ++i) {
        const double v = plan::LoadElement(out.bytes.data(), out.desc.dtype, i);
        classes += std::isnan(v) ? 'n' : (std::isinf(v) ? 'i' : 'f');
    }
    return classes;
}

std::string RowClasses(const TestCall& call, int64_t width) {
    const io::HostTensor& out = call.outputs[0];
    std::string classes;
    for (int64_t row = 0; row < ElementCount(out) / width; ++row) {
        bool allNaN = true, allFinite = true;
        for (int64_t c = 0; c < width; ++c) {
            const double v = plan::LoadElement(out.bytes.data(), out.desc.dtype, row * width + c);
            allNaN = allNaN && std::isnan(v);
            allFinite = allFinite && std::isfinite(v);
        }
        classes += allNaN ? 'n' : (allFinite ? 'f' : '?');
    }
    return classes;
}

std::string RunOnEveryBackend(TestCall& call) {
    // The reference runs first: a call with the KV cache in the op writes its caches, which the reference
    // result below then reads.
    const RunResult ref = Execute(call, Backend::kReference);
    if (!ref.status.ok()) return "reference: " + ref.status.ToString();
    const std::vector<double> reference = ReferenceResult(call);
    const io::HostTensor& out = call.outputs.at(0);
    for (size_t i = 0; i < reference.size(); ++i) {
        if (std::isnan(reference[i])) continue;
        const double written = plan::LoadElement(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(i));
        if (written != plan::RoundToDtype(reference[i], out.desc.dtype)) {
            return core::StrCat("reference backend wrote ", written, " at element ", i, ", the reference is ",
                                reference[i]);
        }
    }
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        const RunResult cpu = Execute(call, Backend::kCpu, 2, path.c_str());
        if (!cpu.status.ok()) return path + ": " + cpu.status.ToString();
        if (cpu.kernel != path) return core::StrCat("forcing ", path, " ran ", cpu.kernel);
        const std::string failure = PrecisionFailure(call, reference, 1, int64_t{1} << 20);
        if (!failure.empty()) return core::StrCat(cpu.kernel, ": ", failure);
    }
    return {};
}

void ExpectIdenticalBitsOnOneTwoAndThreeThreads(TestCall& call, const char* path) {
    std::vector<uint8_t> first;
    for (int threads : {1, 2, 3}) {
        const RunResult run = Execute(call, Backend::kCpu, threads, path);
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        if (first.empty()) {
            first = call.outputs[0].bytes;
        } else {
            EXPECT_EQ(call.outputs[0].bytes, first) << threads << " threads";
        }
    }
}

}  // namespace atbx::test
