// SelfAttention's operation spec: what OperationImpl and CallValidation need to know about the op.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_SPEC_H
#define ATBX_OPS_SELF_ATTENTION_SA_SPEC_H

#include "ops/self_attention/sa_infer_shape.h"
#include "ops/self_attention/sa_plan.h"
#include "ops/self_attention/sa_rules.h"
#include "ops/self_attention/sa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::sa {

struct SelfAttentionSpec {
    using Param = sa::Param;
    using Subject = SaSubject;
    using Plan = plan::AttentionPlan;
    static constexpr const char* kName = "SelfAttentionOperation";

    static std::span<const SaRule> Rules() { return sa::Rules(); }
    static Subject MakeSubject(const Param& param, Platform platform) {
        return sa::MakeSubject(param, platform);
    }
    static std::vector<TensorDesc> InferOutputs(const Subject& s) { return sa::InferOutputs(s); }
    static void LoadHostValues(Subject& s) { sa::LoadHostValues(s); }
    static Plan BuildPlan(const Subject& s) { return sa::BuildPlan(s); }
    // The mask's values decide its planned form: Execute plans it again from the values it is given.
    static constexpr bool kPlanHoldsDeviceValues = true;
    static void RebuildPlan(const Subject& s, Plan* plan, int threads) { sa::RebuildPlan(s, plan, threads); }
    static std::vector<int> OutputAliases(const Param&) { return {-1}; }
    // FA-cache: the op writes the new tokens into cacheK and cacheV (inputs 3 and 4).
    static std::vector<int> InPlaceInputs(const Param& param) {
        return ModeOf(param) == Mode::kFaCache ? std::vector<int>{3, 4} : std::vector<int>{};
    }
};

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_SPEC_H
