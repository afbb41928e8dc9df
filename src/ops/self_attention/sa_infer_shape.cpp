#include "ops/self_attention/sa_infer_shape.h"

namespace atbx::ops::sa {
namespace {

// Per-head size of a packed tensor: its last dim when it has a head dim (3-D or 4-D), else hidden / heads.
int64_t PerHead(const TensorDesc& desc, int64_t heads) {
    const int64_t last = desc.shape.dims[desc.shape.dimNum - 1];
    return desc.shape.dimNum == 2 ? last / heads : last;
}

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
    if (s.Mla()) return s.param->mlaVHeadSize;
    switch (s.mode) {
        case Mode::kPaEncoder:
        case Mode::kFaCache:
            return PerHead(s.Desc(Input::kValue), s.KvHeadNum());
        case Mode::kFaBypass:
            return s.Desc(Input::kCacheV).shape.dims[s.Rank(Input::kCacheV) - 1] / s.KvHeadNum();
        case Mode::kPrefixEncoder:
            return PerHead(s.Desc(Input::kValue), s.KvHeadNum());
    }
    return 0;
}

std::vector<TensorDesc> InferOutputs(const SaSubject& s) {
    const TensorDesc& query = s.Desc(Input::kQuery);
    TensorDesc out = query;
    out.format = ACL_FORMAT_ND;
    if (s.QkvQuant()) out.dtype = s.param->outDataType;
    if (s.mode == Mode::kPrefixEncoder || s.Bnsd()) return {out};
    const bool nzProduct = s.platform == Platform::kAtlasInference || s.platform == Platform::kAtlasTraining;
    if (nzProduct) {
        // The query's shape; a 4-D query comes back as [q0, q1, q2 * q3].
        if (query.shape.dimNum == 4) out.shape = AttentionOutputShape(query, 1, query.shape.dims[3]);
        return {out};
    }
    out.shape = AttentionOutputShape(query, s.HeadNum(), ValueHeadSize(s));
    return {out};
}

}  // namespace atbx::ops::sa
