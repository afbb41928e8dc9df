// What each platform profile does not support (CreateOperation): docs/spec/self_attention.md 5.2
// (DeviceParamCheck, ParamCheck950) and the seed's sentence on Atlas training products. Checks of 5.2 that
// another rule already makes for the profile are named in that rule's source.
#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

Verdict LeftAlignA2Only(const S& s) {
    return Require(s.param->maskType != Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN,
                   "maskType ALIBI_COMPRESS_LEFT_ALIGN (6) runs on atlas-a2 only, not on ",
                   PlatformName(s.platform));
}

Verdict ClampA2Only(const S& s) {
    return Require(s.param->clampType == Param::CLAMP_TYPE_UNDEFINED,
                   "clamp (clampType MIN_MAX) runs on atlas-a2 ", "only, not on ", PlatformName(s.platform));
}

Verdict QuantA2Only(const S& s) {
    return Require(!s.QkvQuant(), "QKV quant (quantType ", static_cast<int>(s.param->quantType),
                   ") runs on atlas-a2 only, not on ", PlatformName(s.platform));
}

Verdict DynamicBatchA2Only(const S& s) {
    return Require(!s.param->batchRunStatusEnable,
                   "dynamic batch (batchRunStatusEnable) runs on atlas-a2 only, ", "not on ",
                   PlatformName(s.platform));
}

Verdict MlaA2Only(const S& s) {
    return Require(!s.Mla(), "MLA (mlaVHeadSize > 0) runs on atlas-a2 only, not on ",
                   PlatformName(s.platform));
}

Verdict PaEncoderOnly(const S& s) {
    return Require(s.param->calcType == Param::PA_ENCODER, PlatformName(s.platform), " supports calcType ",
                   "PA_ENCODER (3) only, got calcType ", static_cast<int>(s.param->calcType));
}

Verdict NoAlibiCompress(const S& s) {
    return Require(!IsAlibiCompress(s.param->maskType), PlatformName(s.platform), " does not support alibi ",
                   "compress masks (maskType 4, 5, 6), got maskType ", static_cast<int>(s.param->maskType));
}

Verdict NoSlidingWindow(const S& s) {
    return Require(s.param->windowSize == 0, PlatformName(s.platform), " does not support sliding-window ",
                   "attention: windowSize must be 0, got ", s.param->windowSize);
}

Verdict NoLogn(const S& s) {
    return Require(s.param->scaleType != Param::SCALE_TYPE_LOGN, PlatformName(s.platform),
                   " does not support ", "logN: scaleType must be SCALE_TYPE_TOR (0)");
}

Verdict MaskTypes350(const S& s) {
    const auto m = s.param->maskType;
    return Require(m == Param::MASK_TYPE_UNDEFINED || m == Param::MASK_TYPE_NORM ||
                       m == Param::MASK_TYPE_ALIBI || m == Param::MASK_TYPE_NORM_COMPRESS,
                   "atlas-350 supports maskType UNDEFINED, NORM, ALIBI or NORM_COMPRESS, got ",
                   static_cast<int>(m));
}

constexpr std::string_view kDevice = "docs/spec/self_attention.md 5.2 (DeviceParamCheck)";
constexpr std::string_view kTrainingSeed =
    "seed: 'The Atlas training products support only PA_ENCODER and basic functions and do not support "
    "functions "
    "listed in Functions.'; docs/spec/self_attention.md 5.2 (910A calcType, ParamCheck950 calcType)";

}  // namespace

std::vector<SaRule> PlatformRules() {
    const Stage p = Stage::kParam;
    const ErrorType e = ERROR_INVALID_PARAM;
    const ProfileSet training350{Platform::kAtlasTraining, Platform::kAtlas350};
    const ProfileSet trainingOnly{Platform::kAtlasTraining};
    return {
        MakeRule("sa.param.left_align_a2_only", p, kNotA2, e,
                 "maskType ALIBI_COMPRESS_LEFT_ALIGN: atlas-a2 only", kDevice, LeftAlignA2Only),
        MakeRule(
            "sa.param.clamp_a2_only", p, kNotA2, e, "clampType MIN_MAX: atlas-a2 only",
            "docs/spec/self_attention.md 5.2 (DeviceParamCheck, ParamCheck950 clamp; EXP_M8V2's clampType)",
            ClampA2Only),
        MakeRule("sa.param.quant_a2_only", p, kNotA2, e, "QKV quant: atlas-a2 only",
                 "docs/spec/self_attention.md 5.2 (DeviceParamCheck; 310P NORM_COMPRESS without quant; "
                 "ParamCheck950 quant; "
                 "EXP_M8V2's quantType)",
                 QuantA2Only),
        MakeRule(
            "sa.param.dynamic_batch_a2_only", p, kNotA2, e, "batchRunStatusEnable: atlas-a2 only",
            "docs/spec/self_attention.md 5.2 (DeviceParamCheck, ParamCheck950; EXP_M8V2's dynamic batch)",
            DynamicBatchA2Only),
        MakeRule("sa.param.mla_a2_only", p, kNotA2, e, "mlaVHeadSize > 0: atlas-a2 only",
                 "docs/spec/self_attention.md 5.1 (MlaParamCheck), 5.2 (ParamCheck950 mlaVHeadSize; "
                 "EXP_M8V2's MLA)",
                 MlaA2Only),
        MakeRule("sa.param.pa_encoder_only", p, training350, e,
                 "atlas-training and atlas-350: calcType PA_ENCODER only", kTrainingSeed, PaEncoderOnly),
        MakeRule("sa.param.alibi_compress_unsupported", p, trainingOnly, e,
                 "atlas-training: no alibi compress masks", kDevice, NoAlibiCompress),
        MakeRule("sa.param.swa_unsupported", p, trainingOnly, e, "atlas-training: windowSize 0", kDevice,
                 NoSlidingWindow),
        MakeRule("sa.param.logn_unsupported", p, training350, e, "atlas-training and atlas-350: no logN",
                 "docs/spec/self_attention.md 5.2 (910A logN, ParamCheck950 scaleType)", NoLogn),
        MakeRule("sa.param.mask_types_350", p, k350Only, e,
                 "atlas-350: maskType UNDEFINED, NORM, ALIBI or NORM_COMPRESS",
                 "docs/spec/self_attention.md 5.2 (ParamCheck950 maskType and windowSize)", MaskTypes350),
    };
}

}  // namespace atbx::ops::sa
