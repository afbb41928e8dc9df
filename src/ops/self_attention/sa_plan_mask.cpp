// SelfAttention planner: the mask of every maskType and tensor form (docs/spec/self_attention.md 3.4-3.7,
// DECISIONS 12, 13, 16). Tensor masks are top-left aligned: query row i of a batch reads mask row i.
#include <limits>

#include "ops/self_attention/sa_plan_internal.h"

namespace atbx::ops::sa::planning {
namespace {

using plan::AlibiMask;
using plan::AlibiTileMask;
using plan::CausalMask;
using plan::TensorMask;

constexpr int kNzColumns = 16;
constexpr int64_t kCompressedTile = 128;

bool IsNz(const TensorDesc& desc) {
    return desc.format == ACL_FORMAT_FRACTAL_NZ;
}

// DECISIONS 12: NORM-style masks (NORM, NORM_COMPRESS, the sliding-window masks; none has a head dim) hold
// 0/1 flags multiplied by -3e38 for bf16 on any kernel, and for fp16 on the high-precision encoder kernels
// (PA_ENCODER, or FA-cache/bypass prefill without dynamic batch); otherwise they are additive. Integer masks
// (Atlas 350) are flags too: 1 hides the key.
bool FlagMask(const SaSubject& s) {
    const aclDataType dtype = s.Desc(Input::kMask).dtype;
    if (dtype == ACL_INT8 || dtype == ACL_UINT8 || dtype == ACL_BOOL) return true;
    if (s.platform != Platform::kAtlasA2) return false;
    if (dtype == ACL_BF16) return true;
    const Param& p = *s.param;
    if (p.kernelType != Param::KERNELTYPE_HIGH_PRECISION) return false;
    if (s.mode == Mode::kPaEncoder) return true;
    const bool flash = s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
    return flash && p.calcType != Param::DECODER && !p.batchRunStatusEnable;
}

// A mask read element by element. ND: [rows, cols], [X, rows, cols] or [B, H | 1, rows, cols]; FRACTAL_NZ
// [X, cols / 16, rows, 16]. X is 1 (shared), B (per batch), H (per head) or B * H; where B == H, an alibi
// mask is read per head and any other per batch, as ATB's kernels read 3-D masks. Flags apply only to masks
// without a head dim (DECISIONS 12).
TensorMask TensorMaskFor(const SaSubject& s, bool alibi, bool flags) {
    const TensorDesc& desc = s.Desc(Input::kMask);
    const int64_t* d = desc.shape.dims;
    const int rank = static_cast<int>(desc.shape.dimNum);
    TensorMask mask;
    mask.data = s.Data(Input::kMask);
    mask.dtype = desc.dtype;
    int64_t planes = 1;
    int64_t plane = 0;
    if (IsNz(desc)) {
        planes = d[0];
        plane = d[1] * d[2] * kNzColumns;
        mask.rowStride = kNzColumns;
        mask.columnTile = kNzColumns;
        mask.columnTileStride = d[2] * kNzColumns;
    } else if (rank == 4) {
        plane = d[2] * d[3];
        mask.rowStride = d[3];
        mask.batchStride = d[1] * plane;
        mask.headStride = d[1] == 1 ? 0 : plane;
    } else {
        planes = rank == 3 ? d[0] : 1;
        plane = d[rank - 2] * d[rank - 1];
        mask.rowStride = d[rank - 1];
    }
    const auto batches = static_cast<int64_t>(s.seqLen.size());
    const int64_t heads = s.HeadNum();
    if (planes > 1) {
        if (planes == heads && (alibi || planes != batches)) {
            mask.headStride = plane;
        } else if (planes == batches) {
            mask.batchStride = plane;
        } else {
            mask.batchStride = heads * plane;
            mask.headStride = plane;
        }
    }
    mask.flags = flags && mask.headStride == 0;
    return mask;
}

// A compressed causal tile (NORM_COMPRESS 128 x 128 or 2048 x 2048, SLIDING_WINDOW_COMPRESS 512 x 512, ND or
// FRACTAL_NZ) stands for the full causal (or sliding-window) mask; hidden keys take the tile's own masked
// value, element (0, 1), at offset 1 in every form.
CausalMask CausalFromTile(const SaSubject& s, int64_t window, bool flags) {
    const double value = plan::LoadElement(s.Data(Input::kMask), s.Desc(Input::kMask).dtype, 1);
    CausalMask mask;
    mask.maskedValue = flags ? value * TensorMask::kFlagScale : value;
    mask.window = window;
    return mask;
}

// MASK_TYPE_NORM with isTriuMask and a [128, 128] (or [B, 128, 128]) mask is the compressed causal tile too:
// ATB's kernels recognise it by its shape.
bool CompressedNorm(const SaSubject& s) {
    const TensorDesc& desc = s.Desc(Input::kMask);
    const int rank = static_cast<int>(desc.shape.dimNum);
    return s.param->isTriuMask == 1 && !IsNz(desc) && (rank == 2 || rank == 3) &&
           desc.shape.dims[rank - 1] == kCompressedTile && desc.shape.dims[rank - 2] == kCompressedTile;
}

// ALIBI_COMPRESS*: the [H, rows, 128] form (FRACTAL_NZ [H, 8, rows, 16]) holds the first 128 columns of the
// full mask; the [256, 256] form (FRACTAL_NZ [1, 16, 256, 16]) goes with slopes and is decoded to its
// formula.
plan::MaskPolicy CompressedAlibi(const SaSubject& s) {
    const TensorDesc& desc = s.Desc(Input::kMask);
    const int64_t* d = desc.shape.dims;
    const bool nz = IsNz(desc);
    const bool tileForm =
        nz ? d[1] * kNzColumns == kCompressedTile : desc.shape.dimNum == 3 && d[2] == kCompressedTile;
    if (tileForm) {
        AlibiTileMask mask;
        mask.data = s.Data(Input::kMask);
        mask.dtype = desc.dtype;
        const int64_t plane = nz ? d[1] * d[2] * kNzColumns : d[1] * d[2];
        mask.headStride = d[0] == 1 ? 0 : plane;
        mask.rowStride = nz ? kNzColumns : kCompressedTile;
        mask.columnTile = nz ? kNzColumns : 0;
        mask.columnTileStride = nz ? d[2] * kNzColumns : 0;
        return mask;
    }
    AlibiMask mask;
    mask.slopes = s.Data(Input::kSlopes);
    mask.slopeType = s.Desc(Input::kSlopes).dtype;
    switch (s.param->maskType) {
        case Param::MASK_TYPE_ALIBI_COMPRESS_SQRT:
            mask.form = AlibiMask::Form::kSqrtDistance;
            break;
        case Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN:
            mask.form = AlibiMask::Form::kColumn;
            break;
        default:
            mask.form = AlibiMask::Form::kDistance;
            break;
    }
    return mask;
}

}  // namespace

plan::MaskPolicy MaskPolicyFor(const SaSubject& s) {
    const Param& p = *s.param;
    switch (p.maskType) {
        case Param::MASK_TYPE_UNDEFINED:
            return plan::NoMask{};
        case Param::MASK_TYPE_NORM:
            if (CompressedNorm(s)) return CausalFromTile(s, 0, FlagMask(s));
            return TensorMaskFor(s, false, FlagMask(s));
        case Param::MASK_TYPE_ALIBI:
            return TensorMaskFor(s, true, false);
        case Param::MASK_TYPE_NORM_COMPRESS:
            return CausalFromTile(s, 0, FlagMask(s));
        case Param::MASK_TYPE_ALIBI_COMPRESS:
        case Param::MASK_TYPE_ALIBI_COMPRESS_SQRT:
        case Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN:
            return CompressedAlibi(s);
        case Param::MASK_TYPE_SLIDING_WINDOW_NORM:
            // DECODER takes no mask tensor: the window restricts the keys (sa_plan_batches.cpp).
            if (!s.Has(Input::kMask)) return plan::NoMask{};
            return TensorMaskFor(s, false, FlagMask(s));
        case Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS:
            return CausalFromTile(s, p.windowSize, FlagMask(s));
        case Param::MASK_TYPE_CAUSAL_MASK: {
            CausalMask mask;
            mask.maskedValue = -std::numeric_limits<double>::infinity();
            return mask;
        }
    }
    return plan::NoMask{};
}

}  // namespace atbx::ops::sa::planning
