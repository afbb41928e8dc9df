// ReshapeAndCache's operation spec: what OperationImpl and CallValidation need to know about the op.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_SPEC_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_SPEC_H

#include "ops/reshape_and_cache/rac_infer_shape.h"
#include "ops/reshape_and_cache/rac_plan.h"
#include "ops/reshape_and_cache/rac_rules.h"
#include "ops/reshape_and_cache/rac_subject.h"
#include "plan/cache_write.h"

namespace atbx::ops::rac {

struct ReshapeAndCacheSpec {
    using Param = rac::Param;
    using Subject = RacSubject;
    using Plan = plan::CacheWritePlan;
    static constexpr const char* kName = "ReshapeAndCacheOperation";
    // The plan lists the rows the slots select: Execute plans again with the slots it is given.
    static constexpr bool kPlanHoldsDeviceValues = true;

    static std::span<const RacRule> Rules() { return rac::Rules(); }
    static Subject MakeSubject(const Param& param, Platform platform) {
        return rac::MakeSubject(param, platform);
    }
    static std::vector<TensorDesc> InferOutputs(const Subject& s) { return rac::InferOutputs(s); }
    static void LoadHostValues(Subject& s) { rac::LoadHostValues(s); }
    static void LoadDeviceValues(Subject& s) { rac::LoadDeviceValues(s); }
    static Plan BuildPlan(const Subject& s) { return rac::BuildPlan(s); }
    static void RebuildPlan(const Subject& s, Plan* plan, int /*threads*/) { rac::RebuildPlan(s, plan); }
    static std::vector<int> OutputAliases(const Param& param) { return rac::OutputAliases(param); }
    static std::vector<int> InPlaceInputs(const Param&) { return {}; }
};

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_SPEC_H
