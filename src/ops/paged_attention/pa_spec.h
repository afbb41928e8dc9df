// PagedAttention's operation spec: what OperationImpl and CallValidation need to know about the op.
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_SPEC_H
#define ATBX_OPS_PAGED_ATTENTION_PA_SPEC_H

#include "ops/paged_attention/pa_infer_shape.h"
#include "ops/paged_attention/pa_plan.h"
#include "ops/paged_attention/pa_rules.h"
#include "ops/paged_attention/pa_subject.h"

namespace atbx::ops::pa {

struct PagedAttentionSpec {
    using Param = pa::Param;
    using Subject = PaSubject;
    using Plan = plan::AttentionPlan;
    static constexpr const char* kName = "PagedAttentionOperation";

    static std::span<const PaRule> Rules() { return pa::Rules(); }
    static Subject MakeSubject(const Param& param, Platform platform) {
        return pa::MakeSubject(param, platform);
    }
    static std::vector<TensorDesc> InferOutputs(const Subject& s) { return pa::InferOutputs(s); }
    static void LoadHostValues(Subject& s) { pa::LoadHostValues(s); }
    static Plan BuildPlan(const Subject& s) { return pa::BuildPlan(s); }
    // The plan holds values of device tensors: Execute reads them again from the tensors it is given.
    static constexpr bool kPlanHoldsDeviceValues = true;
    static void RebuildPlan(const Subject& s, Plan* plan, int /*threads*/) { pa::RebuildPlan(s, plan); }
    static std::vector<int> OutputAliases(const Param&) { return {-1}; }
    static std::vector<int> InPlaceInputs(const Param&) { return {}; }
};

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_SPEC_H
