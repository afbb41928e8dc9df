#include "ops/self_attention/sa_infer_shape.h"

#include "ops/self_attention/sa_geometry.h"

namespace atbx::ops::sa {
namespace {

// The query's shape with its head dims replaced by heads * headDimV ([N, H*Dv] for 2-D queries, [b, s, H*Dv]
// for 4-D) or, for 3-D queries, [N, H, Dv].
Dims AttentionOutputShape(const TensorDesc& query, int64_t heads, int64_t headDimV) {
    Dims out = query.shape;
    switch (query.shape.dimNum) {
        case 2:
            out.dims[1] = heads * headDimV;
            break;
        case 3:
            out.dims[2] = headDimV;
            break;
        case 4:
            out.dimNum = 3;
            out.dims[2] = query.shape.dims[2] * headDimV;
            break;
        default:
            break;
    }
    return out;
}

}  // namespace

int64_t ValueHeadSize(const SaSubject& s) {
    return HeadSizesOf(s).v.value_or(0);
}

std::vector<TensorDesc> InferOutputs(const SaSubject& s) {
    const TensorDesc& query = s.Desc(Input::kQuery);
    TensorDesc out = query;
    out.format = ACL_FORMAT_ND;
    if (s.QkvQuant()) out.dtype = s.param->outDataType;
    if (s.mode == Mode::kPrefixEncoder || s.Bnsd()) return {out};
    if (NzPlatform(s.platform)) {
        // The query's shape; a 4-D query comes back as [q0, q1, q2 * q3].
        if (query.shape.dimNum == 4) out.shape = AttentionOutputShape(query, 1, query.shape.dims[3]);
        return {out};
    }
    out.shape = AttentionOutputShape(query, s.HeadNum(), ValueHeadSize(s));
    return {out};
}

}  // namespace atbx::ops::sa
