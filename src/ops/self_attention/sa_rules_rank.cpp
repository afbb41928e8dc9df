// SelfAttention rank rules: the number of dims of every input per mode (docs/spec/self_attention.md 2, 5.3;
// the seed's first two sentences). Later stages index only the dims these rules vouch for. Status codes
// follow ATB: ERROR_INVALID_TENSOR_SIZE for the PA_ENCODER and PA-mask checks, ERROR_INVALID_TENSOR_DIM_NUM
// elsewhere, ERROR_INVALID_TENSOR_DIM where ATB reports a rank through its dim checks.
#include <array>
#include <initializer_list>
#include <span>

#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

bool Flash(const S& s) {
    return s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
}
bool PaBsnd(const S& s) {
    return s.mode == Mode::kPaEncoder && !s.Bnsd();
}
bool PaBnsd(const S& s) {
    return s.mode == Mode::kPaEncoder && s.Bnsd();
}

using Ranks = std::span<const uint64_t>;

bool OneOf(uint64_t rank, Ranks allowed) {
    for (uint64_t r : allowed) {
        if (r == rank) return true;
    }
    return false;
}

std::string RankList(Ranks allowed) {
    std::string text;
    for (uint64_t r : allowed) {
        if (!text.empty()) text += " or ";
        text += std::to_string(r);
    }
    return text;
}

Verdict NeedRank(const S& s, Input input, Ranks allowed) {
    if (!s.Has(input)) return Pass();
    return Require(OneOf(s.Rank(input), allowed), InputName(input), " must have ", RankList(allowed),
                   " dims, got shape ", ShapeToString(s.Desc(input).shape));
}
Verdict NeedRank(const S& s, Input input, std::initializer_list<uint64_t> allowed) {
    return NeedRank(s, input, Ranks(allowed.begin(), allowed.size()));
}
bool OneOf(uint64_t rank, std::initializer_list<uint64_t> allowed) {
    return OneOf(rank, Ranks(allowed.begin(), allowed.size()));
}

constexpr std::array<uint64_t, 1> kRank4 = {4};
constexpr std::array<uint64_t, 2> kRank2Or3 = {2, 3};
constexpr std::array<uint64_t, 1> kRank2 = {2};
constexpr std::array<uint64_t, 3> kRank2To4 = {2, 3, 4};

Verdict QueryRank(const S& s) {
    if (s.mode == Mode::kPrefixEncoder) return NeedRank(s, Input::kQuery, {2, 3});
    if (!Flash(s)) return Pass();  // PA_ENCODER: sa.rank.pa_encoder_query, sa.rank.pa_bnsd
    if (s.Bnsd()) return NeedRank(s, Input::kQuery, {4});
    return NeedRank(s, Input::kQuery, {2, 4});
}

Verdict FlashKeyValueRank(const S& s) {
    if (s.mode != Mode::kFaCache) return Pass();
    if (auto v = NeedRank(s, Input::kKey, {2, 4})) return v;
    return NeedRank(s, Input::kValue, {2, 4});
}

Verdict FlashSameRank(const S& s) {
    if (s.mode != Mode::kFaCache) return Pass();
    const uint64_t q = s.Rank(Input::kQuery);
    const uint64_t k = s.Rank(Input::kKey);
    const uint64_t v = s.Rank(Input::kValue);
    const bool known = OneOf(q, {2, 4}) && OneOf(k, {2, 4}) && OneOf(v, {2, 4});
    if (!known) return Pass();  // sa.rank.query, sa.rank.fa_key_value
    return Require(q == k && k == v, "query, key and value must have the same number of dims, got ",
                   ShapeToString(s.Desc(Input::kQuery).shape), ", ", ShapeToString(s.Desc(Input::kKey).shape),
                   ", ", ShapeToString(s.Desc(Input::kValue).shape));
}

uint64_t FlashCacheRank(const S& s) {
    if (s.Bnsd() || NzPlatform(s.platform)) return 5;
    return s.param->batchRunStatusEnable ? 3 : 4;
}

Verdict FlashCacheRanks(const S& s) {
    if (!Flash(s)) return Pass();
    const uint64_t want = FlashCacheRank(s);
    for (Input cache : {Input::kCacheK, Input::kCacheV}) {
        if (auto v = NeedRank(s, cache, {want})) return v;
    }
    return Pass();
}

Verdict FlashLengthRanks(const S& s) {
    if (!Flash(s)) return Pass();
    for (Input input : {Input::kTokenOffset, Input::kSeqLen, Input::kLayerId, Input::kBatchRunStatus}) {
        if (auto v = NeedRank(s, input, {1})) return v;
    }
    return Pass();
}

// PA_ENCODER BSND query: 2-D or 3-D (seed; atlas-350 has its own rule, and the NZ runners of
// atlas-inference and atlas-training take 3-D only: sa.host.nz_encoder_qkv_3d).
Verdict PaQueryRank(const S& s) {
    if (!PaBsnd(s)) return Pass();
    return NeedRank(s, Input::kQuery, kRank2Or3);
}

Verdict PaSameRank(const S& s) {
    if (!PaBsnd(s) || !OneOf(s.Rank(Input::kQuery), kRank2Or3)) return Pass();
    const uint64_t q = s.Rank(Input::kQuery);
    for (Input input : {Input::kKey, Input::kValue}) {
        if (!s.Has(input)) continue;
        if (s.Rank(input) != q) {
            return Fail("query, key and value must have the same number of dims, got query ",
                        ShapeToString(s.Desc(Input::kQuery).shape), " and ", InputName(input), ' ',
                        ShapeToString(s.Desc(input).shape));
        }
    }
    return Pass();
}

Verdict Pa350Ranks(const S& s) {
    if (!PaBsnd(s)) return Pass();
    for (Input input : {Input::kQuery, Input::kKey, Input::kValue}) {
        if (auto v = NeedRank(s, input, {3})) return v;
    }
    return Pass();
}

Verdict PaSeqLenRank(const S& s) {
    if (s.mode != Mode::kPaEncoder) return Pass();
    return NeedRank(s, Input::kSeqLen, {1, 2});
}

Verdict PaSlopesRank(const S& s) {
    if (s.mode != Mode::kPaEncoder) return Pass();
    return NeedRank(s, Input::kSlopes, {1});
}

Verdict PaBnsdRanks(const S& s) {
    if (!PaBnsd(s)) return Pass();
    if (auto v = NeedRank(s, Input::kQuery, {4})) return v;
    return NeedRank(s, Input::kKey, {4});
}

Verdict PaBnsdValueMatchesKey(const S& s) {
    if (!PaBnsd(s) || s.Rank(Input::kKey) != 4) return Pass();
    const Dims& k = s.Desc(Input::kKey).shape;
    const Dims& v = s.Desc(Input::kValue).shape;
    bool same = k.dimNum == v.dimNum;
    for (uint64_t d = 0; same && d < k.dimNum; ++d)
        same = k.dims[d] == v.dims[d];
    return Require(same, "with TYPE_BNSD, value must have key's shape ", ShapeToString(k), ", got ",
                   ShapeToString(v));
}

Verdict PrefixRanks(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    if (auto v = NeedRank(s, Input::kKey, {3, 4})) return v;
    if (auto v = NeedRank(s, Input::kValue, {s.Rank(Input::kKey)})) return v;
    if (auto v = NeedRank(s, Input::kBlockTables, {2})) return v;
    if (auto v = NeedRank(s, Input::kSeqLen, {1})) return v;
    if (auto v = NeedRank(s, Input::kKvSeqLen, {1})) return v;
    return NeedRank(s, Input::kSlopes, {1});
}

// Mask ranks of the PA, PREFIX and BSND FA modes (ATB's PAMaskDimCheck, PAMaskDimCheckNz, NormMaskDimCheck,
// InferShapeMaskDimNumCheck; the kernels take at most 4 dims).
Ranks MaskRanks(const S& s) {
    const auto m = s.param->maskType;
    if (s.Desc(Input::kMask).format == ACL_FORMAT_FRACTAL_NZ) return kRank4;
    if (IsAlibiCompress(m)) return NzPlatform(s.platform) ? Ranks(kRank4) : Ranks(kRank2Or3);
    if (m == Param::MASK_TYPE_NORM_COMPRESS && !Flash(s)) return kRank2;
    return kRank2To4;
}

Verdict MaskRank(const S& s) {
    if (!s.Has(Input::kMask) || (Flash(s) && s.Bnsd())) return Pass();
    return NeedRank(s, Input::kMask, MaskRanks(s));
}

Verdict BnsdMaskRank(const S& s) {
    if (!s.Has(Input::kMask) || !Flash(s) || !s.Bnsd()) return Pass();
    return NeedRank(s, Input::kMask, {2, 3, 4});
}

Verdict QuantScaleRanks(const S& s) {
    for (Input input : {Input::kQkDescale, Input::kVpvDescale, Input::kPScale}) {
        if (auto v = NeedRank(s, input, {1})) return v;
    }
    return Pass();
}

Verdict LognRank(const S& s) {
    return NeedRank(s, Input::kLogN, {1});
}

}  // namespace

std::vector<SaRule> RankRules() {
    const Stage r = Stage::kRank;
    const ErrorType dimNum = ERROR_INVALID_TENSOR_DIM_NUM;
    const ErrorType size = ERROR_INVALID_TENSOR_SIZE;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        MakeRule(
            "sa.rank.query", r, kAllProfiles, dimNum,
            "query: 2 or 4 dims (UNDEFINED/ENCODER/DECODER, BSND), 4 (BNSD), 2 or 3 (PREFIX_ENCODER)",
            "seed: 'In non-PA_ENCODER mode, the query, key, and value of Atlas A2 inference products can be "
            "two-dimensional [nTokens, hiddenSize] or four-dimensional [batch, seq_len, head_num, "
            "head_size].'; docs/spec/self_attention.md 5.3 (InferShapeDimNumCheck, BNSD, PREFIX)",
            QueryRank),
        MakeRule(
            "sa.rank.fa_key_value", r, kAllProfiles, dimNum, "KV cache in the op: key and value 2 or 4 dims",
            "seed (non-PA_ENCODER q/k/v 2-D or 4-D); docs/spec/self_attention.md 2.1", FlashKeyValueRank),
        MakeRule("sa.rank.fa_same_rank", r, kAllProfiles, dimNum,
                 "KV cache in the op: query, key and value have the same number of dims",
                 "docs/decisions.md (ATB's output shape reads value.dims[3] for a 4-D query)", FlashSameRank),
        MakeRule(
            "sa.rank.fa_cache", r, kAllProfiles, dimNum,
            "cacheK, cacheV: 4 dims (3 with dynamic batch) on atlas-a2; 5 on atlas-inference and with BNSD",
            "docs/spec/self_attention.md 2.1, 2.3, 5.3 (InferShapeDimNumCheck, InferShapeDimNumCheckBNSD)",
            FlashCacheRanks),
        MakeRule("sa.rank.fa_lengths", r, kAllProfiles, dimNum,
                 "tokenOffset, seqLen, layerId, batchRunStatus: 1 dim",
                 "docs/spec/self_attention.md 2.1, 5.3", FlashLengthRanks),
        MakeRule(
            "sa.rank.pa_encoder_query", r, rules::ProfileSet::AllBut({Platform::kAtlas350}), size,
            "PA_ENCODER (BSND) query: 2 or 3 dims on atlas-a2, 3 on atlas-inference and atlas-training",
            "seed: 'In PA_ENCODER mode, the query, key, and value of Atlas A2 inference products can be "
            "two-dimensional [nTokens, hiddenSize] or three-dimensional [nTokens, head_num, head_size].'; "
            "docs/spec/self_attention.md 5.3 (InferShapePADimNumCheck; MLA kernel: q 2 or 3 dims); NZ "
            "encoder runner",
            PaQueryRank),
        MakeRule(
            "sa.rank.pa_encoder_same_rank", r, rules::ProfileSet::AllBut({Platform::kAtlas350}), size,
            "PA_ENCODER (BSND): key and value have the query's number of dims",
            "seed: 'In PA_ENCODER, the number of dimensions of query, key, and value must be the same.'; "
            "docs/spec/self_attention.md 5.3",
            PaSameRank),
        MakeRule("sa.rank.pa_encoder_350", r, k350Only, dim, "atlas-350 PA_ENCODER: query, key, value 3 dims",
                 "docs/spec/self_attention.md 2.4 (950: q/k/v [N, Hn, D]), 5.3 (HeadSizeDimCheck910B, 950)",
                 Pa350Ranks),
        MakeRule("sa.rank.pa_encoder_seq_len", r, kAllProfiles, dimNum, "PA_ENCODER: seqLen 1 or 2 dims",
                 "docs/spec/self_attention.md 2.4, 5.3", PaSeqLenRank),
        MakeRule("sa.rank.pa_encoder_slopes", r, kAllProfiles, size, "PA_ENCODER: slopes 1 dim",
                 "docs/spec/self_attention.md 5.3 (InferShapePADimNumCheck)", PaSlopesRank),
        MakeRule("sa.rank.pa_bnsd", r, kAllProfiles, dimNum,
                 "PA_ENCODER with TYPE_BNSD: query and key 4 dims",
                 "docs/spec/self_attention.md 2.4, 5.3 (InferShapePADimNumCheckBNSD)", PaBnsdRanks),
        MakeRule("sa.rank.pa_bnsd_value", r, kAllProfiles, dim,
                 "PA_ENCODER with TYPE_BNSD: value has key's shape",
                 "docs/spec/self_attention.md 5.3 (InferShapePADimCheckBNSD: key and value descs equal)",
                 PaBnsdValueMatchesKey),
        MakeRule(
            "sa.rank.prefix", r, kAllProfiles, dimNum,
            "PREFIX_ENCODER: key 3 or 4 dims, value as key, blockTables 2, seqLen, kvSeqLen and slopes 1",
            "docs/spec/self_attention.md 2.5, 5.3 (InferShapePrefixDimNumCheck910B)", PrefixRanks),
        MakeRule(
            "sa.rank.mask", r, kAllProfiles, size,
            "attentionMask: 2 to 4 dims; 2 for NORM_COMPRESS outside the FA modes; alibi compress 2 or 3 "
            "(4, FRACTAL_NZ, on atlas-inference and atlas-training); FRACTAL_NZ masks 4",
            "docs/spec/self_attention.md 5.3 (PAMaskDimCheck, PAMaskDimCheckNz, NormMaskDimCheck, "
            "InferShapeMaskDimNumCheck)",
            MaskRank),
        MakeRule("sa.rank.bnsd_mask", r, kAllProfiles, dimNum,
                 "TYPE_BNSD outside PA_ENCODER: mask 2 to 4 dims",
                 "docs/spec/self_attention.md 5.3 (InferShapeDimNumCheckBNSD)", BnsdMaskRank),
        MakeRule("sa.rank.quant_scales", r, kAllProfiles, dim, "qkDescale, vpvDescale and pScale: 1 dim",
                 "docs/spec/self_attention.md 5.3 (InferQKVQuantDimCheck)", QuantScaleRanks),
        MakeRule("sa.rank.logn", r, kAllProfiles, dim, "logN: 1 dim",
                 "docs/spec/self_attention.md 5.3 (InferLogNCheck)", LognRank),
    };
}

}  // namespace atbx::ops::sa
