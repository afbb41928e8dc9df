// PagedAttention output descriptor (docs/spec/paged_attention.md 4.3 "InferShape output").
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_INFER_SHAPE_H
#define ATBX_OPS_PAGED_ATTENTION_PA_INFER_SHAPE_H

#include <vector>

#include "ops/paged_attention/pa_subject.h"

namespace atbx::ops::pa {

// attnOut: the query's desc; dtype outDataType under QKV quant; on atlas-a2 the last dim is the V head size.
std::vector<TensorDesc> InferOutputs(const PaSubject& subject);

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_INFER_SHAPE_H
