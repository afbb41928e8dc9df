// SelfAttention dtype and format rules: the combinations of ATB's ini tables ([SelfAttentionOperation*] in
// ops_configs/atb_ops_info.ini), encoded as logic: q/k/v/caches share the query's dtype, masks follow it (the
// output dtype under QKV quant), length tensors are int32 (or uint32 where the ini lists it), and the formats
// and platform dtypes of docs/spec/self_attention.md 5.3 (DtypeCheck, InferLogNCheck).
#include <initializer_list>

#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

bool IsHalf(aclDataType dtype) {
    return dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}

aclDataType QueryDtype(const S& s) {
    return s.Desc(Input::kQuery).dtype;
}

// The query has a dtype the ini accepts (sa.dtype.query reports the others).
bool QueryDtypeKnown(const S& s) {
    return s.QkvQuant() ? QueryDtype(s) == ACL_INT8 : IsHalf(QueryDtype(s));
}

// The dtype of the attention's floating-point side: the query's, or outDataType under QKV quant.
aclDataType ActivationDtype(const S& s) {
    return s.QkvQuant() ? s.param->outDataType : QueryDtype(s);
}

std::string Label(Input input) {
    return InputName(input);
}

Verdict NeedFormat(const S& s, Input input, aclFormat format) {
    if (!s.Has(input)) return Pass();
    const aclFormat got = s.Desc(input).format;
    return Require(got == format, Label(input), " must be ", FormatName(format), ", got ", FormatName(got),
                   " (format ", static_cast<int>(got), ")");
}

Verdict QueryDtypeRule(const S& s) {
    const aclDataType q = QueryDtype(s);
    if (s.QkvQuant())
        return Require(q == ACL_INT8, "query must be int8 with QKV quant, got ", DataTypeName(q));
    return Require(IsHalf(q), "query must be float16 or bfloat16, got ", DataTypeName(q));
}

Verdict QueryFp16OnNz(const S& s) {
    const aclDataType q = QueryDtype(s);
    if (!IsHalf(q)) return Pass();
    return Require(q == ACL_FLOAT16, PlatformName(s.platform), " supports float16 only, got query ",
                   DataTypeName(q));
}

Verdict PaBnsdBf16(const S& s) {
    if (!s.Bnsd() || s.mode != Mode::kPaEncoder || !IsHalf(QueryDtype(s))) return Pass();
    return Require(QueryDtype(s) == ACL_BF16, "PA_ENCODER with TYPE_BNSD takes bfloat16 q/k/v, got ",
                   DataTypeName(QueryDtype(s)));
}

Verdict KeyValueDtype(const S& s) {
    if (!QueryDtypeKnown(s)) return Pass();
    const aclDataType want = QueryDtype(s);
    for (Input input : {Input::kKey, Input::kValue, Input::kCacheK, Input::kCacheV}) {
        if (!s.Has(input)) continue;
        const aclDataType got = s.Desc(input).dtype;
        if (got != want)
            return Fail(Label(input), " must have the query's dtype ", DataTypeName(want), ", got ",
                        DataTypeName(got));
    }
    return Pass();
}

Verdict QkvFormat(const S& s) {
    for (Input input : {Input::kQuery, Input::kKey, Input::kValue}) {
        if (auto v = NeedFormat(s, input, ACL_FORMAT_ND)) return v;
    }
    return Pass();
}

bool NdOrNz(aclFormat format) {
    return format == ACL_FORMAT_ND || format == ACL_FORMAT_FRACTAL_NZ;
}

Verdict CacheFormatIni(const S& s) {
    for (Input cache : {Input::kCacheK, Input::kCacheV}) {
        if (!s.Has(cache)) continue;
        const aclFormat got = s.Desc(cache).format;
        if (!NdOrNz(got)) {
            return Fail(Label(cache), " must be ND or FRACTAL_NZ, got format ", static_cast<int>(got));
        }
    }
    return Pass();
}

Verdict CacheFormatPlatform(const S& s) {
    const aclFormat want = NzPlatform(s.platform) ? ACL_FORMAT_FRACTAL_NZ : ACL_FORMAT_ND;
    for (Input cache : {Input::kCacheK, Input::kCacheV}) {
        if (!s.Has(cache)) continue;
        const aclFormat got = s.Desc(cache).format;
        if (NdOrNz(got) && got != want) {
            return Fail(Label(cache), " must be ", FormatName(want), " on ", PlatformName(s.platform),
                        ", got ", FormatName(got));
        }
    }
    return Pass();
}

bool Mask350Flags(const S& s) {
    return s.platform == Platform::kAtlas350 && (s.param->maskType == Param::MASK_TYPE_NORM ||
                                                 s.param->maskType == Param::MASK_TYPE_NORM_COMPRESS);
}

Verdict MaskDtype(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const aclDataType got = s.Desc(Input::kMask).dtype;
    if (Mask350Flags(s)) {
        return Require(got == ACL_INT8 || got == ACL_BOOL || got == ACL_UINT8,
                       "atlas-350 NORM masks are int8, bool or uint8, got ", DataTypeName(got));
    }
    if (!QueryDtypeKnown(s)) return Pass();
    const aclDataType want = ActivationDtype(s);
    if (!IsHalf(want)) return Pass();  // outDataType: sa.param.quant_out_data_type
    return Require(got == want, "attentionMask must be ", DataTypeName(want),
                   s.QkvQuant() ? " (outDataType)" : " (the query's dtype)", ", got ", DataTypeName(got));
}

Verdict MaskFormat(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const aclFormat got = s.Desc(Input::kMask).format;
    if (NzPlatform(s.platform)) {
        return Require(NdOrNz(got), "attentionMask must be ND or FRACTAL_NZ, got format ",
                       static_cast<int>(got));
    }
    return NeedFormat(s, Input::kMask, ACL_FORMAT_ND);
}

// The ini lists uint32 length tensors everywhere except the PA_ENCODER tables of atlas-a2/inference/training
// with the default layout and kernels.
bool Uint32LengthsListed(const S& s) {
    if (s.mode != Mode::kPaEncoder) return true;
    return s.Bnsd() || s.platform == Platform::kAtlas350 || s.param->kernelType == Param::KERNELTYPE_EXP_M8V2;
}

Verdict LengthTensorDtypes(const S& s) {
    const bool uint32Listed = Uint32LengthsListed(s);
    const Input kinds[] = {Input::kTokenOffset, Input::kSeqLen, Input::kKvSeqLen, Input::kLayerId,
                           Input::kBatchRunStatus};
    aclDataType first = ACL_DT_UNDEFINED;
    for (Input input : kinds) {
        if (!s.Has(input)) continue;
        const TensorDesc& desc = s.Desc(input);
        const bool ok = desc.dtype == ACL_INT32 || (uint32Listed && desc.dtype == ACL_UINT32);
        if (!ok) {
            return Fail(Label(input), " must be int32", uint32Listed ? " or uint32" : "", ", got ",
                        DataTypeName(desc.dtype));
        }
        if (first == ACL_DT_UNDEFINED) first = desc.dtype;
        if (desc.dtype != first) {
            return Fail("the length tensors share one dtype: ", Label(input), " is ",
                        DataTypeName(desc.dtype), ", an earlier one is ", DataTypeName(first));
        }
        if (auto v = NeedFormat(s, input, ACL_FORMAT_ND)) return v;
    }
    return Pass();
}

Verdict BlockTablesDtype(const S& s) {
    if (!s.Has(Input::kBlockTables)) return Pass();
    const aclDataType got = s.Desc(Input::kBlockTables).dtype;
    if (got != ACL_INT32) return Fail("blockTables must be int32, got ", DataTypeName(got));
    return NeedFormat(s, Input::kBlockTables, ACL_FORMAT_ND);
}

Verdict SlopesDtype(const S& s) {
    if (!s.Has(Input::kSlopes)) return Pass();
    const aclDataType got = s.Desc(Input::kSlopes).dtype;
    const bool nzMask = s.Has(Input::kMask) && s.Desc(Input::kMask).format == ACL_FORMAT_FRACTAL_NZ;
    if (nzMask)
        return Require(got == ACL_FLOAT16, "slopes must be float16 with a FRACTAL_NZ mask, got ",
                       DataTypeName(got));
    const bool halfAllowed = s.mode == Mode::kPaEncoder && ActivationDtype(s) == ACL_FLOAT16;
    if (got != ACL_FLOAT && !(halfAllowed && got == ACL_FLOAT16)) {
        return Fail("slopes must be float32", halfAllowed ? " or float16" : "", ", got ", DataTypeName(got));
    }
    return NeedFormat(s, Input::kSlopes, ACL_FORMAT_ND);
}

Verdict LognDtypeIni(const S& s) {
    if (!s.Has(Input::kLogN)) return Pass();
    const aclDataType got = s.Desc(Input::kLogN).dtype;
    if (got != ACL_FLOAT && got != ACL_FLOAT16)
        return Fail("logN must be float32 or float16, got ", DataTypeName(got));
    return NeedFormat(s, Input::kLogN, ACL_FORMAT_ND);
}

Verdict LognDtypePlatform(const S& s) {
    if (!s.Has(Input::kLogN)) return Pass();
    const aclDataType got = s.Desc(Input::kLogN).dtype;
    if (got != ACL_FLOAT && got != ACL_FLOAT16) return Pass();  // sa.dtype.logn
    const aclDataType want = NzPlatform(s.platform) ? ACL_FLOAT16 : ACL_FLOAT;
    return Require(got == want, "logN must be ", DataTypeName(want), " on ", PlatformName(s.platform),
                   ", got ", DataTypeName(got));
}

Verdict QuantScaleDtypes(const S& s) {
    const std::pair<Input, aclDataType> scales[] = {{Input::kQkDescale, ACL_FLOAT},
                                                    {Input::kQkOffset, ACL_INT32},
                                                    {Input::kVpvDescale, ACL_FLOAT},
                                                    {Input::kVpvOffset, ACL_INT32},
                                                    {Input::kPScale, ACL_FLOAT}};
    for (const auto& [input, want] : scales) {
        if (!s.Has(input)) continue;
        const aclDataType got = s.Desc(input).dtype;
        if (got != want)
            return Fail(Label(input), " must be ", DataTypeName(want), ", got ", DataTypeName(got));
        if (auto v = NeedFormat(s, input, ACL_FORMAT_ND)) return v;
    }
    return Pass();
}

constexpr std::string_view kIni = "ATB ops_configs/atb_ops_info.ini [SelfAttentionOperation*]";

}  // namespace

std::vector<SaRule> DtypeRules() {
    const Stage d = Stage::kDtypeFormat;
    const ErrorType ini = ERROR_INVALID_TENSOR_INI_MATCH;
    return {
        MakeRule("sa.dtype.query", d, kAllProfiles, ini, "query is float16 or bfloat16 (int8 with QKV quant)",
                 kIni, QueryDtypeRule),
        MakeRule("sa.dtype.query_fp16_nz", d, kNzProfiles, ini,
                 "atlas-inference and atlas-training: float16 only",
                 "docs/spec/DECISIONS.md profiles; docs/spec/self_attention.md 5.4 (bf16 on 310P/910A: no)",
                 QueryFp16OnNz),
        MakeRule("sa.dtype.pa_bnsd_bf16", d, kA2Only, ini, "PA_ENCODER with TYPE_BNSD: bfloat16 q/k/v",
                 "ATB ini [SelfAttentionOperationEncoderBNSD]", PaBnsdBf16),
        MakeRule("sa.dtype.key_value", d, kAllProfiles, ini,
                 "key, value, cacheK and cacheV have the query's dtype", kIni, KeyValueDtype),
        MakeRule("sa.format.qkv_nd", d, kAllProfiles, ini, "query, key and value are ND", kIni, QkvFormat),
        MakeRule("sa.format.cache_ini", d, kAllProfiles, ini, "cacheK and cacheV are ND or FRACTAL_NZ", kIni,
                 CacheFormatIni),
        MakeRule("sa.format.cache_platform", d, kAllProfiles, ERROR_INVALID_TENSOR_DTYPE,
                 "cacheK and cacheV are ND on atlas-a2 and atlas-350, FRACTAL_NZ on atlas-inference and "
                 "atlas-training",
                 "docs/spec/self_attention.md 5.3 (DtypeCheck)", CacheFormatPlatform),
        MakeRule(
            "sa.dtype.mask", d, kAllProfiles, ini,
            "attentionMask has the query's dtype (outDataType with QKV quant; int8, bool or uint8 for NORM "
            "masks on atlas-350)",
            "ATB ini; docs/spec/self_attention.md 2.4, 3.4; docs/decisions.md (EXP_M8V2 masks are float16)",
            MaskDtype),
        MakeRule("sa.format.mask", d, kAllProfiles, ini,
                 "attentionMask is ND (ND or FRACTAL_NZ on atlas-inference and atlas-training)",
                 "ATB ini; docs/spec/self_attention.md 2.4 (310P: ND or NZ)", MaskFormat),
        MakeRule(
            "sa.dtype.length_tensors", d, kAllProfiles, ini,
            "tokenOffset, seqLen, kvSeqLen, layerId and batchRunStatus are ND int32, or all uint32 where the "
            "ini lists uint32 (not for PA_ENCODER BSND outside atlas-350 and EXP_M8V2)",
            kIni, LengthTensorDtypes),
        MakeRule("sa.dtype.block_tables", d, kAllProfiles, ini, "blockTables is ND int32", kIni,
                 BlockTablesDtype),
        MakeRule("sa.dtype.slopes", d, kAllProfiles, ini,
                 "slopes is ND float32, or float16 in PA_ENCODER with float16 attention; float16 with a "
                 "FRACTAL_NZ "
                 "mask",
                 kIni, SlopesDtype),
        MakeRule("sa.dtype.logn", d, kAllProfiles, ini, "logN is ND float32 or float16", kIni, LognDtypeIni),
        MakeRule("sa.dtype.logn_platform", d, kAllProfiles, ERROR_INVALID_TENSOR_DTYPE,
                 "logN is float32 on atlas-a2 and atlas-350, float16 on atlas-inference and atlas-training",
                 "docs/spec/self_attention.md 5.3 (InferLogNCheck)", LognDtypePlatform),
        MakeRule("sa.dtype.quant_scales", d, kAllProfiles, ini,
                 "qkDescale, vpvDescale, pScale are ND float32; qkOffset, vpvOffset ND int32", kIni,
                 QuantScaleDtypes),
    };
}

}  // namespace atbx::ops::sa
