// PagedAttention dtype and format rules (docs/spec/paged_attention.md 2.4, 4.2): ATB checks every input
// against the columns of one [PagedAttentionOperation*] section of its ini table, chosen by the param. atbx
// encodes those columns as relations between roles, anchored on the query's dtype and the cache's format:
//   query        ND; int8 with QKV quant (2/3), else float16 or bfloat16
//   caches       int8 with any quant, else the query's dtype; K and V in one format
//   cache format ND on atlas-a2 and atlas-350, FRACTAL_NZ on atlas-inference and atlas-training
//   mask         the query's dtype (QKV quant: outDataType); the cache's format, or ND with calcType SPEC on
//                an NZ cache (ATB's QLens section)
//   index        blockTables, contextLens, batchRunStatus, qSeqLen: int32 ND
//   quant        DEQUANT: kDescale int64 or float, vDescale alike, offsets int32; QKV: descales, pScale float
//   razorOffset  float ND; logN float ND with an ND cache, float16 ND with an NZ cache
// Each rule defers to the rule of its anchor, so one wrong dtype breaks one rule. A mismatch is
// ERROR_INVALID_TENSOR_INI_MATCH, as in ATB; bfloat16 on the NZ products is ERROR_INVALID_TENSOR_DTYPE (ATB's
// CheckBF16), and the two kernel-only dtype limits are ERROR_INVALID_TENSOR_DTYPE.
#include <algorithm>
#include <initializer_list>

#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kDtype = Stage::kDtypeFormat;

std::string Named(const S& s, Input input) {
    const TensorDesc& desc = s.Desc(input);
    return core::StrCat(InputName(input), ' ', DataTypeName(desc.dtype), ' ', FormatName(desc.format));
}

bool KnownFormat(aclFormat format) {
    return format == ACL_FORMAT_ND || format == ACL_FORMAT_FRACTAL_NZ;
}

// The query's dtype when pa.dtype.query accepts it (the anchor of the cache and mask dtypes).
bool QueryValid(const S& s) {
    const TensorDesc& q = s.Desc(Input::kQuery);
    if (q.format != ACL_FORMAT_ND) return false;
    return s.QkvQuant() ? q.dtype == ACL_INT8 : IsHalf(q.dtype);
}

bool CacheFormatValid(const S& s) {
    return KnownFormat(s.Desc(Input::kKeyCache).format);
}

Verdict QueryDtype(const S& s) {
    const TensorDesc& q = s.Desc(Input::kQuery);
    if (q.format != ACL_FORMAT_ND) return Fail("query must be ND, got ", Named(s, Input::kQuery));
    if (s.QkvQuant()) {
        return Require(q.dtype == ACL_INT8, "query must be int8 with quantType ", s.param->quantType,
                       ", got ", Named(s, Input::kQuery));
    }
    return Require(IsHalf(q.dtype), "query must be float16 or bfloat16, got ", Named(s, Input::kQuery));
}

Verdict CacheDtype(const S& s) {
    const TensorDesc& k = s.Desc(Input::kKeyCache);
    if (!KnownFormat(k.format))
        return Fail("keyCache must be ND or FRACTAL_NZ, got ", Named(s, Input::kKeyCache));
    if (s.Has(Input::kValueCache) && s.Desc(Input::kValueCache).format != k.format) {
        return Fail("valueCache must have keyCache's format, got ", Named(s, Input::kKeyCache), " and ",
                    Named(s, Input::kValueCache));
    }
    if (!QueryValid(s)) return Pass();  // pa.dtype.query
    const bool quant = s.param->quantType != Param::TYPE_QUANT_UNQUANT;
    const aclDataType want = quant ? ACL_INT8 : s.Desc(Input::kQuery).dtype;
    for (Input cache : {Input::kKeyCache, Input::kValueCache}) {
        if (!s.Has(cache)) continue;
        if (s.Desc(cache).dtype != want) {
            return Fail(InputName(cache), " must be ", DataTypeName(want),
                        quant ? " with quantType 1, 2 or 3" : " (the query's dtype)", ", got ",
                        Named(s, cache));
        }
    }
    return Pass();
}

Verdict CacheFormat(const S& s) {
    if (!CacheFormatValid(s)) return Pass();  // pa.dtype.cache
    const bool nzProfile = s.platform == kInference || s.platform == kTraining;
    const aclFormat want = nzProfile ? ACL_FORMAT_FRACTAL_NZ : ACL_FORMAT_ND;
    return Require(s.Desc(Input::kKeyCache).format == want, "keyCache and valueCache must be ",
                   FormatName(want), " on ", PlatformName(s.platform), ", got ", Named(s, Input::kKeyCache));
}

Verdict IndexDtypes(const S& s) {
    for (Input input : {Input::kBlockTables, Input::kContextLens, Input::kQSeqLen, Input::kBatchRunStatus}) {
        if (!s.Has(input)) continue;
        const TensorDesc& desc = s.Desc(input);
        if (desc.dtype != ACL_INT32 || desc.format != ACL_FORMAT_ND)
            return Fail(InputName(input), " must be int32 ND, got ", Named(s, input));
    }
    return Pass();
}

Verdict MaskDtype(const S& s) {
    if (!s.Has(Input::kMask)) return Pass();
    const TensorDesc& mask = s.Desc(Input::kMask);
    if (s.QkvQuant()) {
        const aclDataType out = s.param->outDataType;
        if (IsHalf(out) && mask.dtype != out) {
            return Fail("mask must have outDataType's dtype ", DataTypeName(out), " with quantType ",
                        s.param->quantType, ", got ", Named(s, Input::kMask));
        }
    } else if (QueryValid(s) && mask.dtype != s.Desc(Input::kQuery).dtype) {
        return Fail("mask must have the query's dtype ", DataTypeName(s.Desc(Input::kQuery).dtype), ", got ",
                    Named(s, Input::kMask));
    }
    if (!CacheFormatValid(s)) return Pass();  // pa.dtype.cache
    const aclFormat cacheFormat = s.Desc(Input::kKeyCache).format;
    if (mask.format == cacheFormat) return Pass();
    const bool ndWithNzCache =
        s.Spec() && cacheFormat == ACL_FORMAT_FRACTAL_NZ && mask.format == ACL_FORMAT_ND;
    return Require(ndWithNzCache, "mask must have the caches' format ", FormatName(cacheFormat),
                   s.Spec() && cacheFormat == ACL_FORMAT_FRACTAL_NZ ? " or ND" : "", ", got ",
                   Named(s, Input::kMask));
}

Verdict CheckDtype(const S& s, Input input, std::initializer_list<aclDataType> allowed, const char* what) {
    if (!s.Has(input)) return Pass();
    const TensorDesc& desc = s.Desc(input);
    const bool dtypeOk = std::find(allowed.begin(), allowed.end(), desc.dtype) != allowed.end();
    return Require(dtypeOk && desc.format == ACL_FORMAT_ND, InputName(input), " must be ", what, " ND, got ",
                   Named(s, input));
}

Verdict QuantScaleDtypes(const S& s) {
    if (s.Dequant()) {
        if (auto v = CheckDtype(s, Input::kKDescale, {ACL_INT64, ACL_FLOAT}, "int64 or float")) return v;
        if (s.Desc(Input::kVDescale).dtype != s.Desc(Input::kKDescale).dtype ||
            s.Desc(Input::kVDescale).format != ACL_FORMAT_ND) {
            return Fail("vDescale must be ND with kDescale's dtype, got ", Named(s, Input::kKDescale),
                        " and ", Named(s, Input::kVDescale));
        }
        if (auto v = CheckDtype(s, Input::kKOffset, {ACL_INT32}, "int32")) return v;
        return CheckDtype(s, Input::kVOffset, {ACL_INT32}, "int32");
    }
    for (Input input : {Input::kKDescale, Input::kVDescale, Input::kPScale}) {
        if (auto v = CheckDtype(s, input, {ACL_FLOAT}, "float")) return v;
    }
    return Pass();
}

Verdict RazorOffsetDtype(const S& s) {
    return CheckDtype(s, Input::kRazorOffset, {ACL_FLOAT}, "float");
}

Verdict LogNDtype(const S& s) {
    if (!s.Has(Input::kLogN) || !CacheFormatValid(s)) return Pass();
    const bool nz = s.Desc(Input::kKeyCache).format == ACL_FORMAT_FRACTAL_NZ;
    return nz ? CheckDtype(s, Input::kLogN, {ACL_FLOAT16}, "float16 (NZ caches)")
              : CheckDtype(s, Input::kLogN, {ACL_FLOAT}, "float (ND caches)");
}

Verdict Float16Only(const S& s) {
    for (size_t i = 0; i < s.inputs.size(); ++i) {
        if (s.inputs[i].dtype == ACL_BF16) {
            return Fail(s.InputLabel(i), " is bfloat16; ", PlatformName(s.platform),
                        " supports float16 only (query, caches, mask)");
        }
    }
    return Pass();
}

Verdict DequantBf16Int64Descale(const S& s) {
    if (!s.Dequant()) return Pass();
    const bool bf16 = s.Desc(Input::kQuery).dtype == ACL_BF16;
    return Require(
        !bf16 || s.Desc(Input::kKDescale).dtype != ACL_INT64,
        "a bfloat16 query needs float kDescale/vDescale; int64 descales work with a float16 query only");
}

Verdict CompressDequantFp16Query(const S& s) {
    if (!s.Dequant() || !s.Compressed()) return Pass();
    return Require(s.Desc(Input::kQuery).dtype == ACL_FLOAT16,
                   "KV-head compression with int8 caches needs a float16 query, got ",
                   Named(s, Input::kQuery));
}

constexpr std::string_view kIni = "docs/spec/paged_attention.md 2.4, 4.2; ATB ops_configs/atb_ops_info.ini";

}  // namespace

std::vector<PaRule> DtypeRules() {
    const auto ini = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                        Verdict (*check)(const S&)) {
        return MakeRule(id, kDtype, profiles, ERROR_INVALID_TENSOR_INI_MATCH, condition, kIni, check);
    };
    return {
        ini("pa.dtype.query", kAll, "query is float16 or bfloat16 ND (int8 with QKV quant)", QueryDtype),
        ini("pa.dtype.cache", kAll,
            "keyCache and valueCache share one format (ND or FRACTAL_NZ) and have the query's dtype (int8 "
            "with "
            "quantType 1, 2, 3)",
            CacheDtype),
        MakeRule("pa.dtype.cache_format", kDtype, kAll, ERROR_INVALID_TENSOR_INI_MATCH,
                 "caches are ND on atlas-a2 and atlas-350, FRACTAL_NZ on atlas-inference and atlas-training",
                 "seed: 'If the format of keyCache and valueCache is NZ ...'; DECISIONS profiles; "
                 "docs/spec/paged_attention.md 2.3, 4.7",
                 CacheFormat),
        ini("pa.dtype.index_tensors", kAll,
            "blockTables, contextLens, qSeqLen and batchRunStatus are int32 ND", IndexDtypes),
        ini("pa.dtype.mask", kAll,
            "mask has the query's dtype (outDataType with QKV quant) and the caches' format (ND also allowed "
            "with "
            "calcType SPEC on NZ caches)",
            MaskDtype),
        ini("pa.dtype.quant_scales", kAll,
            "DEQUANT: kDescale int64 or float, vDescale the same, offsets int32; QKV quant: kDescale, "
            "vDescale, "
            "pScale float; all ND",
            QuantScaleDtypes),
        ini("pa.dtype.razor_offset", kAll, "razorOffset is float ND", RazorOffsetDtype),
        ini("pa.dtype.log_n", kAll, "logN is float ND with ND caches, float16 ND with NZ caches", LogNDtype),
        MakeRule(
            "pa.dtype.float16_only", kDtype, kNzProfiles, ERROR_INVALID_TENSOR_DTYPE, "no input is bfloat16",
            "seed: 'On Atlas inference products: The query, keyCache, valueCache, and maskTensor input "
            "parameters support only float16.'; 'The mask data type can only be float16.' (NORM_COMPRESS); "
            "'The input and output restrictions of Atlas training products and Atlas inference products are "
            "the same.'; ATB CheckBF16",
            Float16Only),
        MakeRule("pa.dtype.dequant_bf16_int64_descale", kDtype, kA2Only, ERROR_INVALID_TENSOR_DTYPE,
                 "a bfloat16 query with DEQUANT needs float descales",
                 "DECISIONS 10; docs/spec/paged_attention.md 2.4, 7.11 (no kernel for bf16 + int64 descale)",
                 DequantBf16Int64Descale),
        MakeRule("pa.dtype.compress_dequant_fp16_query", kDtype, kA2Only, ERROR_INVALID_TENSOR_DTYPE,
                 "KV-head compression with int8 caches needs a float16 query",
                 "docs/spec/paged_attention.md 3.4, 4.5 (dequant + compression)", CompressDequantFp16Query),
    };
}

}  // namespace atbx::ops::pa
