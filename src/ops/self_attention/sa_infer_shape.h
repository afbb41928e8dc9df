// SelfAttention output descriptor (docs/spec/self_attention.md 2: the "Output" line of each mode).
#ifndef ATBX_OPS_SELF_ATTENTION_SA_INFER_SHAPE_H
#define ATBX_OPS_SELF_ATTENTION_SA_INFER_SHAPE_H

#include <vector>

#include "ops/self_attention/sa_subject.h"

namespace atbx::ops::sa {

// V head size of the call: mlaVHeadSize, or the per-head size of value (PA_ENCODER, FA-cache, PREFIX_ENCODER)
// or of cacheV (bypass, BNSD). Valid once the shape rules passed.
int64_t ValueHeadSize(const SaSubject& subject);

std::vector<TensorDesc> InferOutputs(const SaSubject& subject);

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_INFER_SHAPE_H
