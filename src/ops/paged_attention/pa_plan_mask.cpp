// Masks (docs/spec/paged_attention.md 3.5, 3.6, 3.9; DECISIONS 5-8): every mask type and layout
// PagedAttention accepts, decoded to a MaskPolicy and the mask row each work item starts at. Masks are
// indexed by the original batch and head; dims only need to be at least the sizes read, so the row stride is
// the mask's last dim (ND) and a leading dim of size 1 is shared.
#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {
namespace {

using plan::CausalMask;
using plan::NoMask;
using plan::TensorMask;

// Strides of a mask tensor seen as [outer..., rows, columns]: `plane` elements per (batch or head) plane.
struct MaskGeometry {
    int64_t rowStride = 0;
    int64_t plane = 0;
    int columnTile = 0;
    int64_t columnTileStride = 0;
};

// ND [..., R, S]: row r, column j at r * S + j. FRACTAL_NZ [N, S/16, R, 16]: the [R, S] plane tiled into
// column blocks of 16, column j of row r at (j / 16) * R * 16 + r * 16 + j % 16.
MaskGeometry GeometryOf(const TensorDesc& desc) {
    const Dims& dims = desc.shape;
    const uint64_t rank = dims.dimNum;
    MaskGeometry g;
    if (desc.format == ACL_FORMAT_FRACTAL_NZ) {
        const int64_t rows = dims.dims[2];
        g.rowStride = 16;
        g.columnTile = 16;
        g.columnTileStride = rows * 16;
        g.plane = dims.dims[1] * rows * 16;
        return g;
    }
    const int64_t rows = rank >= 2 ? dims.dims[rank - 2] : 1;  // the rules ask for rank >= 2
    g.rowStride = rank >= 1 ? dims.dims[rank - 1] : 0;
    g.plane = rows * g.rowStride;
    return g;
}

int64_t Leading(const TensorDesc& desc, int d) {
    return desc.shape.dims[d];
}

// NZ masks of the Atlas inference/training kernels: NORM [B|1, S/16, R, 16] (batch b's plane, row 0 in
// decode), ALIBI [B*H|H, S/16, 16, 16] (plane b*H + h, or plane h), SPEC [1, S/16, T_pad, 16] (row cu_b + i).
void SetNzStrides(const PaSubject& s, const TensorDesc& desc, const MaskGeometry& g, TensorMask& mask) {
    const int64_t planes = Leading(desc, 0);
    switch (s.param->maskType) {
        case Param::MASK_TYPE_NORM:
            mask.batchStride = planes == 1 ? 0 : g.plane;
            break;
        case Param::MASK_TYPE_ALIBI:
            mask.headStride = g.plane;
            mask.batchStride = planes == s.HeadNum() ? 0 : s.HeadNum() * g.plane;
            break;
        default:
            break;  // SPEC: one plane, rows by query token
    }
}

// ND masks: NORM [X, S] (shared), [B, R, S]; ALIBI [H, R, S], [B, H, R, S]; SPEC [T, S]. A 4-D mask of any
// type is read as [B, H, R, S].
void SetNdStrides(const PaSubject& s, const TensorDesc& desc, const MaskGeometry& g, TensorMask& mask) {
    const uint64_t rank = desc.shape.dimNum;
    const auto shared = [](int64_t size, int64_t stride) { return size == 1 ? 0 : stride; };
    if (rank == 4) {
        mask.headStride = shared(Leading(desc, 1), g.plane);
        mask.batchStride = shared(Leading(desc, 0), Leading(desc, 1) * g.plane);
    } else if (rank == 3 && s.param->maskType == Param::MASK_TYPE_ALIBI) {
        mask.headStride = shared(Leading(desc, 0), g.plane);
    } else if (rank == 3) {
        mask.batchStride = shared(Leading(desc, 0), g.plane);
    }
}

MaskFirstRow FirstRowOf(const PaSubject& s, const TensorDesc& desc) {
    if (s.param->maskType == Param::MASK_TYPE_SPEC) return MaskFirstRow::kPackedRow;
    const bool square2d = desc.format != ACL_FORMAT_FRACTAL_NZ && desc.shape.dimNum == 2 &&
                          desc.shape.dims[0] == desc.shape.dims[1];
    if (s.param->maskType == Param::MASK_TYPE_NORM && square2d) return MaskFirstRow::kPrefix;
    return MaskFirstRow::kZero;
}

TensorMask TensorMaskFor(const PaSubject& s) {
    const TensorDesc& desc = s.Desc(Input::kMask);
    const MaskGeometry g = GeometryOf(desc);
    TensorMask mask;
    mask.data = s.Data(Input::kMask);
    mask.dtype = desc.dtype;
    mask.rowStride = g.rowStride;
    mask.columnTile = g.columnTile;
    mask.columnTileStride = g.columnTileStride;
    if (desc.format == ACL_FORMAT_FRACTAL_NZ) {
        SetNzStrides(s, desc, g, mask);
    } else {
        SetNdStrides(s, desc, g, mask);
    }
    // The MLA multi-token-prediction kernel reads a bf16 mask as 0/1 flags times -3e38 (DECISIONS 8).
    mask.flags = s.Mla() && s.Spec() && desc.dtype == ACL_BF16;
    return mask;
}

// MASK_FREE's 128x128 NZ tile and NORM_COMPRESS's 2048x2048 ND mask both stand for a causal mask; the value
// they hide keys with is read from row 0, column 1 (offset 1 in both layouts).
CausalMask CausalMaskFor(const PaSubject& s) {
    CausalMask mask;
    mask.maskedValue = plan::LoadElement(s.Data(Input::kMask), s.Desc(Input::kMask).dtype, 1);
    return mask;
}

}  // namespace

PaMask MaskFor(const PaSubject& s) {
    switch (s.param->maskType) {
        case Param::UNDEFINED:
            return {NoMask{}, MaskFirstRow::kZero};
        case Param::MASK_TYPE_MASK_FREE:
        case Param::MASK_TYPE_NORM_COMPRESS:
            return {CausalMaskFor(s), MaskFirstRow::kZero};
        default:
            return {TensorMaskFor(s), FirstRowOf(s, s.Desc(Input::kMask))};
    }
}

}  // namespace atbx::ops::pa
