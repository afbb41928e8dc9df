// SelfAttention mask rules: the accepted mask layouts per mask type and platform
// (docs/spec/self_attention.md 3.4, 3.5, 5.3
// PAMaskDimCheck/PAMaskDimCheckNz/NormMaskDimCheck/SWAMaskDimCheck, the kernels' CheckNdMask/CheckNzMask),
// and that a mask covers every row and column the call reads. Whether values are additive or 0/1 flags is the
// planner's business (docs/spec/DECISIONS.md 12).
//
// Layouts (B batch, H headNum, R rows >= the query rows read, C columns >= the keys read):
//   NORM, SLIDING_WINDOW_NORM     ND [R, C], [B, R, C]; FRACTAL_NZ [1 or B, C/16, R, 16]
//   NORM with isTriuMask 1        compressed [128, 128] or [B, 128, 128] (NZ [1, 8, 128, 16])
//   NORM_COMPRESS                 [128, 128] ([B, 128, 128] in the FA modes; [2048, 2048] on atlas-350 and,
//   as
//                                 the long window, on atlas-inference);
//                                 FRACTAL_NZ [1, 8, 128, 16] or [1, 128, 2048, 16]
//   ALIBI                         ND [R, C], [H, R, C], [B, H, R, C]; FRACTAL_NZ [X, C/16, R, 16] with X one
//                                 of 1, B, H, B*H (X == B == H reads as the batch)
//   ALIBI_COMPRESS(_SQRT)         [256, 256] or [H, R, 128]; FRACTAL_NZ [1, 16, 256, 16] or [H, 8, R, 16]
//   ALIBI_COMPRESS_LEFT_ALIGN     [256, 256]
//   SLIDING_WINDOW_COMPRESS       [512, 512]; FRACTAL_NZ [1, 32, 512, 16]
// Sliding-window masks are 2-D on atlas-a2 and FRACTAL_NZ 4-D on atlas-inference.
#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

constexpr int64_t kTriuTile = 128;
constexpr int64_t kLongWindow = 2048;
constexpr int64_t kAlibiCompressSize = 256;
constexpr int64_t kSwaCompressSize = 512;

bool Flash(const S& s) {
    return s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
}

int64_t MaskBatch(const S& s) {
    return Flash(s) && s.Bnsd() ? s.Dim(Input::kQuery, 0) : BatchOf(s);
}

// isTriuMask as the kernels see it: atlas-inference forces it to 1 for NORM_COMPRESS.
bool TriuMask(const S& s) {
    return s.param->isTriuMask == 1 ||
           (s.platform == Platform::kAtlasInference && s.param->maskType == Param::MASK_TYPE_NORM_COMPRESS);
}

bool Is(const MaskShape& m, int64_t rows, int64_t cols) {
    return m.rows == rows && m.cols == cols;
}

// The "2048 long window" NORM_COMPRESS form of atlas-inference (docs/spec/self_attention.md 3.5): FRACTAL_NZ
// [1, 128, 2048, 16], or the ND [2048, 2048] the op converts to it (on atlas-350 ND [2048, 2048] is the
// ordinary compressed mask).
bool LongWindow(const S& s, const MaskShape& m) {
    if (m.nz) return m.lead[0] == 1 && Is(m, kLongWindow, kLongWindow);
    return s.platform != Platform::kAtlas350 && m.leadingDims == 0 && Is(m, kLongWindow, kLongWindow);
}

// The mask is in a compressed form: the kernels rebuild the mask from a tile, so it has no rows or columns
// to cover. A NORM_COMPRESS mask without isTriuMask is read as a plain mask of its shape.
bool Compressed(const S& s, const MaskShape& m) {
    const auto type = s.param->maskType;
    if (IsAlibiCompress(type) || type == Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS) return true;
    if (type != Param::MASK_TYPE_NORM && type != Param::MASK_TYPE_NORM_COMPRESS) return false;
    if (LongWindow(s, m)) return true;
    if (!TriuMask(s)) return false;
    return m.cols == kTriuTile || (s.platform == Platform::kAtlas350 && m.cols == kLongWindow);
}

std::string Shape(const S& s) {
    return ShapeToString(s.Desc(Input::kMask).shape);
}

Verdict BadLayout(const S& s, const char* expected) {
    return Fail("attentionMask of maskType ", static_cast<int>(s.param->maskType), " must be ", expected,
                ", got shape ", Shape(s), " (", FormatName(s.Desc(Input::kMask).format), ")");
}

// A leading dim of a per-batch (NORM) mask.
bool BatchLead(const S& s, const MaskShape& m) {
    return m.leadingDims == 0 || (m.leadingDims == 1 && (m.lead[0] == 1 || m.lead[0] == MaskBatch(s)));
}

Verdict NormLayout(const S& s, const MaskShape& m) {
    if (m.nz) {
        if (!BatchLead(s, m)) return BadLayout(s, "FRACTAL_NZ [1 or batch, C/16, R, 16]");
        if (Compressed(s, m) && !(m.lead[0] == 1 && m.rows == m.cols)) {
            return BadLayout(s, "FRACTAL_NZ [1, 8, 128, 16] when compressed (isTriuMask 1, 128 columns)");
        }
        return Pass();
    }
    if (m.leadingDims > 1) return BadLayout(s, "[R, C] or [batch, R, C] (4-D NORM masks are not supported)");
    if (m.leadingDims == 1 && m.lead[0] != MaskBatch(s)) return BadLayout(s, "[R, C] or [batch, R, C]");
    if (Compressed(s, m) && m.rows != m.cols) {
        return BadLayout(
            s,
            "a square tile [T, T] or [batch, T, T] when compressed (isTriuMask 1; T = 128, 2048 on "
            "atlas-350)");
    }
    return Pass();
}

Verdict NormCompressLayout(const S& s, const MaskShape& m) {
    if (m.nz) {
        const bool legacy = m.lead[0] == 1 && Is(m, kTriuTile, kTriuTile);
        if (legacy || LongWindow(s, m)) return Pass();
        return BadLayout(s, "FRACTAL_NZ [1, 8, 128, 16] or [1, 128, 2048, 16]");
    }
    if (LongWindow(s, m)) return Pass();
    const int64_t size = s.platform == Platform::kAtlas350 ? kLongWindow : kTriuTile;
    const bool batched = m.leadingDims == 1 && Flash(s) && m.lead[0] == MaskBatch(s);
    if ((m.leadingDims == 0 || batched) && Is(m, size, size)) return Pass();
    return Fail("attentionMask of maskType NORM_COMPRESS must be [", size, ", ", size, "]",
                Flash(s) ? " or [batch, 128, 128]" : "", ", got shape ", Shape(s));
}

Verdict AlibiLayout(const S& s, const MaskShape& m) {
    const int64_t b = MaskBatch(s);
    const int64_t h = s.HeadNum();
    if (m.nz) {
        const int64_t x = m.lead[0];
        if (x == 1 || x == b || x == h || x == SatMul(b, h)) return Pass();
        return BadLayout(s, "FRACTAL_NZ [X, C/16, R, 16] with X 1, batch, headNum or batch * headNum");
    }
    const bool ok = m.leadingDims == 0 || (m.leadingDims == 1 && m.lead[0] == h) ||
                    (m.leadingDims == 2 && m.lead[0] == b && m.lead[1] == h);
    return ok ? Pass() : BadLayout(s, "[R, C], [headNum, R, C] or [batch, headNum, R, C]");
}

Verdict AlibiCompressLayout(const S& s, const MaskShape& m) {
    const bool leftAlign = s.param->maskType == Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN;
    if (m.nz) {
        if (m.lead[0] == 1 && Is(m, kAlibiCompressSize, kAlibiCompressSize)) return Pass();
        if (m.lead[0] == s.HeadNum() && m.cols == kTriuTile) return Pass();
        return BadLayout(s, "FRACTAL_NZ [1, 16, 256, 16] or [headNum, 8, R, 16]");
    }
    if (m.leadingDims == 0 && Is(m, kAlibiCompressSize, kAlibiCompressSize)) return Pass();
    if (!leftAlign && m.leadingDims == 1 && m.lead[0] == s.HeadNum() && m.cols == kTriuTile) return Pass();
    return BadLayout(s, leftAlign ? "[256, 256]" : "[256, 256] or [headNum, R, 128]");
}

Verdict SwaLayout(const S& s, const MaskShape& m) {
    const bool compress = s.param->maskType == Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
    if (NzPlatform(s.platform)) {
        if (!m.nz) return BadLayout(s, "a FRACTAL_NZ 4-D mask on this platform");
        if (compress) {
            return m.lead[0] == 1 && Is(m, kSwaCompressSize, kSwaCompressSize)
                       ? Pass()
                       : BadLayout(s, "FRACTAL_NZ [1, 32, 512, 16]");
        }
        return BatchLead(s, m) ? Pass() : BadLayout(s, "FRACTAL_NZ [1 or batch, C/16, R, 16]");
    }
    if (m.leadingDims != 0) return BadLayout(s, "2-D");
    if (compress) return Is(m, kSwaCompressSize, kSwaCompressSize) ? Pass() : BadLayout(s, "[512, 512]");
    return Require(m.rows <= m.cols, "a sliding-window mask [R, C] needs R <= C, got shape ", Shape(s));
}

Verdict MaskLayout(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const MaskShape m = MaskShapeOf(s);
    if (m.nz && s.Dim(Input::kMask, 3) != 16) return BadLayout(s, "FRACTAL_NZ with a last dim of 16");
    const auto type = s.param->maskType;
    if (type == Param::MASK_TYPE_NORM) return NormLayout(s, m);
    if (type == Param::MASK_TYPE_NORM_COMPRESS) return NormCompressLayout(s, m);
    if (type == Param::MASK_TYPE_ALIBI) return AlibiLayout(s, m);
    if (IsAlibiCompress(type)) return AlibiCompressLayout(s, m);
    if (IsSwaMask(type)) return SwaLayout(s, m);
    return Pass();  // maskType range: sa.param.mask_type_range
}

Verdict AlibiCompressHighPrecision(const S& s) {
    if (!IsAlibiCompress(s.param->maskType) || !s.Has(Input::kMask)) return Pass();
    const bool fp16 = s.Desc(Input::kMask).dtype == ACL_FLOAT16;
    return Require(!fp16 || s.param->kernelType != Param::KERNELTYPE_DEFAULT,
                   "an alibi compress mask in float16 needs kernelType KERNELTYPE_HIGH_PRECISION (1), got ",
                   "KERNELTYPE_DEFAULT");
}

// Slopes scale the alibi compress masks, one per query head.
Verdict SlopesHeads(const S& s) {
    if (!s.Has(Input::kSlopes)) return Pass();
    return Require(s.Dim(Input::kSlopes, 0) == s.HeadNum(), "slopes must have headNum = ", s.HeadNum(),
                   " entries, got shape ", ShapeToString(s.Desc(Input::kSlopes).shape));
}

Verdict LongWindowMask(const S& s) {
    if (!s.Has(Input::kMask) || !LongWindow(s, MaskShapeOf(s))) return Pass();
    if (s.platform != Platform::kAtlasInference) {
        return Fail(
            "the 2048 long-window NORM_COMPRESS mask ([2048, 2048], FRACTAL_NZ [1, 128, 2048, 16]) needs "
            "atlas-inference, not ",
            PlatformName(s.platform));
    }
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR,
                   "the 2048 long-window NORM_COMPRESS mask needs scaleType SCALE_TYPE_TOR");
}

// Rows of the mask the call reads: row 0 per sequence in the decoder, else the query rows.
int64_t RowsRead(const S& s) {
    if (s.param->calcType == Param::DECODER) return 1;
    return MaxOf(QueryLens(s));
}

struct Needed {
    int64_t rows;
    int64_t cols;
};

// What a mask must hold; for FRACTAL_NZ masks rows and columns come in tiles of 16.
Needed NeededDims(const S& s, const MaskShape& m) {
    Needed need{RowsRead(s), MaxOf(KeyLens(s))};
    if (m.nz) need = {RoundUp16(need.rows), RoundUp16(need.cols)};
    return need;
}

Verdict MaskCoversLengths(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const MaskShape m = MaskShapeOf(s);
    const Needed need = NeededDims(s, m);
    const bool alibiRows = IsAlibiCompress(s.param->maskType) && m.cols == kTriuTile;  // [H, R, 128]
    if (alibiRows) {
        // Key j of a query at absolute position p reads row p - 128 * (j / 128): up to row p itself.
        // Positions run to the longest query, or to the last key in PREFIX_ENCODER (queries sit after the
        // prefix).
        const bool prefix = s.mode == Mode::kPrefixEncoder;
        const int64_t rows = m.nz ? RoundUp16(prefix ? MaxOf(KeyLens(s)) : need.rows)
                                  : (prefix ? MaxOf(KeyLens(s)) : need.rows);
        return Require(m.rows >= rows, "the alibi compress mask [headNum, R, 128] needs R >= ", rows,
                       prefix ? " (the furthest key position)" : " (the longest query)", ", got shape ",
                       Shape(s));
    }
    if (Compressed(s, m)) return Pass();
    return Require(m.rows >= need.rows && m.cols >= need.cols, "attentionMask must cover ", need.rows,
                   " rows and ", need.cols, " columns (the query rows and keys read), got shape ", Shape(s));
}

Verdict MaskActualMaxSeqLen(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const MaskShape m = MaskShapeOf(s);
    if (Compressed(s, m)) return Pass();
    const Needed need = NeededDims(s, m);
    return Require(m.rows <= need.rows && m.cols <= need.cols,
                   "atlas-inference masks are built with the actual ", "max_seq_len: ", need.rows,
                   " rows and ", need.cols, " columns, got shape ", Shape(s));
}

Verdict KvCoversQ(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const int64_t maxQ = MaxOf(QueryLens(s));
    const int64_t maxKv = MaxOf(KeyLens(s));
    return Require(maxKv >= maxQ,
                   "with a mask, the longest key length must be >= the longest query length, got ", maxKv,
                   " and ", maxQ);
}

}  // namespace

std::vector<SaRule> MaskRules() {
    return {
        MakeRule(
            "sa.mask.layout", Stage::kShape, kAllProfiles, ERROR_INVALID_TENSOR_DIM,
            "attentionMask has a layout its mask type accepts (see sa_rules_mask.cpp)",
            "docs/spec/self_attention.md 3.4, 3.5, 5.3 (PAMaskDimCheck, PAMaskDimCheckNz, NormMaskDimCheck, "
            "SWAMaskDimCheck; kernels CheckNdMask/CheckNzMask); seed: 'In the long sequence scenario, "
            "you can "
            "compress the mask.'",
            MaskLayout),
        MakeRule("sa.mask.alibi_compress_high_precision", Stage::kShape, kA2Only, ERROR_INVALID_PARAM,
                 "atlas-a2: a float16 alibi compress mask needs kernelType HIGH_PRECISION",
                 "docs/spec/self_attention.md 5.3 (PAMaskDimCheck)", AlibiCompressHighPrecision),
        MakeRule("sa.mask.slopes_heads", Stage::kShape, kAllProfiles, ERROR_INVALID_TENSOR_DIM,
                 "slopes has headNum entries", "docs/spec/self_attention.md 2.4, 5.3 (InferShapePADimCheck)",
                 SlopesHeads),
        MakeRule("sa.mask.long_window", Stage::kShape, kAllProfiles, ERROR_INVALID_PARAM,
                 "the 2048 long-window NORM_COMPRESS mask ([2048, 2048] or NZ [1, 128, 2048, 16]): "
                 "atlas-inference, "
                 "scaleType SCALE_TYPE_TOR",
                 "docs/spec/self_attention.md 3.5, 5.3 (NormMaskDimCheck)", LongWindowMask),
        MakeRule(
            "sa.mask.covers_lengths", Stage::kHostValues, kAllProfiles, ERROR_INVALID_TENSOR_DIM,
            "an uncompressed mask has at least the query rows read (1 in DECODER) and max key length "
            "columns (rounded up to 16 for FRACTAL_NZ); an [headNum, R, 128] alibi compress mask R >= the "
            "longest query",
            "docs/spec/self_attention.md 3.4 (kernel CheckNdMask/CheckNzMask: last dims cover maxQ and "
            "maxKv)",
            MaskCoversLengths),
        MakeRule("sa.mask.actual_max_seq_len", Stage::kHostValues, kInferenceOnly, ERROR_INVALID_TENSOR_DIM,
                 "atlas-inference: an uncompressed mask has exactly the rows and columns read (no larger)",
                 "seed: 'Atlas inference products: The mask size must be the actual value of max_seq_len.'",
                 MaskActualMaxSeqLen),
        MakeRule("sa.mask.kv_covers_q", Stage::kHostValues, kAllProfiles, ERROR_INVALID_PARAM,
                 "with a mask tensor: max key length >= max query length",
                 "docs/spec/self_attention.md 5.3 (kernel: maxKv >= maxQ for masked cases)", KvCoversQ),
    };
}

}  // namespace atbx::ops::sa
