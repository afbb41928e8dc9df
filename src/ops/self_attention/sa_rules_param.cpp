// SelfAttention param rules (CreateOperation): the ranges of the param's fields and the checks ATB makes for
// every calcType (docs/spec/self_attention.md 5.1), the seed's GQA sentence, docs/spec/DECISIONS.md 14.
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

constexpr std::string_view kCreate = "docs/spec/self_attention.md 5.1 (CreateOperation)";

template <class E>
Verdict InRange(const char* field, E value, int low, int high) {
    const int v = static_cast<int>(value);
    return Require(v >= low && v <= high, field, " must be in [", low, ", ", high, "], got ", v);
}

// A non-finite scale or clamp bound makes every score NaN; no caller means it.
Verdict ScalesFinite(const S& s) {
    const Param& p = *s.param;
    for (const auto& [name, value] : {std::pair{"qkScale", p.qkScale}, std::pair{"qScale", p.qScale},
                                      std::pair{"clampMin", p.clampMin}, std::pair{"clampMax", p.clampMax}}) {
        if (!std::isfinite(value)) return rules::Fail(name, " must be a finite float, got ", value);
    }
    return Pass();
}

Verdict RsvZero(const S& s) {
    return rules::RequireReservedZero(s.param->rsv);
}

Verdict HeadNumPositive(const S& s) {
    return Require(s.param->headNum > 0, "headNum must be > 0, got ", s.param->headNum);
}

Verdict KvHeadNumNonNegative(const S& s) {
    return Require(s.param->kvHeadNum >= 0, "kvHeadNum must be >= 0 (0: headNum), got ", s.param->kvHeadNum);
}

Verdict GqaHeadNumDivisible(const S& s) {
    const int32_t heads = s.param->headNum;
    const int32_t kvHeads = s.param->kvHeadNum;
    if (heads <= 0 || kvHeads <= 0) return Pass();  // head_num_positive / kvHeadNum 0 means headNum
    return Require(heads % kvHeads == 0,
                   "headNum must be a multiple of kvHeadNum (so headNum >= kvHeadNum), got ", "headNum ",
                   heads, ", kvHeadNum ", kvHeads);
}

Verdict CalcTypeRange(const S& s) {
    return InRange("calcType", s.param->calcType, Param::UNDEFINED, Param::PREFIX_ENCODER);
}
Verdict KernelTypeRange(const S& s) {
    return InRange("kernelType", s.param->kernelType, Param::KERNELTYPE_DEFAULT, Param::KERNELTYPE_EXP_M8V2);
}
Verdict MaskTypeRange(const S& s) {
    return InRange("maskType", s.param->maskType, Param::MASK_TYPE_UNDEFINED, Param::MASK_TYPE_CAUSAL_MASK);
}
Verdict ClampTypeRange(const S& s) {
    return InRange("clampType", s.param->clampType, Param::CLAMP_TYPE_UNDEFINED, Param::CLAMP_TYPE_MIN_MAX);
}
Verdict KvCacheCfgRange(const S& s) {
    return InRange("kvcacheCfg", s.param->kvcacheCfg, Param::K_CACHE_V_CACHE, Param::K_BYPASS_V_BYPASS);
}
Verdict ScaleTypeRange(const S& s) {
    return InRange("scaleType", s.param->scaleType, Param::SCALE_TYPE_TOR, Param::SCALE_TYPE_LOGN);
}
Verdict InputLayoutRange(const S& s) {
    return InRange("inputLayout", s.param->inputLayout, infer::TYPE_BSND, infer::TYPE_BNSD);
}
Verdict CacheTypeRange(const S& s) {
    return InRange("cacheType", s.param->cacheType, Param::CACHE_TYPE_NORM, Param::CACHE_TYPE_SWA);
}
Verdict QuantTypeRange(const S& s) {
    return InRange("quantType", s.param->quantType, Param::TYPE_QUANT_UNQUANT, Param::TYPE_QUANT_QKV_ONLINE);
}

Verdict TriuMaskRange(const S& s) {
    return Require(s.param->isTriuMask <= 1, "isTriuMask must be 0 or 1, got ", s.param->isTriuMask);
}

Verdict WindowSizeRange(const S& s) {
    constexpr uint32_t kMax = std::numeric_limits<int32_t>::max();
    return Require(s.param->windowSize <= kMax, "windowSize must be <= ", kMax, ", got ",
                   s.param->windowSize);
}

Verdict NotDequantFusion(const S& s) {
    return Require(s.param->quantType != Param::TYPE_DEQUANT_FUSION,
                   "quantType TYPE_DEQUANT_FUSION (1) is reserved, got 1");
}

Verdict QuantOutDataType(const S& s) {
    if (!s.QkvQuant()) return Pass();
    const aclDataType out = s.param->outDataType;
    return Require(out == ACL_FLOAT16 || out == ACL_BF16,
                   "outDataType must be ACL_FLOAT16 (1) or ACL_BF16 (27) with QKV quant, got ",
                   static_cast<int>(out));
}

Verdict QuantPaEncoderOnly(const S& s) {
    if (!s.QkvQuant()) return Pass();
    return Require(s.param->calcType == Param::PA_ENCODER,
                   "QKV quant needs calcType PA_ENCODER (3), got calcType ",
                   static_cast<int>(s.param->calcType));
}

Verdict QuantScaleTor(const S& s) {
    if (!s.QkvQuant()) return Pass();
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR,
                   "QKV quant needs scaleType SCALE_TYPE_TOR (0), got ",
                   static_cast<int>(s.param->scaleType));
}

Verdict PaEncoderNoBypass(const S& s) {
    if (s.param->calcType != Param::PA_ENCODER) return Pass();
    return Require(s.param->kvcacheCfg != Param::K_BYPASS_V_BYPASS,
                   "calcType PA_ENCODER takes key and value: kvcacheCfg must be K_CACHE_V_CACHE (0), got "
                   "K_BYPASS_V_BYPASS (1)");
}

Verdict AlibiCompressEncodersOnly(const S& s) {
    if (!IsAlibiCompress(s.param->maskType)) return Pass();
    const auto calc = s.param->calcType;
    return Require(
        calc == Param::PA_ENCODER || calc == Param::PREFIX_ENCODER,
        "alibi compress masks (maskType 4, 5, 6) need calcType PA_ENCODER (3) or PREFIX_ENCODER (4), ",
        "got maskType ", static_cast<int>(s.param->maskType), " with calcType ", static_cast<int>(calc));
}

Verdict TriuNeedsMask(const S& s) {
    if (s.param->maskType != Param::MASK_TYPE_UNDEFINED) return Pass();
    return Require(s.param->isTriuMask != 1,
                   "isTriuMask 1 needs a mask: maskType is MASK_TYPE_UNDEFINED (0)");
}

Verdict CausalMaskPrefixOnly(const S& s) {
    if (s.param->maskType != Param::MASK_TYPE_CAUSAL_MASK) return Pass();
    return Require(s.param->calcType == Param::PREFIX_ENCODER,
                   "maskType MASK_TYPE_CAUSAL_MASK (9) needs calcType PREFIX_ENCODER (4), got calcType ",
                   static_cast<int>(s.param->calcType));
}

Verdict DynamicBatchNotBypass(const S& s) {
    if (!s.param->batchRunStatusEnable) return Pass();
    return Require(
        s.param->kvcacheCfg != Param::K_BYPASS_V_BYPASS,
        "batchRunStatusEnable needs kvcacheCfg K_CACHE_V_CACHE (0): dynamic batch is not supported with "
        "K_BYPASS_V_BYPASS");
}

}  // namespace

std::vector<SaRule> ParamRules() {
    const Stage p = Stage::kParam;
    const ErrorType e = ERROR_INVALID_PARAM;
    return {
        MakeRule("sa.param.rsv_zero", p, kAllProfiles, e, "rsv is all zero",
                 "docs/spec/self_attention.md 5.1 (OP_PARAM_RSV_CHECK)", RsvZero),
        MakeRule("sa.param.head_num_positive", p, kAllProfiles, e, "headNum > 0", kCreate, HeadNumPositive),
        MakeRule("sa.param.kv_head_num_non_negative", p, kAllProfiles, e, "kvHeadNum >= 0 (0 means headNum)",
                 kCreate, KvHeadNumNonNegative),
        MakeRule("sa.param.gqa_head_num_divisible", p, kAllProfiles, e,
                 "kvHeadNum == 0 or headNum % kvHeadNum == 0 (hence headNum >= kvHeadNum)",
                 "seed: 'To use the GQA mode, the following conditions must be met: headNum > kvHeadNum; "
                 "headNum%kvHeadNum == 0'; docs/spec/self_attention.md 5.1 (also PREFIX_ENCODER's headNum >= "
                 "kvHeadNum)",
                 GqaHeadNumDivisible),
        MakeRule("sa.param.scales_finite", p, kAllProfiles, e,
                 "qkScale, qScale, clampMin and clampMax are finite",
                 "atbx: a NaN or infinite scale or clamp bound makes every output NaN; docs/decisions.md",
                 ScalesFinite),
        MakeRule("sa.param.calc_type_range", p, kAllProfiles, e,
                 "calcType in [UNDEFINED (0), PREFIX_ENCODER (4)]",
                 "docs/spec/self_attention.md 1.1 (enum CalcType); docs/decisions.md", CalcTypeRange),
        MakeRule("sa.param.kernel_type_range", p, kAllProfiles, e,
                 "kernelType in [KERNELTYPE_DEFAULT (0), KERNELTYPE_EXP_M8V2 (2)]",
                 "docs/spec/self_attention.md 5.1 (KernelTypeRangeCheck)", KernelTypeRange),
        MakeRule("sa.param.mask_type_range", p, kAllProfiles, e,
                 "maskType in [UNDEFINED (0), CAUSAL_MASK (9)]",
                 "docs/spec/self_attention.md 1.1 (enum MaskType); seed 'How to select a mask' (full phase "
                 "NORM or ALIBI, "
                 "incremental phase UNDEFINED, NORM or ALIBI: every type is accepted in both phases)",
                 MaskTypeRange),
        MakeRule("sa.param.clamp_type_range", p, kAllProfiles, e, "clampType in [UNDEFINED (0), MIN_MAX (1)]",
                 "docs/spec/self_attention.md 1.1 (enum ClampType); docs/decisions.md", ClampTypeRange),
        MakeRule("sa.param.kv_cache_cfg_range", p, kAllProfiles, e,
                 "kvcacheCfg is K_CACHE_V_CACHE (0) or K_BYPASS_V_BYPASS (1)", kCreate, KvCacheCfgRange),
        MakeRule("sa.param.scale_type_range", p, kAllProfiles, e,
                 "scaleType is SCALE_TYPE_TOR (0) or SCALE_TYPE_LOGN (1)", kCreate, ScaleTypeRange),
        MakeRule("sa.param.input_layout_range", p, kAllProfiles, e,
                 "inputLayout is TYPE_BSND (0) or TYPE_BNSD (1)",
                 "docs/spec/self_attention.md 5.1 (InputLayoutRangeCheck)", InputLayoutRange),
        MakeRule("sa.param.cache_type_range", p, kAllProfiles, e,
                 "cacheType is CACHE_TYPE_NORM (0) or CACHE_TYPE_SWA (1)",
                 "docs/spec/self_attention.md 1.1 (enum CacheType); 5.2 (950: cacheType != NORM)",
                 CacheTypeRange),
        MakeRule("sa.param.quant_type_range", p, kAllProfiles, e, "quantType in [0, 3]",
                 "docs/spec/self_attention.md 1.1 (enum QuantType); docs/decisions.md", QuantTypeRange),
        MakeRule("sa.param.triu_mask_range", p, kAllProfiles, e, "isTriuMask is 0 or 1",
                 "docs/spec/self_attention.md 1.1 (kernel accepts only 0/1)", TriuMaskRange),
        MakeRule("sa.param.window_size_range", p, kAllProfiles, e, "windowSize <= INT32_MAX",
                 "docs/spec/self_attention.md 1.1 (the kernels take windowSize as int32)", WindowSizeRange),
        MakeRule("sa.param.quant_not_dequant_fusion", p, kAllProfiles, e,
                 "quantType != TYPE_DEQUANT_FUSION (1)", kCreate, NotDequantFusion),
        MakeRule("sa.param.quant_out_data_type", p, kAllProfiles, e,
                 "QKV quant (quantType 2, 3): outDataType is ACL_FLOAT16 or ACL_BF16", kCreate,
                 QuantOutDataType),
        MakeRule(
            "sa.param.quant_pa_encoder_only", p, kAllProfiles, e,
            "QKV quant (quantType 2, 3): calcType PA_ENCODER",
            "docs/spec/self_attention.md 5.1 (also PREFIX_ENCODER's quantType 0 and the 950 quant check)",
            QuantPaEncoderOnly),
        MakeRule("sa.param.quant_scale_tor", p, kAllProfiles, e,
                 "QKV quant (quantType 2, 3): scaleType SCALE_TYPE_TOR", kCreate, QuantScaleTor),
        MakeRule("sa.param.pa_encoder_no_bypass", p, kAllProfiles, e,
                 "calcType PA_ENCODER: kvcacheCfg K_CACHE_V_CACHE",
                 "docs/spec/self_attention.md 5.1 (also 950's kvcacheCfg)", PaEncoderNoBypass),
        MakeRule("sa.param.alibi_compress_encoders_only", p, kAllProfiles, e,
                 "alibi compress masks (4, 5, 6): calcType PA_ENCODER or PREFIX_ENCODER", kCreate,
                 AlibiCompressEncodersOnly),
        MakeRule("sa.param.triu_needs_mask", p, kAllProfiles, e, "maskType UNDEFINED: isTriuMask != 1",
                 kCreate, TriuNeedsMask),
        MakeRule("sa.param.causal_mask_prefix_only", p, kAllProfiles, e,
                 "maskType CAUSAL_MASK (9): calcType PREFIX_ENCODER",
                 "docs/spec/DECISIONS.md 14; docs/spec/self_attention.md 3.7", CausalMaskPrefixOnly),
        MakeRule("sa.param.dynamic_batch_not_bypass", p, kAllProfiles, e,
                 "batchRunStatusEnable: kvcacheCfg K_CACHE_V_CACHE (dynamic batch is unsupported in bypass)",
                 "docs/spec/self_attention.md 2.2 and 7 (reject); docs/decisions.md", DynamicBatchNotBypass),
    };
}

}  // namespace atbx::ops::sa
