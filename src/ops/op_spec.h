// SpecOf<Param>: the operation spec of a param struct (PagedAttentionSpec for PagedAttentionParam ...), for
// code that handles every op alike (CreateOperation, the case runner). An op's spec provides:
//   Param, Subject, Plan, kName, Rules(), MakeSubject(), InferOutputs(), LoadHostValues(), BuildPlan(),
//   OutputAliases(param): per ATB output, the input it aliases (updated in place), or -1,
//   InPlaceInputs(param): inputs updated in place that are not ATB outputs (case files list them after
//   those); optionally kPlanHoldsDeviceValues (true: Execute rebuilds the plan from the device values it is
//   given, by RebuildPlan(subject, plan, threads), on the call's threads and allocating nothing).
#ifndef ATBX_OPS_OP_SPEC_H
#define ATBX_OPS_OP_SPEC_H

#include "ops/paged_attention/pa_spec.h"
#include "ops/reshape_and_cache/rac_spec.h"
#include "ops/self_attention/sa_spec.h"

namespace atbx::ops {

template <class Param>
struct SpecOf;

template <>
struct SpecOf<infer::PagedAttentionParam> {
    using type = pa::PagedAttentionSpec;
};

template <>
struct SpecOf<infer::SelfAttentionParam> {
    using type = sa::SelfAttentionSpec;
};

template <>
struct SpecOf<infer::ReshapeAndCacheParam> {
    using type = rac::ReshapeAndCacheSpec;
};

template <class Param>
concept HasSpec = requires {
    typename SpecOf<Param>::type;
};

// A spec whose operation can execute (it has a planner); validation needs less.
template <class Spec>
concept Executable = requires(const typename Spec::Subject& s) {
    Spec::BuildPlan(s);
};

}  // namespace atbx::ops

#endif  // ATBX_OPS_OP_SPEC_H
