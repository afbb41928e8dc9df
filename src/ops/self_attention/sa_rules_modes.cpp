// SelfAttention mode requirements (CreateOperation, docs/spec/self_attention.md 5.1): what BNSD, MLA,
// sliding-window attention, PREFIX_ENCODER and KERNELTYPE_EXP_M8V2 require of the param, and logN's calcType
// checks that ATB makes at InferShape. Requirements another rule already enforces are named in that rule's
// source instead of repeated here (a repeated rule could never be violated alone).
#include <cmath>

#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

int Int(auto value) {
    return static_cast<int>(value);
}

bool PaBnsd(const S& s) {
    return s.Bnsd() && s.param->calcType == Param::PA_ENCODER;
}
bool FlashBnsd(const S& s) {
    return s.Bnsd() && (s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass);
}
bool Prefix(const S& s) {
    return s.param->calcType == Param::PREFIX_ENCODER;
}
bool ExpM8v2(const S& s) {
    return s.param->kernelType == Param::KERNELTYPE_EXP_M8V2;
}
bool NoClamp(const Param& p) {
    return p.clampType == Param::CLAMP_TYPE_UNDEFINED && p.clampMin == 0.0f && p.clampMax == 0.0f;
}

// BNSD (inputLayout TYPE_BNSD).
Verdict BnsdScaleTor(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR, "inputLayout TYPE_BNSD needs scaleType ",
                   "SCALE_TYPE_TOR (0), got ", Int(s.param->scaleType));
}
Verdict BnsdNoQuant(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT,
                   "inputLayout TYPE_BNSD needs quantType 0, got ", Int(s.param->quantType));
}
Verdict PrefixBsnd(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(!s.Bnsd(), "calcType PREFIX_ENCODER needs inputLayout TYPE_BSND (0), got TYPE_BNSD (1)");
}
Verdict PaBnsdNoMla(const S& s) {
    if (!PaBnsd(s)) return Pass();
    return Require(!s.Mla(), "PA_ENCODER with TYPE_BNSD does not support MLA: mlaVHeadSize must be 0, got ",
                   s.param->mlaVHeadSize);
}
Verdict PaBnsdNoHighPrecision(const S& s) {
    if (!PaBnsd(s)) return Pass();
    return Require(s.param->kernelType != Param::KERNELTYPE_HIGH_PRECISION,
                   "PA_ENCODER with TYPE_BNSD does not support kernelType KERNELTYPE_HIGH_PRECISION (1)");
}
Verdict PaBnsdPlatform(const S& s) {
    if (!PaBnsd(s)) return Pass();
    if (s.platform == Platform::kAtlasInference) {
        return Require(ExpM8v2(s), "PA_ENCODER with TYPE_BNSD needs kernelType KERNELTYPE_EXP_M8V2 (2) on ",
                       "atlas-inference, got ", Int(s.param->kernelType));
    }
    return rules::Fail(
        "PA_ENCODER with TYPE_BNSD runs on atlas-a2 (and atlas-inference with EXP_M8V2), not on ",
        PlatformName(s.platform));
}
Verdict PaBnsdNoMask(const S& s) {
    if (!PaBnsd(s) || ExpM8v2(s)) return Pass();
    return Require(s.param->maskType == Param::MASK_TYPE_UNDEFINED,
                   "PA_ENCODER with TYPE_BNSD takes no mask: maskType must be UNDEFINED (0), got ",
                   Int(s.param->maskType));
}
Verdict FlashBnsdBypass(const S& s) {
    if (!FlashBnsd(s)) return Pass();
    return Require(s.param->kvcacheCfg == Param::K_BYPASS_V_BYPASS,
                   "TYPE_BNSD outside PA_ENCODER needs kvcacheCfg K_BYPASS_V_BYPASS (1), got ",
                   Int(s.param->kvcacheCfg));
}
Verdict FlashBnsdMask(const S& s) {
    if (!FlashBnsd(s)) return Pass();
    return Require(s.param->maskType != Param::MASK_TYPE_UNDEFINED,
                   "TYPE_BNSD outside PA_ENCODER needs a mask: maskType must not be UNDEFINED (0)");
}

// MLA (mlaVHeadSize > 0: V is the first mlaVHeadSize channels of K).
Verdict MlaPaEncoderOnly(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.param->calcType == Param::PA_ENCODER,
                   "mlaVHeadSize > 0 needs calcType PA_ENCODER (3), got ", Int(s.param->calcType));
}
Verdict MlaMaskTypes(const S& s) {
    if (!s.Mla()) return Pass();
    const auto m = s.param->maskType;
    return Require(m == Param::MASK_TYPE_UNDEFINED || m == Param::MASK_TYPE_NORM || IsSwaMask(m),
                   "mlaVHeadSize > 0 supports maskType UNDEFINED, NORM, SLIDING_WINDOW_NORM or "
                   "SLIDING_WINDOW_COMPRESS, got ",
                   Int(m));
}
Verdict MlaScaleTor(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR,
                   "mlaVHeadSize > 0 needs scaleType SCALE_TYPE_TOR, got ", Int(s.param->scaleType));
}
Verdict MlaNoClamp(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.param->clampType == Param::CLAMP_TYPE_UNDEFINED,
                   "mlaVHeadSize > 0 does not support clamp: ", "clampType must be UNDEFINED, got ",
                   Int(s.param->clampType));
}
Verdict MlaVHeadSizeMax(const S& s) {
    return Require(s.param->mlaVHeadSize <= 576, "mlaVHeadSize must be <= 576, got ", s.param->mlaVHeadSize);
}

// Sliding-window attention (windowSize > 0 with maskType 7 or 8).
Verdict SwaCacheTypeNeedsSwa(const S& s) {
    if (s.param->cacheType != Param::CACHE_TYPE_SWA) return Pass();
    return Require(
        s.param->windowSize > 0 || IsSwaMask(s.param->maskType),
        "cacheType CACHE_TYPE_SWA needs sliding-window attention (windowSize > 0 and maskType 7 or 8)");
}
Verdict SwaWindowMaskPair(const S& s) {
    const bool window = s.param->windowSize > 0;
    return Require(
        window == IsSwaMask(s.param->maskType),
        "windowSize > 0 goes with maskType SLIDING_WINDOW_NORM (7) or SLIDING_WINDOW_COMPRESS (8) and ",
        "back, got windowSize ", s.param->windowSize, " with maskType ", Int(s.param->maskType));
}
Verdict SwaCompressNotDecoder(const S& s) {
    if (!SwaEnabled(*s.param) || s.param->maskType != Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS) return Pass();
    return Require(s.param->calcType != Param::DECODER,
                   "maskType SLIDING_WINDOW_COMPRESS is not supported with calcType DECODER");
}
template <bool (*Ok)(const Param&)>
Verdict SwaRequires(const S& s, const char* what) {
    if (!SwaEnabled(*s.param)) return Pass();
    return Require(Ok(*s.param), "sliding-window attention does not support ", what);
}
bool NotDynamic(const Param& p) {
    return !p.batchRunStatusEnable;
}
bool DefaultKernel(const Param& p) {
    return p.kernelType == Param::KERNELTYPE_DEFAULT;
}
bool ClampOff(const Param& p) {
    return p.clampType == Param::CLAMP_TYPE_UNDEFINED;
}
bool Unquantized(const Param& p) {
    return p.quantType == Param::TYPE_QUANT_UNQUANT;
}
bool TorScale(const Param& p) {
    return p.scaleType == Param::SCALE_TYPE_TOR;
}
bool Bsnd(const Param& p) {
    return p.inputLayout == infer::TYPE_BSND;
}
Verdict SwaNoDynamicBatch(const S& s) {
    return SwaRequires<NotDynamic>(s, "dynamic batch (batchRunStatusEnable)");
}
Verdict SwaDefaultKernel(const S& s) {
    return SwaRequires<DefaultKernel>(s, "kernelType other than KERNELTYPE_DEFAULT");
}
Verdict SwaNoClamp(const S& s) {
    return SwaRequires<ClampOff>(s, "clamp (clampType MIN_MAX)");
}
Verdict SwaNoQuant(const S& s) {
    return SwaRequires<Unquantized>(s, "quantization (quantType != 0)");
}
Verdict SwaScaleTor(const S& s) {
    return SwaRequires<TorScale>(s, "logN (scaleType != SCALE_TYPE_TOR)");
}
Verdict SwaBsnd(const S& s) {
    return SwaRequires<Bsnd>(s, "inputLayout TYPE_BNSD");
}

// PREFIX_ENCODER's requirement list.
Verdict PrefixPlatform(const S& s) {
    if (!Prefix(s)) return Pass();
    return rules::Fail("calcType PREFIX_ENCODER runs on atlas-a2 only, not on ", PlatformName(s.platform));
}
Verdict PrefixOutDataType(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->outDataType == ACL_DT_UNDEFINED, "calcType PREFIX_ENCODER needs outDataType ",
                   "ACL_DT_UNDEFINED (-1), got ", Int(s.param->outDataType));
}
Verdict PrefixQScaleOne(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->qScale == 1.0f, "calcType PREFIX_ENCODER needs qScale 1, got ", s.param->qScale);
}
Verdict PrefixNoDynamicBatch(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(!s.param->batchRunStatusEnable,
                   "calcType PREFIX_ENCODER does not support batchRunStatusEnable");
}
Verdict PrefixTriuMask(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->isTriuMask == 1, "calcType PREFIX_ENCODER needs isTriuMask 1, got ",
                   s.param->isTriuMask);
}
Verdict PrefixHighPrecision(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->kernelType == Param::KERNELTYPE_HIGH_PRECISION, "calcType PREFIX_ENCODER needs ",
                   "kernelType KERNELTYPE_HIGH_PRECISION (1), got ", Int(s.param->kernelType));
}
Verdict PrefixNoClamp(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(NoClamp(*s.param),
                   "calcType PREFIX_ENCODER does not support clamp: clampType must be 0 and ",
                   "clampMin, clampMax 0, got clampType ", Int(s.param->clampType), ", clampMin ",
                   s.param->clampMin, ", clampMax ", s.param->clampMax);
}
Verdict PrefixMaskTypes(const S& s) {
    if (!Prefix(s)) return Pass();
    const auto m = s.param->maskType;
    return Require(m == Param::MASK_TYPE_NORM_COMPRESS || m == Param::MASK_TYPE_ALIBI_COMPRESS ||
                       m == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT || m == Param::MASK_TYPE_CAUSAL_MASK,
                   "calcType PREFIX_ENCODER supports maskType NORM_COMPRESS (3), ALIBI_COMPRESS (4), "
                   "ALIBI_COMPRESS_SQRT (5) or CAUSAL_MASK (9), got ",
                   Int(m));
}
Verdict PrefixKvCache(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->kvcacheCfg == Param::K_CACHE_V_CACHE, "calcType PREFIX_ENCODER needs kvcacheCfg ",
                   "K_CACHE_V_CACHE (0), got ", Int(s.param->kvcacheCfg));
}
Verdict PrefixScaleTor(const S& s) {
    if (!Prefix(s)) return Pass();
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR, "calcType PREFIX_ENCODER needs scaleType ",
                   "SCALE_TYPE_TOR (0), got ", Int(s.param->scaleType));
}

// KERNELTYPE_EXP_M8V2's requirement list.
Verdict M8v2Platform(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return rules::Fail("kernelType KERNELTYPE_EXP_M8V2 runs on atlas-inference only, not on ",
                       PlatformName(s.platform));
}
Verdict M8v2OutDataType(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->outDataType == ACL_DT_UNDEFINED,
                   "kernelType KERNELTYPE_EXP_M8V2 needs outDataType ", "ACL_DT_UNDEFINED (-1), got ",
                   Int(s.param->outDataType));
}
Verdict M8v2QScaleOne(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->qScale == 1.0f, "kernelType KERNELTYPE_EXP_M8V2 needs qScale 1, got ",
                   s.param->qScale);
}
Verdict M8v2NoTriu(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->isTriuMask == 0, "kernelType KERNELTYPE_EXP_M8V2 needs isTriuMask 0, got ",
                   s.param->isTriuMask);
}
Verdict M8v2PaEncoder(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->calcType == Param::PA_ENCODER, "kernelType KERNELTYPE_EXP_M8V2 needs calcType ",
                   "PA_ENCODER (3), got ", Int(s.param->calcType));
}
Verdict M8v2ClampBounds(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->clampMin == 0.0f && s.param->clampMax == 0.0f, "kernelType KERNELTYPE_EXP_M8V2 ",
                   "does not support clamp: clampMin and clampMax must be 0, got ", s.param->clampMin,
                   " and ", s.param->clampMax);
}
Verdict M8v2MaskTypes(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    const auto m = s.param->maskType;
    return Require(
        m == Param::MASK_TYPE_UNDEFINED || m == Param::MASK_TYPE_NORM || m == Param::MASK_TYPE_NORM_COMPRESS,
        "kernelType KERNELTYPE_EXP_M8V2 supports maskType UNDEFINED, NORM or NORM_COMPRESS, got ", Int(m));
}
Verdict M8v2ScaleTor(const S& s) {
    if (!ExpM8v2(s)) return Pass();
    return Require(s.param->scaleType == Param::SCALE_TYPE_TOR,
                   "kernelType KERNELTYPE_EXP_M8V2 needs scaleType ", "SCALE_TYPE_TOR (0), got ",
                   Int(s.param->scaleType));
}

// logN (scaleType SCALE_TYPE_LOGN), checked by ATB at InferShape.
Verdict LognCalcType(const S& s) {
    if (s.param->scaleType != Param::SCALE_TYPE_LOGN) return Pass();
    const auto calc = s.param->calcType;
    return Require(calc == Param::PA_ENCODER || calc == Param::DECODER,
                   "scaleType SCALE_TYPE_LOGN needs calcType ", "PA_ENCODER (3) or DECODER (2), got ",
                   Int(calc));
}
Verdict LognPaHighPrecision(const S& s) {
    if (s.param->scaleType != Param::SCALE_TYPE_LOGN || s.param->calcType != Param::PA_ENCODER) return Pass();
    return Require(s.param->kernelType == Param::KERNELTYPE_HIGH_PRECISION,
                   "PA_ENCODER with logN needs kernelType ", "KERNELTYPE_HIGH_PRECISION (1), got ",
                   Int(s.param->kernelType));
}

constexpr std::string_view kBnsd = "docs/spec/self_attention.md 5.1 (BNSDParamCheck)";
constexpr std::string_view kMla = "docs/spec/self_attention.md 5.1 (MlaParamCheck)";
constexpr std::string_view kSwa = "docs/spec/self_attention.md 5.1 (SWAParamCheck)";
constexpr std::string_view kPrefix = "docs/spec/self_attention.md 5.1 (PrefixEncoderParamCheck)";
constexpr std::string_view kM8v2 = "docs/spec/self_attention.md 5.1 (ExpM8v2ParamCheck)";

}  // namespace

std::vector<SaRule> ModeRules() {
    const Stage p = Stage::kParam;
    const ErrorType e = ERROR_INVALID_PARAM;
    return {
        MakeRule("sa.param.bnsd_scale_tor", p, kAllProfiles, e, "TYPE_BNSD: scaleType SCALE_TYPE_TOR", kBnsd,
                 BnsdScaleTor),
        MakeRule("sa.param.bnsd_no_quant", p, kAllProfiles, e, "TYPE_BNSD: quantType 0", kBnsd, BnsdNoQuant),
        MakeRule("sa.param.prefix_bsnd", p, kAllProfiles, e, "PREFIX_ENCODER: inputLayout TYPE_BSND",
                 "docs/spec/self_attention.md 5.1 (BNSDParamCheck and PrefixEncoderParamCheck)", PrefixBsnd),
        MakeRule("sa.param.pa_bnsd_no_mla", p, kAllProfiles, e, "PA_ENCODER with TYPE_BNSD: mlaVHeadSize 0",
                 kBnsd, PaBnsdNoMla),
        MakeRule("sa.param.pa_bnsd_no_high_precision", p, kAllProfiles, e,
                 "PA_ENCODER with TYPE_BNSD: kernelType != HIGH_PRECISION", kBnsd, PaBnsdNoHighPrecision),
        MakeRule("sa.param.pa_bnsd_platform", p, kNotA2, e,
                 "PA_ENCODER with TYPE_BNSD: atlas-a2, or atlas-inference with KERNELTYPE_EXP_M8V2",
                 "docs/spec/self_attention.md 5.1 (BNSDParamCheck; also 950's inputLayout check)",
                 PaBnsdPlatform),
        MakeRule("sa.param.pa_bnsd_no_mask", p, kAllProfiles, e,
                 "PA_ENCODER with TYPE_BNSD and not EXP_M8V2: maskType UNDEFINED", kBnsd, PaBnsdNoMask),
        MakeRule("sa.param.bnsd_bypass", p, kAllProfiles, e,
                 "TYPE_BNSD with calcType UNDEFINED/ENCODER/DECODER: kvcacheCfg K_BYPASS_V_BYPASS", kBnsd,
                 FlashBnsdBypass),
        MakeRule("sa.param.bnsd_mask_required", p, kAllProfiles, e,
                 "TYPE_BNSD with calcType UNDEFINED/ENCODER/DECODER: maskType != UNDEFINED", kBnsd,
                 FlashBnsdMask),
        MakeRule("sa.param.mla_pa_encoder_only", p, kAllProfiles, e, "mlaVHeadSize > 0: calcType PA_ENCODER",
                 "docs/spec/self_attention.md 5.1 (MlaParamCheck; also PREFIX_ENCODER's mlaVHeadSize 0)",
                 MlaPaEncoderOnly),
        MakeRule("sa.param.mla_mask_types", p, kAllProfiles, e,
                 "mlaVHeadSize > 0: maskType UNDEFINED, NORM, SLIDING_WINDOW_NORM or SLIDING_WINDOW_COMPRESS",
                 kMla, MlaMaskTypes),
        MakeRule("sa.param.mla_scale_tor", p, kAllProfiles, e, "mlaVHeadSize > 0: scaleType SCALE_TYPE_TOR",
                 kMla, MlaScaleTor),
        MakeRule("sa.param.mla_no_clamp", p, kAllProfiles, e, "mlaVHeadSize > 0: clampType UNDEFINED", kMla,
                 MlaNoClamp),
        MakeRule("sa.param.mla_v_head_size_max", p, kAllProfiles, e, "mlaVHeadSize <= 576", kMla,
                 MlaVHeadSizeMax),
        MakeRule("sa.param.swa_cache_type_needs_swa", p, kAllProfiles, e,
                 "cacheType CACHE_TYPE_SWA only with sliding-window attention",
                 "docs/spec/self_attention.md 5.1 (SWAParamCheck; also PREFIX_ENCODER's, EXP_M8V2's and "
                 "950's cacheType)",
                 SwaCacheTypeNeedsSwa),
        MakeRule("sa.param.swa_window_mask_pair", p, kAllProfiles, e,
                 "windowSize > 0 if and only if maskType is SLIDING_WINDOW_NORM or SLIDING_WINDOW_COMPRESS",
                 "docs/spec/self_attention.md 5.1 (SWAParamCheck; also PREFIX_ENCODER's, EXP_M8V2's and "
                 "950's windowSize 0)",
                 SwaWindowMaskPair),
        MakeRule("sa.param.swa_compress_not_decoder", p, kAllProfiles, e,
                 "SLIDING_WINDOW_COMPRESS: calcType != DECODER", kSwa, SwaCompressNotDecoder),
        MakeRule("sa.param.swa_no_dynamic_batch", p, kAllProfiles, e,
                 "sliding window: batchRunStatusEnable false", kSwa, SwaNoDynamicBatch),
        MakeRule("sa.param.swa_default_kernel", p, kAllProfiles, e,
                 "sliding window: kernelType KERNELTYPE_DEFAULT", kSwa, SwaDefaultKernel),
        MakeRule("sa.param.swa_no_clamp", p, kAllProfiles, e, "sliding window: clampType UNDEFINED", kSwa,
                 SwaNoClamp),
        MakeRule("sa.param.swa_no_quant", p, kAllProfiles, e, "sliding window: quantType 0", kSwa,
                 SwaNoQuant),
        MakeRule("sa.param.swa_scale_tor", p, kAllProfiles, e, "sliding window: scaleType SCALE_TYPE_TOR",
                 kSwa, SwaScaleTor),
        MakeRule("sa.param.swa_bsnd", p, kAllProfiles, e, "sliding window: inputLayout TYPE_BSND", kSwa,
                 SwaBsnd),
        MakeRule("sa.param.prefix_platform", p, kNotA2, e, "PREFIX_ENCODER: atlas-a2 only", kPrefix,
                 PrefixPlatform),
        MakeRule("sa.param.prefix_out_data_type", p, kAllProfiles, e,
                 "PREFIX_ENCODER: outDataType ACL_DT_UNDEFINED", kPrefix, PrefixOutDataType),
        MakeRule("sa.param.prefix_q_scale_one", p, kAllProfiles, e, "PREFIX_ENCODER: qScale == 1", kPrefix,
                 PrefixQScaleOne),
        MakeRule("sa.param.prefix_no_dynamic_batch", p, kAllProfiles, e,
                 "PREFIX_ENCODER: batchRunStatusEnable false", kPrefix, PrefixNoDynamicBatch),
        MakeRule("sa.param.prefix_triu_mask", p, kAllProfiles, e, "PREFIX_ENCODER: isTriuMask == 1", kPrefix,
                 PrefixTriuMask),
        MakeRule("sa.param.prefix_high_precision", p, kAllProfiles, e,
                 "PREFIX_ENCODER: kernelType KERNELTYPE_HIGH_PRECISION", kPrefix, PrefixHighPrecision),
        MakeRule("sa.param.prefix_no_clamp", p, kAllProfiles, e,
                 "PREFIX_ENCODER: clampType UNDEFINED, clampMin == clampMax == 0", kPrefix, PrefixNoClamp),
        MakeRule("sa.param.prefix_mask_types", p, kAllProfiles, e,
                 "PREFIX_ENCODER: maskType NORM_COMPRESS, ALIBI_COMPRESS, ALIBI_COMPRESS_SQRT or CAUSAL_MASK",
                 kPrefix, PrefixMaskTypes),
        MakeRule("sa.param.prefix_kv_cache", p, kAllProfiles, e, "PREFIX_ENCODER: kvcacheCfg K_CACHE_V_CACHE",
                 kPrefix, PrefixKvCache),
        MakeRule("sa.param.prefix_scale_tor", p, kAllProfiles, e, "PREFIX_ENCODER: scaleType SCALE_TYPE_TOR",
                 kPrefix, PrefixScaleTor),
        MakeRule("sa.param.exp_m8v2_platform", p, rules::ProfileSet::AllBut({Platform::kAtlasInference}), e,
                 "KERNELTYPE_EXP_M8V2: atlas-inference only", kM8v2, M8v2Platform),
        MakeRule("sa.param.exp_m8v2_out_data_type", p, kAllProfiles, e,
                 "KERNELTYPE_EXP_M8V2: outDataType ACL_DT_UNDEFINED", kM8v2, M8v2OutDataType),
        MakeRule("sa.param.exp_m8v2_q_scale_one", p, kAllProfiles, e, "KERNELTYPE_EXP_M8V2: qScale == 1",
                 kM8v2, M8v2QScaleOne),
        MakeRule("sa.param.exp_m8v2_no_triu", p, kAllProfiles, e, "KERNELTYPE_EXP_M8V2: isTriuMask == 0",
                 kM8v2, M8v2NoTriu),
        MakeRule("sa.param.exp_m8v2_pa_encoder", p, kAllProfiles, e,
                 "KERNELTYPE_EXP_M8V2: calcType PA_ENCODER", kM8v2, M8v2PaEncoder),
        MakeRule("sa.param.exp_m8v2_clamp_bounds", p, kAllProfiles, e,
                 "KERNELTYPE_EXP_M8V2: clampMin == clampMax == 0 (clampType: sa.param.clamp_a2_only)", kM8v2,
                 M8v2ClampBounds),
        MakeRule("sa.param.exp_m8v2_mask_types", p, kAllProfiles, e,
                 "KERNELTYPE_EXP_M8V2: maskType UNDEFINED, NORM or NORM_COMPRESS", kM8v2, M8v2MaskTypes),
        MakeRule("sa.param.exp_m8v2_scale_tor", p, kAllProfiles, e,
                 "KERNELTYPE_EXP_M8V2: scaleType SCALE_TYPE_TOR", kM8v2, M8v2ScaleTor),
        MakeRule("sa.param.logn_calc_type", Stage::kTensorCount, kAllProfiles, e,
                 "scaleType SCALE_TYPE_LOGN: calcType PA_ENCODER or DECODER (checked at InferShape)",
                 "docs/spec/self_attention.md 5.3 (InferLogNCheck)", LognCalcType),
        MakeRule(
            "sa.param.logn_pa_high_precision", Stage::kTensorCount, kA2Only, e,
            "atlas-a2, PA_ENCODER with logN: kernelType KERNELTYPE_HIGH_PRECISION (checked at InferShape)",
            "docs/spec/self_attention.md 5.3 (InferLogNCheck)", LognPaHighPrecision),
    };
}

}  // namespace atbx::ops::sa
