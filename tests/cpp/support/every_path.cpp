#include "support/every_path.h"

#include <algorithm>
#include <cmath>

#include "core/str_cat.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "plan/element.h"
#include "support/cpu_paths.h"
#include "support/run_call.h"
#include "verify/precision.h"

namespace atbx::test {
namespace {

using core::StrCat;

// Head size and longest key range of an attention call, from its plan: what the precision epsilon depends on.
struct Extent {
    int64_t headDim = 1;
    int64_t maxKvLen = 1;
};

Extent AttentionExtent(const TestCall& call) {
    return std::visit(
        [&](const auto& param) {
            using Spec = typename ops::SpecOf<std::decay_t<decltype(param)>>::type;
            Extent extent;
            if constexpr (std::is_same_v<typename Spec::Plan, plan::AttentionPlan>) {
                TestCall copy = call;
                const VariantPack pack = copy.Pack();
                ops::CallValidation<Spec> validation(param, call.platform);
                validation.SetPack(pack);
                if (!validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues).empty()) return extent;
                const plan::AttentionPlan plan = Spec::BuildPlan(validation.subject());
                extent.headDim = std::max(1, plan.headDim);
                for (const plan::WorkItem& item : plan.items)
                    extent.maxKvLen = std::max<int64_t>(extent.maxKvLen, item.kvEnd - item.kvBegin);
            }
            return extent;
        },
        call.param);
}

bool IsAttention(const TestCall& call) {
    return !std::holds_alternative<infer::ReshapeAndCacheParam>(call.param);
}

std::vector<std::vector<uint8_t>> Written(const TestCall& call) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const io::HostTensor& t : call.outputs)
        bytes.push_back(t.bytes);
    for (const io::HostTensor& t : call.inputs)
        bytes.push_back(t.bytes);
    return bytes;
}

// The reference backend must write the exact result rounded to the output dtype wherever it writes.
std::string ReferenceBackendFailure(const TestCall& call, const std::vector<double>& reference) {
    const io::HostTensor& out = call.outputs.at(0);
    for (size_t i = 0; i < reference.size(); ++i) {
        if (std::isnan(reference[i])) continue;
        const double written = plan::LoadElement(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(i));
        const double expected = plan::RoundToDtype(reference[i], out.desc.dtype);
        if (written != expected && !(std::isnan(written) && std::isnan(expected))) {
            return StrCat("reference backend wrote ", written, " at element ", i, ", the reference is ",
                          reference[i]);
        }
    }
    return {};
}

}  // namespace

PathReport CheckEveryPath(const TestCall& call, int threads, int otherThreads) {
    PathReport report;
    TestCall onReference = call;
    const RunResult ref = Execute(onReference, Backend::kReference, threads);
    if (!ref.status.ok()) {
        report.failure = "reference: " + ref.status.ToString();
        return report;
    }
    std::vector<double> reference;
    double epsilon = 0.0;
    if (IsAttention(call)) {
        // The reference result reads the call as the reference backend left it (caches written in the op).
        reference = ReferenceResult(onReference);
        report.failure = ReferenceBackendFailure(onReference, reference);
        if (!report.failure.empty()) return report;
        const Extent extent = AttentionExtent(call);
        epsilon = verify::PrecisionEpsilon(call.outputs.at(0).desc.dtype, extent.headDim, extent.maxKvLen);
    }
    for (const std::string& path : CpuPaths(call)) {
        const ScopedCpuPath forced(path);
        TestCall onPath = call;
        const RunResult cpu = Execute(onPath, Backend::kCpu, threads);
        if (!cpu.status.ok()) {
            if (cpu.status.rule() == "dispatch.cpu.unsupported") {
                report.refused.push_back(path);
                continue;
            }
            report.failure = StrCat(path, ": ", cpu.status.ToString());
            return report;
        }
        report.ran.push_back(path);
        if (IsAttention(call)) {
            const io::HostTensor& out = onPath.outputs.at(0);
            const verify::PrecisionReport precision =
                verify::CheckPrecision(out.bytes.data(), out.desc.dtype, reference, epsilon);
            if (!precision.pass) {
                report.failure = StrCat(cpu.kernel, ": ", precision.Summary());
                return report;
            }
        } else if (Written(onPath) != Written(onReference)) {
            report.failure = StrCat(cpu.kernel, " writes other bytes than the reference");
            return report;
        }
        if (otherThreads > 0 && otherThreads != threads) {
            TestCall onOtherThreads = call;
            const RunResult other = Execute(onOtherThreads, Backend::kCpu, otherThreads);
            if (!other.status.ok() || Written(onOtherThreads) != Written(onPath)) {
                report.failure =
                    StrCat(cpu.kernel, " on ", otherThreads, " threads writes other bytes than on ", threads,
                           " (", other.status.ToString(), ")");
                return report;
            }
        }
    }
    return report;
}

}  // namespace atbx::test
