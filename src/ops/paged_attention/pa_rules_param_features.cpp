// PagedAttention param rules (CreateOperation), part 2: which features combine
// (docs/spec/paged_attention.md 4.1 compress, calc, quant, logN, BNSD and MLA checks; the seed's MASK_FREE
// and NORM_COMPRESS requirements; DECISIONS 1 and 10; ATB's tiling checks that depend on the param
// alone, 4.6).
#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kParam = Stage::kParam;

bool Rope(const S& s) {
    return s.param->compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE;
}

Verdict RopeCompressNoMask(const S& s) {
    if (!Rope(s)) return Pass();
    return Require(s.param->maskType == Param::UNDEFINED,
                   "compressType COMPRESS_TYPE_KVHEAD_ROPE requires maskType UNDEFINED, got ",
                   MaskTypeName(s.param->maskType));
}

Verdict RopeCompressNoBatchRunStatus(const S& s) {
    if (!Rope(s)) return Pass();
    return Require(!s.param->batchRunStatusEnable,
                   "compressType COMPRESS_TYPE_KVHEAD_ROPE requires batchRunStatusEnable false");
}

Verdict CompressMaskType(const S& s) {
    if (s.param->compressType != Param::COMPRESS_TYPE_KVHEAD) return Pass();
    const int mask = s.param->maskType;
    return Require(
        mask == Param::UNDEFINED || mask == Param::MASK_TYPE_NORM || mask == Param::MASK_TYPE_ALIBI,
        "compressType COMPRESS_TYPE_KVHEAD supports maskType UNDEFINED, MASK_TYPE_NORM or MASK_TYPE_ALIBI, ",
        "got ", MaskTypeName(mask));
}

Verdict CompressKvHeadNumSet(const S& s) {
    if (!s.Compressed()) return Pass();
    return Require(s.param->kvHeadNum > 0,
                   "KV-head compression needs kvHeadNum > 0 (the heads of the original ", "cache), got ",
                   s.param->kvHeadNum);
}

Verdict SpecNoBatchRunStatus(const S& s) {
    if (!s.Spec()) return Pass();
    return Require(!s.param->batchRunStatusEnable, "calcType SPEC requires batchRunStatusEnable false");
}

Verdict SpecNoCompress(const S& s) {
    if (!s.Spec()) return Pass();
    return Require(!s.Compressed(), "calcType SPEC requires compressType 0, got ", s.param->compressType);
}

Verdict SpecMaskType(const S& s) {
    if (!s.Spec()) return Pass();
    const int mask = s.param->maskType;
    if (s.platform == kA2) {
        if (s.Mla()) return Pass();  // MLA with SPEC: pa.param.mla_spec_restrictions
        return Require(mask == Param::MASK_TYPE_NORM || mask == Param::MASK_TYPE_SPEC,
                       "calcType SPEC on atlas-a2 requires maskType MASK_TYPE_NORM or MASK_TYPE_SPEC, got ",
                       MaskTypeName(mask));
    }
    return Require(
        mask == Param::UNDEFINED || mask == Param::MASK_TYPE_SPEC || mask == Param::MASK_TYPE_MASK_FREE ||
            mask == Param::MASK_TYPE_NORM_COMPRESS,
        "calcType SPEC on ", PlatformName(s.platform),
        " requires maskType UNDEFINED, MASK_TYPE_SPEC, MASK_TYPE_MASK_FREE or MASK_TYPE_NORM_COMPRESS, "
        "got ",
        MaskTypeName(mask));
}

Verdict MaskFreeNeedsSpec(const S& s) {
    if (!MaskFree(s)) return Pass();
    return Require(s.Spec(), "maskType MASK_TYPE_MASK_FREE requires calcType CALC_TYPE_SPEC, got calcType ",
                   s.param->calcType);
}

Verdict NormCompressNeedsSpec(const S& s) {
    if (!NormCompress(s)) return Pass();
    return Require(s.Spec(),
                   "maskType MASK_TYPE_NORM_COMPRESS requires calcType CALC_TYPE_SPEC, got calcType ",
                   s.param->calcType);
}

Verdict NormCompressScaleTor(const S& s) {
    if (!NormCompress(s)) return Pass();
    return Require(!LogN(s), "maskType MASK_TYPE_NORM_COMPRESS requires scaleType SCALE_TYPE_TOR, got ",
                   "SCALE_TYPE_LOGN");
}

Verdict SpecMaskBsnd(const S& s) {
    if (!MaskSpecType(s) || s.Spec()) return Pass();  // with calcType SPEC: pa.param.bnsd_no_spec
    return Require(!s.Bnsd(), "maskType MASK_TYPE_SPEC (parallel decoding) requires inputLayout TYPE_BSND");
}

Verdict SpecMaskNoQuant(const S& s) {
    if (!MaskSpecType(s) || s.Spec()) return Pass();  // with calcType SPEC: the quant rules
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT,
                   "maskType MASK_TYPE_SPEC (parallel decoding) requires quantType 0, got ",
                   s.param->quantType);
}

Verdict DequantNoSpec(const S& s) {
    if (!s.Dequant()) return Pass();
    return Require(s.param->calcType == Param::CALC_TYPE_UNDEFINED,
                   "quantType TYPE_DEQUANT_FUSION requires calcType 0, got ", s.param->calcType);
}

Verdict QkvQuantOutDataType(const S& s) {
    if (!s.QkvQuant()) return Pass();
    const aclDataType out = s.param->outDataType;
    return Require(out == ACL_FLOAT16 || out == ACL_BF16,
                   "quantType 2/3 requires outDataType ACL_FLOAT16 (1) or ACL_BF16 (27), got ",
                   static_cast<int>(out));
}

Verdict QkvQuantNoOffset(const S& s) {
    if (!s.QkvQuant()) return Pass();
    return Require(!s.param->hasQuantOffset, "quantType ", s.param->quantType,
                   " requires hasQuantOffset false");
}

Verdict QkvQuantNoCompress(const S& s) {
    if (!s.QkvQuant()) return Pass();
    return Require(!s.Compressed(), "quantType ", s.param->quantType, " requires compressType 0, got ",
                   s.param->compressType);
}

Verdict QkvQuantNoSpec(const S& s) {
    if (!s.QkvQuant()) return Pass();
    return Require(s.param->calcType == Param::CALC_TYPE_UNDEFINED, "quantType ", s.param->quantType,
                   " requires calcType 0, got ", s.param->calcType);
}

Verdict QuantOffsetNeedsDequant(const S& s) {
    if (!s.param->hasQuantOffset || s.QkvQuant()) return Pass();  // quant 2/3: pa.param.qkv_quant_no_offset
    return Require(s.Dequant(), "hasQuantOffset requires quantType TYPE_DEQUANT_FUSION (1), got quantType ",
                   s.param->quantType);
}

Verdict LogNNoQuant(const S& s) {
    if (!LogN(s)) return Pass();
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT,
                   "scaleType SCALE_TYPE_LOGN requires quantType 0, got ", s.param->quantType);
}

Verdict LogNNoSpec(const S& s) {
    if (!LogN(s) || NormCompress(s)) return Pass();  // NORM_COMPRESS: pa.param.norm_compress_scale_tor
    return Require(s.param->calcType == Param::CALC_TYPE_UNDEFINED,
                   "scaleType SCALE_TYPE_LOGN requires calcType 0, got ", s.param->calcType);
}

Verdict LogNNoCompress(const S& s) {
    if (!LogN(s)) return Pass();
    return Require(!s.Compressed(), "scaleType SCALE_TYPE_LOGN requires compressType 0, got ",
                   s.param->compressType);
}

Verdict BnsdNoSpec(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(!s.Spec(), "inputLayout TYPE_BNSD requires calcType 0, got calcType SPEC");
}

Verdict BnsdNoCompress(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(!s.Compressed(), "inputLayout TYPE_BNSD requires compressType 0, got ",
                   s.param->compressType);
}

Verdict BnsdNoQuant(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT,
                   "inputLayout TYPE_BNSD requires quantType 0, got ", s.param->quantType);
}

Verdict BnsdNoLogN(const S& s) {
    if (!s.Bnsd()) return Pass();
    return Require(!LogN(s), "inputLayout TYPE_BNSD requires scaleType SCALE_TYPE_TOR, got SCALE_TYPE_LOGN");
}

Verdict MlaNoAlibi(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.param->maskType != Param::MASK_TYPE_ALIBI, "MLA (mlaVHeadSize ", s.param->mlaVHeadSize,
                   ") does not support maskType MASK_TYPE_ALIBI");
}

Verdict MlaSpecRestrictions(const S& s) {
    if (!s.Mla() || !s.Spec()) return Pass();
    const Param& p = *s.param;
    if (p.maskType == Param::MASK_TYPE_NORM)
        return Fail(
            "MLA with calcType SPEC supports maskType UNDEFINED or MASK_TYPE_SPEC, got MASK_TYPE_NORM");
    if (p.quantType != Param::TYPE_QUANT_UNQUANT)
        return Fail("MLA with calcType SPEC requires quantType 0, got ", p.quantType);
    if (p.batchRunStatusEnable) return Fail("MLA with calcType SPEC requires batchRunStatusEnable false");
    return Pass();
}

Verdict MlaNoCompress(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(!s.Compressed(), "MLA requires compressType 0, got ", s.param->compressType);
}

Verdict MlaNoDequant(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(!s.Dequant(), "MLA does not support quantType TYPE_DEQUANT_FUSION");
}

Verdict MlaNoLogN(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(!LogN(s), "MLA requires scaleType SCALE_TYPE_TOR, got SCALE_TYPE_LOGN");
}

Verdict MlaBsnd(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(!s.Bnsd(), "MLA requires inputLayout TYPE_BSND, got TYPE_BNSD");
}

Verdict MlaKvHeadNumOne(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.param->kvHeadNum == 1, "MLA supports MQA only: kvHeadNum must be 1, got ",
                   s.param->kvHeadNum);
}

constexpr std::string_view kMaskFreeSeed =
    "seed: 'When maskType is set to 4, the following constraints apply: ... calcType = CALC_TYPE_SPEC.'; "
    "DECISIONS 1";
constexpr std::string_view kNormCompressSeed =
    "seed: 'When maskType is set to 5 (MASK_TYPE_NORM_COMPRESS) ... calcType = CALC_TYPE_SPEC (parallel "
    "decoding/splitfuse).'; DECISIONS 1, 6";

}  // namespace

std::vector<PaRule> FeatureParamRules() {
    const auto rule = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                         std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, kParam, profiles, ERROR_INVALID_PARAM, condition, source, check);
    };
    const ProfileSet atb = kAtbProfiles;
    return {
        rule("pa.param.rope_compress_no_mask", atb, "compressType KVHEAD_ROPE requires maskType UNDEFINED",
             "docs/spec/paged_attention.md 4.1 compress", RopeCompressNoMask),
        rule("pa.param.rope_compress_no_batch_run_status", atb,
             "compressType KVHEAD_ROPE requires batchRunStatusEnable false",
             "docs/spec/paged_attention.md 4.1 compress", RopeCompressNoBatchRunStatus),
        rule("pa.param.compress_mask_type", kA2Only,
             "compressType KVHEAD supports maskType UNDEFINED, NORM or ALIBI",
             "docs/spec/paged_attention.md 3.4, 3.5 (compressed masks: NORM 3-D, ALIBI 3-D/4-D); "
             "docs/decisions.md",
             CompressMaskType),
        rule("pa.param.compress_kv_head_num_set", kA2Only, "KV-head compression requires kvHeadNum > 0",
             "docs/spec/paged_attention.md 4.5 (kernel: q.dims[0] * kvHeadNum == contextLens.size())",
             CompressKvHeadNumSet),
        rule("pa.param.spec_no_batch_run_status", atb, "calcType SPEC requires batchRunStatusEnable false",
             "docs/spec/paged_attention.md 4.1 calc", SpecNoBatchRunStatus),
        rule("pa.param.spec_no_compress", atb, "calcType SPEC requires compressType 0",
             "docs/spec/paged_attention.md 4.1 calc", SpecNoCompress),
        rule("pa.param.spec_mask_type", kA2AndInference,
             "calcType SPEC: atlas-a2 non-MLA maskType NORM or SPEC; atlas-inference maskType UNDEFINED, "
             "SPEC, "
             "MASK_FREE or NORM_COMPRESS",
             "docs/spec/paged_attention.md 4.1 calc, 3.6", SpecMaskType),
        rule("pa.param.mask_free_needs_spec", kInferenceOnly, "maskType MASK_FREE requires calcType SPEC",
             kMaskFreeSeed, MaskFreeNeedsSpec),
        rule("pa.param.norm_compress_needs_spec", kInferenceOnly,
             "maskType NORM_COMPRESS requires calcType SPEC", kNormCompressSeed, NormCompressNeedsSpec),
        rule("pa.param.norm_compress_scale_tor", kInferenceOnly,
             "maskType NORM_COMPRESS requires scaleType SCALE_TYPE_TOR",
             "seed: 'scaleType = SCALE_TYPE_TOR (SCALE_TYPE_LOGN is not supported ...)'",
             NormCompressScaleTor),
        rule("pa.param.spec_mask_bsnd", kA2Only, "maskType SPEC requires inputLayout BSND",
             "docs/spec/paged_attention.md 4.6 parallel check (BSND only)", SpecMaskBsnd),
        rule("pa.param.spec_mask_no_quant", kA2Only, "maskType SPEC requires quantType 0",
             "docs/spec/paged_attention.md 4.6 parallel check (fp16/bf16 only)", SpecMaskNoQuant),
        rule("pa.param.dequant_no_spec", atb, "quantType DEQUANT_FUSION requires calcType 0",
             "docs/spec/paged_attention.md 4.1 quant", DequantNoSpec),
        rule("pa.param.qkv_quant_out_data_type", atb,
             "quantType 2/3 requires outDataType ACL_FLOAT16 or ACL_BF16",
             "docs/spec/paged_attention.md 4.1 quant", QkvQuantOutDataType),
        rule("pa.param.qkv_quant_no_offset", atb, "quantType 2/3 requires hasQuantOffset false",
             "docs/spec/paged_attention.md 4.1 quant", QkvQuantNoOffset),
        rule("pa.param.qkv_quant_no_compress", atb, "quantType 2/3 requires compressType 0",
             "docs/spec/paged_attention.md 4.1 quant", QkvQuantNoCompress),
        rule("pa.param.qkv_quant_no_spec", atb, "quantType 2/3 requires calcType 0",
             "docs/spec/paged_attention.md 4.1 quant", QkvQuantNoSpec),
        rule("pa.param.quant_offset_needs_dequant", kAll, "hasQuantOffset requires quantType DEQUANT_FUSION",
             "DECISIONS 10; docs/spec/paged_attention.md 7.12 (no IR entry for hasQuantOffset with quantType "
             "0)",
             QuantOffsetNeedsDequant),
        rule("pa.param.logn_no_quant", atb, "scaleType LOGN requires quantType 0",
             "docs/spec/paged_attention.md 4.1 logN", LogNNoQuant),
        rule("pa.param.logn_no_spec", atb, "scaleType LOGN requires calcType 0",
             "docs/spec/paged_attention.md 4.1 logN, 4.6 (LOGN with q > 1)", LogNNoSpec),
        rule("pa.param.logn_no_compress", atb, "scaleType LOGN requires compressType 0",
             "docs/spec/paged_attention.md 4.1 logN", LogNNoCompress),
        rule("pa.param.bnsd_no_spec", atb, "inputLayout BNSD requires calcType 0",
             "docs/spec/paged_attention.md 4.1 BNSD", BnsdNoSpec),
        rule("pa.param.bnsd_no_compress", atb, "inputLayout BNSD requires compressType 0",
             "docs/spec/paged_attention.md 4.1 BNSD", BnsdNoCompress),
        rule("pa.param.bnsd_no_quant", atb, "inputLayout BNSD requires quantType 0",
             "docs/spec/paged_attention.md 4.1 BNSD", BnsdNoQuant),
        rule("pa.param.bnsd_no_logn", atb, "inputLayout BNSD requires scaleType TOR",
             "docs/spec/paged_attention.md 4.1 BNSD", BnsdNoLogN),
        rule("pa.param.mla_no_alibi", kA2Only, "MLA does not support maskType ALIBI",
             "docs/spec/paged_attention.md 4.1 MLA", MlaNoAlibi),
        rule("pa.param.mla_spec_restrictions", kA2Only,
             "MLA with calcType SPEC: maskType not NORM, quantType 0, no batchRunStatus",
             "docs/spec/paged_attention.md 4.1 MLA, 3.9 (MLA + SPEC)", MlaSpecRestrictions),
        rule("pa.param.mla_no_compress", kA2Only, "MLA requires compressType 0",
             "docs/spec/paged_attention.md 4.1 MLA", MlaNoCompress),
        rule("pa.param.mla_no_dequant", kA2Only, "MLA does not support quantType DEQUANT_FUSION",
             "docs/spec/paged_attention.md 4.1 MLA", MlaNoDequant),
        rule("pa.param.mla_no_logn", kA2Only, "MLA requires scaleType TOR",
             "docs/spec/paged_attention.md 4.1 MLA, 4.6", MlaNoLogN),
        rule("pa.param.mla_bsnd", kA2Only, "MLA requires inputLayout BSND",
             "docs/spec/paged_attention.md 4.1 MLA", MlaBsnd),
        rule("pa.param.mla_kv_head_num_one", kA2Only, "MLA requires kvHeadNum == 1",
             "docs/spec/paged_attention.md 4.1 MLA", MlaKvHeadNumOne),
    };
}

}  // namespace atbx::ops::pa
