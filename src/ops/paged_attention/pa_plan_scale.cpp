// Score scaling (docs/spec/paged_attention.md 3.1-3.3): qScale on q, qkScale (the "tor"), logN per original
// batch, and the razor offset added to the raw score before scaling.
#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {

std::optional<double> QueryPreScale(const PaSubject& s) {
    const float qScale = s.param->qScale;
    if (qScale == 0.0f || qScale == 1.0f) return std::nullopt;  // both mean "off" (DECISIONS 14)
    return qScale;
}

plan::ScalePolicy ScalePolicyFor(const PaSubject& s) {
    plan::ScalePolicy scale;
    scale.qkScale = s.param->qkScale;
    if (s.Has(Input::kLogN)) {
        // logN [B]: fp32 with ND caches, fp16 with NZ caches; item.logNIndex is the original batch.
        scale.logN = s.Data(Input::kLogN);
        scale.logNType = s.Desc(Input::kLogN).dtype;
    }
    if (s.Has(Input::kRazorOffset)) {
        // razorOffset [K.dims0, K.dims1] fp32: physical block, slot.
        scale.razorOffset = static_cast<const float*>(s.Data(Input::kRazorOffset));
        scale.razorBlockStride = s.Dim(Input::kRazorOffset, 1);
    }
    return scale;
}

}  // namespace atbx::ops::pa
