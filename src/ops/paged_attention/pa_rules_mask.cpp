// PagedAttention mask shapes (Setup, host values): each accepted layout of docs/spec/paged_attention.md 3.5
// with what it must cover, so that no mask element outside the tensor is ever read. What a call reads:
//   maxQ  = the longest query of the batches that run (1 when decoding), maxKv = their longest context,
//   T     = query.dims[0], B' = contextLens.dims[0] (batch * kvHeadNum under KV-head compression),
//   H     = headNum, B = B' / kvHeadNum under compression.
// ND masks (atlas-a2; SPEC also on atlas-inference):
//   NORM  [R, C]      R >= maxQ, C >= maxKv; square (R == C): row contextLens[b] - qSeqLen[b] + i, else row i
//         [N, R, C]   N == B' (or B under compression), C >= maxKv; R == 1 when decoding, R == C with SPEC
//                     (each batch's own square plane, DECISIONS 5); 4-D NORM is rejected (DECISIONS 5)
//   ALIBI [H, 1, C]   or [N, H, 1, C] with N == B' (or B under compression); C >= maxKv
//   SPEC  [R, C]      R >= T (row = the query row), C >= maxKv
// NZ masks (atlas-inference, atlas-training): [N, C/16, R, 16] with R >= 16 and C/16 * 16 >= maxKv:
//   NORM N in {1, B'}; ALIBI N in {H, B' * H} and R == 16; SPEC N == 1 and R >= T.
// A mask row narrower than a context (ATB's "alibi compress" [H, 1, 128]) would be read past its end and is
// rejected. MASK_FREE and NORM_COMPRESS masks have fixed shapes (pa_rules_shape_aux.cpp).
#include <algorithm>
#include <initializer_list>
#include <string>

#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

struct MaskView {
    const TensorDesc& desc;
    int64_t maxQ;
    int64_t maxKv;

    uint64_t Rank() const { return desc.shape.dimNum; }
    int64_t Dim(int d) const { return desc.shape.dims[d]; }
    int64_t Last() const { return desc.shape.dims[desc.shape.dimNum - 1]; }
    bool Nz() const { return desc.format == ACL_FORMAT_FRACTAL_NZ; }
    std::string Shape() const {
        return core::StrCat(FormatName(desc.format), ' ', ShapeToString(desc.shape));
    }
};

MaskView ViewOf(const S& s) {
    return {s.Desc(Input::kMask), MaxRunningQueryLen(s), MaxRunningContextLen(s)};
}

int64_t OriginalBatch(const S& s) {
    return s.Batch() / s.KvHeadNum();
}

// A leading batch dim: B', or B under compression.
bool BatchDimOk(const S& s, int64_t n) {
    return n == s.Batch() || (s.Compressed() && n == OriginalBatch(s));
}

std::string BatchDimText(const S& s) {
    if (!s.Compressed()) return core::StrCat(s.Batch());
    return core::StrCat(s.Batch(), " or ", OriginalBatch(s));
}

// These rules run again in every Execute (host values): a mask that passes builds no message, which
// would allocate.
Verdict CoversContext(const MaskView& m, int64_t columns) {
    if (columns >= m.maxKv) return Pass();
    return Fail("the mask must cover the longest context ", m.maxKv, " (its key columns are ", columns,
                "), got ", m.Shape());
}

// NZ [N, C/16, R, 16]: the tile layout, the key columns, and the allowed N (named by leadingText()).
template <class LeadingText>
Verdict NzLayout(const MaskView& m, std::initializer_list<int64_t> leading, LeadingText leadingText) {
    if (m.Rank() != 4 || m.Dim(3) != kNzTile || m.Dim(2) < kNzTile)
        return Fail("an NZ mask must be [N, C/16, R >= 16, 16], got ", m.Shape());
    if (std::find(leading.begin(), leading.end(), m.Dim(0)) == leading.end())
        return Fail("the NZ mask's dims[0] must be ", leadingText(), ", got ", m.Shape());
    return CoversContext(m, SatMul(m.Dim(1), kNzTile));
}

Verdict NormMask(const S& s) {
    if (s.param->maskType != Param::MASK_TYPE_NORM || !HostLengthsNonNegative(s)) return Pass();
    const MaskView m = ViewOf(s);
    if (m.Nz())
        return NzLayout(m, {1, s.Batch()}, [&] { return core::StrCat("1 or the batch ", s.Batch()); });
    switch (m.Rank()) {
        case 2:
            if (m.Dim(0) < m.maxQ)
                return Fail("a 2-D NORM mask needs a row per query token (", m.maxQ, "), got ", m.Shape());
            return CoversContext(m, m.Dim(1));
        case 3:
            if (!BatchDimOk(s, m.Dim(0)))
                return Fail("a 3-D NORM mask must be [batch, R, C] with batch ", BatchDimText(s), ", got ",
                            m.Shape());
            if (s.Spec() && m.Dim(1) != m.Dim(2)) {
                return Fail(
                    "with calcType SPEC a 3-D NORM mask is read as one square plane per batch [B, S, S], ",
                    "got ", m.Shape());
            }
            if (!s.Spec() && m.Dim(1) != 1)
                return Fail("when decoding a 3-D NORM mask must be [batch, 1, S], got ", m.Shape());
            return CoversContext(m, m.Dim(2));
        case 4:
            return Fail(
                "4-D NORM masks are not supported (ATB's stride logic has no 4-D NORM layout); use [B, 1, "
                "S], ",
                "[1, S] or [S, S], got ", m.Shape());
        default:
            return Fail("a NORM mask must be 2-D or 3-D, got ", m.Shape());
    }
}

Verdict AlibiMask(const S& s) {
    if (s.param->maskType != Param::MASK_TYPE_ALIBI || !HostLengthsNonNegative(s)) return Pass();
    const MaskView m = ViewOf(s);
    const int64_t heads = s.HeadNum();
    if (m.Nz()) {
        const int64_t planes = SatMul(s.Batch(), heads);
        if (auto v = NzLayout(m, {heads, planes}, [&] {
                return core::StrCat("headNum ", heads, " or batch * headNum ", planes);
            }))
            return v;
        if (m.Dim(2) == kNzTile) return Pass();
        return Fail("an NZ ALIBI mask has 16 rows per head: [N, C/16, 16, 16], got ", m.Shape());
    }
    switch (m.Rank()) {
        case 3:
            if (m.Dim(0) != heads || m.Dim(1) != 1)
                return Fail("a 3-D ALIBI mask must be [headNum ", heads, ", 1, S], got ", m.Shape());
            return CoversContext(m, m.Dim(2));
        case 4:
            if (!BatchDimOk(s, m.Dim(0)) || m.Dim(1) != heads || m.Dim(2) != 1) {
                return Fail("a 4-D ALIBI mask must be [batch ", BatchDimText(s), ", headNum ", heads,
                            ", 1, S], got ", m.Shape());
            }
            return CoversContext(m, m.Dim(3));
        default:
            return Fail("an ALIBI mask must be [headNum, 1, S] or [batch, headNum, 1, S], got ", m.Shape());
    }
}

Verdict SpecMask(const S& s) {
    if (!MaskSpecType(s) || !HostLengthsNonNegative(s)) return Pass();
    const MaskView m = ViewOf(s);
    const int64_t rows = s.Tokens();
    if (m.Nz()) {
        if (auto v = NzLayout(m, {1}, [] { return "1"; })) return v;
        if (m.Dim(2) >= rows) return Pass();
        return Fail("an NZ SPEC mask needs a row per query row (", rows, "), got ", m.Shape());
    }
    if (m.Rank() != 2) return Fail("a SPEC mask must be 2-D [query rows, S], got ", m.Shape());
    if (m.Dim(0) < rows) return Fail("a SPEC mask needs a row per query row (", rows, "), got ", m.Shape());
    return CoversContext(m, m.Last());
}

}  // namespace

std::vector<PaRule> MaskRules() {
    const auto dim = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                        std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, Stage::kHostValues, profiles, ERROR_INVALID_TENSOR_DIM, condition, source, check);
    };
    return {
        dim("pa.host.mask_norm_shape", kAtbProfiles,
            "NORM mask: ND [R >= maxQ, C] or [batch, 1 (SPEC: C), C]; NZ [1 or batch, C/16, R, 16]; C >= "
            "maxKv",
            "docs/spec/paged_attention.md 3.5 (CheckNdMask, CheckNzMask, GetMaskStride); DECISIONS 5",
            NormMask),
        dim("pa.host.mask_alibi_shape", kAtbProfiles,
            "ALIBI mask: ND [H, 1, C] or [batch, H, 1, C]; NZ [H or batch*H, C/16, 16, 16]; C >= maxKv",
            "docs/spec/paged_attention.md 3.5; seed: 'set maskType to MASK_TYPE_NORM or MASK_TYPE_ALIBI "
            "based on the "
            "configuration of the native model'",
            AlibiMask),
        dim("pa.host.mask_spec_shape", kA2AndInference,
            "SPEC mask: ND [R >= query rows, C]; NZ [1, C/16, R >= query rows, 16]; C >= maxKv",
            "docs/spec/paged_attention.md 3.5, 3.6 (LOOK_AHEAD mask [T, S])", SpecMask),
    };
}

}  // namespace atbx::ops::pa
