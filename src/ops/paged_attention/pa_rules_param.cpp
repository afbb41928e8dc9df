// PagedAttention param rules (CreateOperation), part 1: reserved bytes, enum ranges, ATB's common checks, and
// which features each platform profile has (docs/spec/paged_attention.md 4.1 common and device checks, 4.7;
// the seed; docs/spec/DECISIONS.md profiles).

#include <cmath>
#include <utility>

#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kParam = Stage::kParam;

Verdict RsvZero(const S& s) {
    return rules::RequireReservedZero(s.param->rsv);
}

Verdict HeadNumPositive(const S& s) {
    return Require(s.param->headNum > 0, "headNum must be > 0, got ", s.param->headNum);
}

Verdict KvHeadNumNonNegative(const S& s) {
    return Require(s.param->kvHeadNum >= 0, "kvHeadNum must be >= 0 (0 means headNum), got ",
                   s.param->kvHeadNum);
}

Verdict HeadNumDivisible(const S& s) {
    const auto& p = *s.param;
    if (p.kvHeadNum <= 0 || p.headNum <= 0) return Pass();
    return Require(p.headNum % p.kvHeadNum == 0, "headNum must be a multiple of kvHeadNum, got headNum ",
                   p.headNum, " and kvHeadNum ", p.kvHeadNum);
}

// A non-finite scale makes every score NaN (docs/spec/DECISIONS.md numeric semantics); no caller means it.
Verdict ScalesFinite(const S& s) {
    for (const auto& [name, value] :
         {std::pair{"qkScale", s.param->qkScale}, std::pair{"qScale", s.param->qScale}}) {
        if (!std::isfinite(value)) return Fail(name, " must be a finite float, got ", value);
    }
    return Pass();
}

Verdict MaskTypeRange(const S& s) {
    const int v = s.param->maskType;
    return Require(v >= 0 && v <= Param::MASK_TYPE_NORM_COMPRESS, "maskType must be in [0, 5], got ", v);
}

Verdict QuantTypeRange(const S& s) {
    const int v = s.param->quantType;
    return Require(v >= 0 && v <= Param::TYPE_QUANT_QKV_ONLINE, "quantType must be in [0, 3], got ", v);
}

Verdict CalcTypeRange(const S& s) {
    const int v = s.param->calcType;
    return Require(v == 0 || v == 1, "calcType must be 0 (UNDEFINED) or 1 (SPEC), got ", v);
}

Verdict InputLayoutRange(const S& s) {
    const int v = s.param->inputLayout;
    return Require(v == 0 || v == 1, "inputLayout must be 0 (TYPE_BSND) or 1 (TYPE_BNSD), got ", v);
}

Verdict CompressTypeRange(const S& s) {
    const int v = s.param->compressType;
    return Require(v >= 0 && v < Param::COMPRESS_TYPE_MAX, "compressType must be in [0, 3), got ", v);
}

Verdict ScaleTypeRange(const S& s) {
    const int v = s.param->scaleType;
    return Require(v >= 0 && v < Param::SCALE_TYPE_MAX, "scaleType must be in [0, 2), got ", v);
}

Verdict MlaVHeadSizeMax(const S& s) {
    return Require(s.param->mlaVHeadSize <= kHeadSizeMax, "mlaVHeadSize must be <= ", kHeadSizeMax, ", got ",
                   s.param->mlaVHeadSize);
}

Verdict Atlas350QkScale(const S& s) {
    const float v = s.param->qkScale;
    return Require(v > 0.0f && v <= 1.0f, "qkScale must be in (0, 1] on atlas-350, got ", v);
}

Verdict Atlas350QuantType(const S& s) {
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT,
                   "quantType must be TYPE_QUANT_UNQUANT (0) on atlas-350, got ", s.param->quantType);
}

Verdict Atlas350InputLayout(const S& s) {
    return Require(s.param->inputLayout == infer::TYPE_BSND,
                   "inputLayout must be TYPE_BSND (0) on atlas-350, got ", s.param->inputLayout);
}

Verdict Atlas350BasicOnly(const S& s) {
    const Param& p = *s.param;
    if (p.maskType != Param::UNDEFINED)
        return Fail("atlas-350 supports no mask: maskType must be UNDEFINED, got ", MaskTypeName(p.maskType));
    if (p.batchRunStatusEnable)
        return Fail("atlas-350 supports no batchRunStatus: batchRunStatusEnable is true");
    if (p.compressType != Param::COMPRESS_TYPE_UNDEFINED)
        return Fail("atlas-350 supports no KV-head compression: compressType must be 0, got ",
                    p.compressType);
    if (p.calcType != Param::CALC_TYPE_UNDEFINED)
        return Fail("atlas-350 supports no parallel decoding: calcType must be 0, got ", p.calcType);
    if (p.scaleType != Param::SCALE_TYPE_TOR)
        return Fail("atlas-350 supports no logN: scaleType must be SCALE_TYPE_TOR (0), got ", p.scaleType);
    if (p.mlaVHeadSize != 0)
        return Fail("atlas-350 supports no MLA: mlaVHeadSize must be 0, got ", p.mlaVHeadSize);
    if (QScaleOn(s))
        return Fail("atlas-350 supports no query pre-scaling: qScale must be 0 or 1, got ", p.qScale);
    return Pass();
}

Verdict NormCompressAtlasInferenceOnly(const S& s) {
    return Require(!NormCompress(s),
                   "maskType MASK_TYPE_NORM_COMPRESS is only supported on atlas-inference, ",
                   "the profile is ", PlatformName(s.platform));
}

Verdict BatchRunStatusAtlasA2Only(const S& s) {
    return Require(!s.param->batchRunStatusEnable, "batchRunStatusEnable is only supported on atlas-a2, ",
                   "the profile is ", PlatformName(s.platform));
}

Verdict CompressAtlasA2Only(const S& s) {
    return Require(!s.Compressed(), "compressType ", s.param->compressType,
                   " (KV-head compression) is only supported on atlas-a2, the profile is ",
                   PlatformName(s.platform));
}

Verdict MlaAtlasA2Only(const S& s) {
    return Require(!s.Mla(), "mlaVHeadSize ", s.param->mlaVHeadSize, " (MLA) is only supported on atlas-a2, ",
                   "the profile is ", PlatformName(s.platform));
}

Verdict QuantAtlasA2Only(const S& s) {
    return Require(s.param->quantType == Param::TYPE_QUANT_UNQUANT, "quantType ", s.param->quantType,
                   " is only supported on atlas-a2; quantType must be 0 on ", PlatformName(s.platform));
}

Verdict TrainingBasicOnly(const S& s) {
    const Param& p = *s.param;
    if (p.maskType == Param::MASK_TYPE_SPEC || p.maskType == Param::MASK_TYPE_MASK_FREE) {
        return Fail("atlas-training supports maskType UNDEFINED, MASK_TYPE_NORM or MASK_TYPE_ALIBI, got ",
                    MaskTypeName(p.maskType));
    }
    if (p.calcType != Param::CALC_TYPE_UNDEFINED)
        return Fail("atlas-training supports no parallel decoding: calcType must be 0, got ", p.calcType);
    if (p.scaleType != Param::SCALE_TYPE_TOR)
        return Fail("atlas-training supports no logN: scaleType must be SCALE_TYPE_TOR (0), got ",
                    p.scaleType);
    if (p.inputLayout != infer::TYPE_BSND)
        return Fail("atlas-training supports TYPE_BSND only: inputLayout must be 0, got ", p.inputLayout);
    if (QScaleOn(s))
        return Fail("atlas-training uses default feature params: qScale must be 0 or 1, got ", p.qScale);
    return Pass();
}

constexpr std::string_view kNotRangeChecked =
    "docs/spec/paged_attention.md 4.1 (not range-checked by ATB; atbx rejects)";
constexpr std::string_view k350Seed =
    "seed: 'Atlas 350 accelerator cards support only basic use cases.'; docs/spec/paged_attention.md 2.1 "
    "(950: no "
    "features)";
constexpr std::string_view kA2OnlySource =
    "docs/spec/paged_attention.md 4.1 device checks (not Is910B); 4.7 platform summary";
constexpr std::string_view kTrainingSeed =
    "seed: 'The Atlas training products support only the basic functions when maskType is UNDEFINED, "
    "MASK_TYPE_NORM, or MASK_TYPE_ALIBI. For other feature parameters, use the default values.'; "
    "docs/spec/paged_attention.md 4.1 device checks (910A)";

}  // namespace

std::vector<PaRule> ParamRules() {
    const auto rule = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                         std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, kParam, profiles, ERROR_INVALID_PARAM, condition, source, check);
    };
    return {
        rule("pa.param.rsv_zero", kAll, "rsv is all zero",
             "docs/spec/paged_attention.md 1 (OP_PARAM_RSV_CHECK)", RsvZero),
        rule("pa.param.head_num_positive", kAll, "headNum > 0", "docs/spec/paged_attention.md 4.1 common",
             HeadNumPositive),
        rule("pa.param.kv_head_num_non_negative", kAll, "kvHeadNum >= 0",
             "docs/spec/paged_attention.md 4.1 common", KvHeadNumNonNegative),
        rule("pa.param.head_num_divisible", kAll, "kvHeadNum == 0 or headNum % kvHeadNum == 0",
             "seed: 'To use the GQA mode, the following conditions must be met: headNum > kvHeadNum and "
             "headNum%kvHeadNum == 0'; docs/spec/paged_attention.md 4.1 common",
             HeadNumDivisible),
        rule("pa.param.scales_finite", kAll, "qkScale and qScale are finite",
             "atbx: a NaN or infinite scale makes every output NaN; docs/decisions.md", ScalesFinite),
        rule("pa.param.mask_type_range", kAll, "maskType in [0, 5]", kNotRangeChecked, MaskTypeRange),
        rule("pa.param.quant_type_range", kAll, "quantType in [0, 3]", kNotRangeChecked, QuantTypeRange),
        rule("pa.param.calc_type_range", kAll, "calcType in {0, 1}", kNotRangeChecked, CalcTypeRange),
        rule("pa.param.input_layout_range", kAll, "inputLayout in {0, 1}", kNotRangeChecked,
             InputLayoutRange),
        rule("pa.param.compress_type_range", kAll, "compressType in [0, COMPRESS_TYPE_MAX)",
             "docs/spec/paged_attention.md 4.1 compress", CompressTypeRange),
        rule("pa.param.scale_type_range", kAll, "scaleType in [0, SCALE_TYPE_MAX)",
             "docs/spec/paged_attention.md 4.1 logN", ScaleTypeRange),
        rule("pa.param.mla_v_head_size_max", kA2Only, "mlaVHeadSize <= 576",
             "docs/spec/paged_attention.md 4.1 MLA", MlaVHeadSizeMax),
        rule("pa.param.atlas350_qk_scale_range", k350Only, "0 < qkScale <= 1",
             "docs/spec/paged_attention.md 4.1 (950)", Atlas350QkScale),
        rule("pa.param.atlas350_quant_type", k350Only, "quantType == TYPE_QUANT_UNQUANT",
             "docs/spec/paged_attention.md 4.1 (950)", Atlas350QuantType),
        rule("pa.param.atlas350_input_layout", k350Only, "inputLayout == TYPE_BSND",
             "docs/spec/paged_attention.md 4.1 (950)", Atlas350InputLayout),
        rule("pa.param.atlas350_basic_only", k350Only,
             "plain decode only: maskType UNDEFINED, no batchRunStatus, no compression, calcType 0, "
             "scaleType TOR, "
             "mlaVHeadSize 0, qScale 0 or 1",
             k350Seed, Atlas350BasicOnly),
        rule("pa.param.norm_compress_atlas_inference_only", ProfileSet{kA2, kTraining},
             "maskType MASK_TYPE_NORM_COMPRESS only on atlas-inference",
             "seed: 'On Atlas inference products: ... When maskType is set to 5 (MASK_TYPE_NORM_COMPRESS)'; "
             "docs/spec/paged_attention.md 4.1 device (NORM_COMPRESS must be 310P)",
             NormCompressAtlasInferenceOnly),
        rule("pa.param.batch_run_status_atlas_a2_only", kNzProfiles, "batchRunStatusEnable only on atlas-a2",
             kA2OnlySource, BatchRunStatusAtlasA2Only),
        rule("pa.param.compress_atlas_a2_only", kNzProfiles, "compressType 0 except on atlas-a2",
             kA2OnlySource, CompressAtlasA2Only),
        rule("pa.param.mla_atlas_a2_only", kNzProfiles, "mlaVHeadSize 0 except on atlas-a2", kA2OnlySource,
             MlaAtlasA2Only),
        rule("pa.param.quant_atlas_a2_only", kNzProfiles, "quantType 0 except on atlas-a2",
             "docs/spec/paged_attention.md 4.1 device checks; seed (NORM_COMPRESS): 'Quantization is not "
             "supported. "
             "quantType must be TYPE_QUANT_UNQUANT.'",
             QuantAtlasA2Only),
        rule("pa.param.training_basic_only", kTrainingOnly,
             "maskType not SPEC or MASK_FREE, calcType 0, scaleType TOR, inputLayout BSND, qScale 0 or 1",
             kTrainingSeed, TrainingBasicOnly),
    };
}

}  // namespace atbx::ops::pa
