// SelfAttention head-size rules: limits and equalities of the query, key and value head sizes
// (docs/spec/self_attention.md 5.3 HeadSizeDimCheck910B/MaxHeadSizeCheck910B, HeadSizeDimCheck310P, the BNSD
// and PREFIX_ENCODER checks; the seed's head-size sentence; docs/spec/DECISIONS.md 18).
#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

constexpr int64_t kMaxHeadSize = 576;         // docs/spec/DECISIONS.md 18
constexpr int64_t kRestrictedHeadSize = 256;  // quant, logN, BNSD, sliding window; atlas-inference/training
constexpr int64_t kAlibiCompressHeadSize = 128;
constexpr int64_t kPrefixHeadSize = 128;

// The seed's scenarios in which head_size == head_size_v <= 256: QKV quant (without MLA), logN, BNSD; ATB
// adds sliding-window attention unless K and V head sizes differ (the "MLA kernel").
bool Restricted(const S& s, const HeadSizes& sizes) {
    const bool mlaKernel = !s.Mla() && sizes.k != sizes.v;
    return (s.param->windowSize > 0 && !mlaKernel) || s.param->scaleType == Param::SCALE_TYPE_LOGN ||
           s.Bnsd() || (!s.Mla() && s.QkvQuant());
}

int64_t HeadSizeLimit(const S& s, const HeadSizes& sizes) {
    if (IsAlibiCompress(s.param->maskType)) return kAlibiCompressHeadSize;
    if (NzPlatform(s.platform) || Restricted(s, sizes)) return kRestrictedHeadSize;
    return kMaxHeadSize;
}

Verdict HeadSizeMax(const S& s) {
    if (s.mode == Mode::kPrefixEncoder) return Pass();  // sa.shape.prefix_head_size
    const HeadSizes sizes = HeadSizesOf(s);
    const int64_t limit = HeadSizeLimit(s, sizes);
    if (sizes.k && *sizes.k > limit) return Fail("key head size must be <= ", limit, " here, got ", *sizes.k);
    if (sizes.v && *sizes.v > limit)
        return Fail("value head size must be <= ", limit, " here, got ", *sizes.v);
    return Pass();
}

Verdict HeadSizeEqualWhenRestricted(const S& s) {
    const HeadSizes sizes = HeadSizesOf(s);
    if (!sizes.k || !sizes.v || !Restricted(s, sizes)) return Pass();
    return Require(*sizes.k == *sizes.v,
                   "with QKV quant, logN, TYPE_BNSD or a sliding window, the key and value ",
                   "head sizes must be equal, got ", *sizes.k, " and ", *sizes.v);
}

Verdict MlaVWithinK(const S& s) {
    if (!s.Mla()) return Pass();
    const Size k = HeadSizesOf(s).k;
    if (!k) return Pass();
    return Require(s.param->mlaVHeadSize <= *k, "mlaVHeadSize ", s.param->mlaVHeadSize,
                   " must be <= the key head size ", *k);
}

Verdict MultipleOf16Nz(const S& s) {
    const HeadSizes sizes = HeadSizesOf(s);
    if (sizes.k && *sizes.k % 16 != 0) return Fail("key head size must be a multiple of 16, got ", *sizes.k);
    if (sizes.v && *sizes.v % 16 != 0)
        return Fail("value head size must be a multiple of 16, got ", *sizes.v);
    return Pass();
}

Verdict NzKeyValueIdentical(const S& s) {
    if (s.Bnsd() || s.mode == Mode::kFaBypass) return Pass();  // sa.shape.cache_pair
    const Dims& k = s.Desc(Input::kKey).shape;
    const Dims& v = s.Desc(Input::kValue).shape;
    bool same = k.dimNum == v.dimNum;
    for (uint64_t d = 0; same && d < k.dimNum; ++d)
        same = k.dims[d] == v.dims[d];
    return Require(same, PlatformName(s.platform), " needs key and value of the same shape, got ",
                   ShapeToString(k), " and ", ShapeToString(v));
}

Verdict ValueHeadSize350(const S& s) {
    const HeadSizes sizes = HeadSizesOf(s);
    if (!sizes.k || !sizes.v || *sizes.k == *sizes.v) return Pass();
    return Require(*sizes.k == 192 && *sizes.v == 128,
                   "atlas-350 needs equal key and value head sizes, or 192 and ", "128, got ", *sizes.k,
                   " and ", *sizes.v);
}

Verdict PrefixHeadSize(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    const HeadSizes sizes = HeadSizesOf(s);
    const std::pair<const char*, Size> named[] = {{"query", sizes.q}, {"key", sizes.k}, {"value", sizes.v}};
    for (const auto& [name, size] : named) {
        if (!size) continue;
        if (*size > kPrefixHeadSize || *size % 16 != 0) {
            return Fail("PREFIX_ENCODER ", name, " head size must be <= 128 and a multiple of 16, got ",
                        *size);
        }
    }
    return Pass();
}

Verdict PrefixBlockTimesHeadSize(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    const Size k = HeadSizesOf(s).k;
    if (!k) return Pass();
    const int64_t blockSize = s.Dim(Input::kKey, 1);
    return Require(SatMul(blockSize, *k) <= 128 * 128,
                   "PREFIX_ENCODER needs block size * head size <= 16384, got ", blockSize, " * ", *k);
}

constexpr std::string_view kSeedHeadSize =
    "seed: 'In the following scenarios, head_size = head_size_v and the value ranges from 0 to 256. In other "
    "cases, head_size may not be equal to head_size_v, and the values range from 0 to 576. - Quantization - "
    "Use "
    "the logN scaling feature. - inputLayout: TYPE_BNSD'";

}  // namespace

std::vector<SaRule> HeadSizeRules() {
    const Stage sh = Stage::kShape;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        MakeRule(
            "sa.shape.head_size_max", sh, kAllProfiles, dim,
            "key and value head sizes <= 576; <= 256 with QKV quant (not MLA), logN, TYPE_BNSD, a sliding "
            "window (K and V head sizes equal) and on atlas-inference/training; <= 128 with alibi compress "
            "masks",
            "seed (head sizes 0 to 256 / 0 to 576); docs/spec/DECISIONS.md 18; docs/spec/self_attention.md "
            "5.3 "
            "(MaxHeadSizeCheck910B, HeadSizeDimCheck310P, BNSD headSize <= 256)",
            HeadSizeMax),
        MakeRule("sa.shape.head_size_equal", sh, kAllProfiles, dim,
                 "QKV quant (not MLA), logN, TYPE_BNSD, sliding window: key head size == value head size",
                 kSeedHeadSize, HeadSizeEqualWhenRestricted),
        MakeRule("sa.shape.mla_v_within_k", sh, kAllProfiles, dim, "MLA: mlaVHeadSize <= key head size",
                 "docs/spec/self_attention.md 5.3 (HeadSizeDimCheck910B)", MlaVWithinK),
        MakeRule("sa.shape.head_size_multiple_of_16_nz", sh, kNzProfiles, dim,
                 "atlas-inference and atlas-training: head sizes are multiples of 16",
                 "seed: 'Atlas inference products: head_size must be a multiple of 16.' and 'Atlas training "
                 "products: head_size must be a multiple of 16.'; docs/spec/self_attention.md 5.3 "
                 "(HeadSizeDimCheck310P)",
                 MultipleOf16Nz),
        MakeRule("sa.shape.nz_key_value_identical", sh, kNzProfiles, dim,
                 "atlas-inference and atlas-training: key and value have the same shape",
                 "docs/spec/self_attention.md 5.3 (HeadSizeDimCheck310P)", NzKeyValueIdentical),
        MakeRule("sa.shape.value_head_size_350", sh, k350Only, dim,
                 "atlas-350: value head size == key head size, or 192 and 128",
                 "docs/spec/self_attention.md 2.4, 5.3 (HeadSizeDimCheck910B on 950)", ValueHeadSize350),
        MakeRule("sa.shape.prefix_head_size", sh, kAllProfiles, dim,
                 "PREFIX_ENCODER: query, key and value head sizes <= 128 and multiples of 16",
                 "docs/spec/self_attention.md 5.3 (InferShapePrefixDimCheck910B)", PrefixHeadSize),
        MakeRule("sa.shape.prefix_block_times_head_size", sh, kAllProfiles, dim,
                 "PREFIX_ENCODER: block size * head size <= 128 * 128",
                 "docs/spec/self_attention.md 5.3 (InferShapePrefixDimCheck910B)", PrefixBlockTimesHeadSize),
    };
}

}  // namespace atbx::ops::sa
