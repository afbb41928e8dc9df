#include "ops/paged_attention/pa_infer_shape.h"

namespace atbx::ops::pa {

std::vector<TensorDesc> InferOutputs(const PaSubject& s) {
    TensorDesc out = s.Desc(Input::kQuery);
    out.format = ACL_FORMAT_ND;
    if (s.QkvQuant()) out.dtype = s.param->outDataType;
    if (s.platform == Platform::kAtlasA2) out.shape.dims[out.shape.dimNum - 1] = s.HeadSizeV();
    return {out};
}

}  // namespace atbx::ops::pa
