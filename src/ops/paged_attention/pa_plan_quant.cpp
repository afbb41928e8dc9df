// int8 QKV quantisation (docs/spec/paged_attention.md 3.8, DECISIONS 9): [H] descales per query head; P
// quantised to int8 per tile of 128 keys; ONLINE with sigma = exp(tile_max - m) / 127, OFFLINE with pScale
// (vDescale already folds in 1/pScale).
#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {

plan::QuantPolicy QuantPolicyFor(const PaSubject& s) {
    plan::QuantPolicy quant;
    if (!s.QkvQuant()) return quant;
    const bool offline = s.param->quantType == Param::TYPE_QUANT_QKV_OFFLINE;
    quant.mode = offline ? plan::QuantPolicy::Mode::kPagedOffline : plan::QuantPolicy::Mode::kPagedOnline;
    quant.kDescale = static_cast<const float*>(s.Data(Input::kKDescale));
    quant.vDescale = static_cast<const float*>(s.Data(Input::kVDescale));
    if (offline) quant.pScale = static_cast<const float*>(s.Data(Input::kPScale));
    return quant;
}

}  // namespace atbx::ops::pa
