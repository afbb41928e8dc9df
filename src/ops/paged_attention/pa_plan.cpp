#include "ops/paged_attention/pa_plan.h"

#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {

// Query [T, H, D] and output [T, H, Dv] are ND on every profile; the parts decode everything else.
plan::AttentionPlan BuildPlan(const PaSubject& s) {
    const int64_t headDim = s.HeadSizeK();
    const int64_t headDimV = s.HeadSizeV();
    const int64_t heads = s.HeadNum();
    plan::AttentionPlan plan;
    plan.headDim = static_cast<int32_t>(headDim);
    plan.headDimV = static_cast<int32_t>(headDimV);
    plan.query = {s.Data(Input::kQuery), nullptr, s.Desc(Input::kQuery).dtype, heads * headDim, headDim};
    const Tensor& out = s.pack->outTensors[0];
    plan.output = {nullptr, out.deviceData, out.desc.dtype, heads * headDimV, headDimV};
    plan.outputElements = static_cast<int64_t>(ElementCount(out.desc));
    plan.qPreScale = QueryPreScale(s);
    plan.key = KeySource(s);
    plan.value = ValueSource(s);
    plan.scale = ScalePolicyFor(s);
    plan.quant = QuantPolicyFor(s);
    PaMask mask = MaskFor(s);
    plan.mask = mask.policy;
    plan.items = MakeItems(s, mask.firstRow);
    return plan;
}

void RebuildPlan(const PaSubject& s, plan::AttentionPlan* plan) {
    plan->mask = MaskFor(s).policy;
    plan::DecodeDequantisation(plan->key, s.KvHeadNum());
    plan::DecodeDequantisation(plan->value, s.KvHeadNum());
}

}  // namespace atbx::ops::pa
