// ReshapeAndCache dtype and format rules: ATB's ini tables (rac_dtype_table.h) and the products' dtypes.
#include <algorithm>

#include "ops/reshape_and_cache/rac_dtype_table.h"
#include "ops/reshape_and_cache/rac_rule_support.h"

namespace atbx::ops::rac {
namespace {

constexpr Input kIndexInputs[] = {Input::kSlotMapping, Input::kWins, Input::kSeqLen, Input::kOffsetIndex};
constexpr Input kNdInputs[] = {Input::kKey,  Input::kValue,  Input::kSlotMapping,
                               Input::kWins, Input::kSeqLen, Input::kOffsetIndex};

Verdict IndexInt32(const S& s) {
    for (Input input : kIndexInputs) {
        if (!s.Has(input)) continue;
        const aclDataType got = s.Desc(input).dtype;
        if (got != ACL_INT32) return Fail(InputName(input), " must be int32, got ", DataTypeName(got));
    }
    return Pass();
}

aclDataType DtypeOr(const S& s, Input input, aclDataType absent) {
    return s.Has(input) ? s.Desc(input).dtype : absent;
}

Verdict KvCombination(const S& s) {
    const DtypeTable& table = TableFor(s);
    const aclDataType key = s.Desc(Input::kKey).dtype;
    const aclDataType value = DtypeOr(s, Input::kValue, ACL_DT_UNDEFINED);
    const bool listed = std::any_of(table.combinations.begin(), table.combinations.end(),
                                    [&](const KvDtypes& c) { return c.key == key && c.value == value; });
    if (!listed) {
        return Fail("key/value dtypes must be one of ", CombinationsText(table), " (ini ", table.section,
                    "), got ", DataTypeName(key), s.Has(Input::kValue) ? "/" : "",
                    s.Has(Input::kValue) ? DataTypeName(value) : "");
    }
    for (auto [cache, stored] :
         {std::pair{Input::kKeyCache, Input::kKey}, {Input::kValueCache, Input::kValue}}) {
        if (!s.Has(cache)) continue;
        const aclDataType want = s.Desc(stored).dtype;
        const aclDataType got = s.Desc(cache).dtype;
        if (got != want) {
            return Fail(InputName(cache), " must have ", InputName(stored), "'s dtype ", DataTypeName(want),
                        " (ini ", table.section, "), got ", DataTypeName(got));
        }
    }
    return Pass();
}

Verdict NdInputs(const S& s) {
    for (Input input : kNdInputs) {
        if (!s.Has(input)) continue;
        const aclFormat got = s.Desc(input).format;
        if (got != ACL_FORMAT_ND) return Fail(InputName(input), " must be ND, got ", FormatName(got));
    }
    return Pass();
}

Verdict CacheFormat(const S& s) {
    const DtypeTable& table = TableFor(s);
    for (Input cache : {Input::kKeyCache, Input::kValueCache}) {
        if (!s.Has(cache)) continue;
        const aclFormat got = s.Desc(cache).format;
        if (got != table.cacheFormat) {
            return Fail(InputName(cache), " must be ", FormatName(table.cacheFormat), " on ",
                        PlatformName(s.platform), " with kvCacheCfg ", static_cast<int>(s.param->kvCacheCfg),
                        " (ini ", table.section, "), got ", FormatName(got));
        }
    }
    return Pass();
}

Verdict Float16OnNzProducts(const S& s) {
    for (Input input : {Input::kKey, Input::kValue, Input::kKeyCache, Input::kValueCache}) {
        if (!s.Has(input)) continue;
        const aclDataType got = s.Desc(input).dtype;
        if (got != ACL_FLOAT16) {
            return Fail(InputName(input), " must be float16 on ", PlatformName(s.platform), ", got ",
                        DataTypeName(got),
                        got == ACL_BF16 ? " (the product has no bfloat16)"
                                        : " (int8 needs 32-channel NZ tiles, which the op's 16-channel cache "
                                          "shape check rules out)");
        }
    }
    return Pass();
}

constexpr const char* kIni = "ATB ops_configs/atb_ops_info.ini [ReshapeAndCacheOperation*]";

}  // namespace

std::vector<RacRule> DtypeRules() {
    const auto kAll = ProfileSet::All();
    const auto kIniMatch = ERROR_INVALID_TENSOR_INI_MATCH;
    return {
        {{"rac.dtype.index_int32", kOp, Stage::kDtypeFormat, kAll, kIniMatch,
          "slotMapping, wins, seqLen and offsetIndex are int32",
          "docs/spec/self_attention.md 4.1, 4.3; CSV rows 2, 13, 20"},
         IndexInt32},
        {{"rac.dtype.kv_combination", kOp, Stage::kDtypeFormat, kAll, kIniMatch,
          "key/value dtypes are a combination of the mode's ini section (float16, bfloat16 or int8, the same "
          "for "
          "both; KVHEAD_ROPE float16 or bfloat16; A2 NZ: int8 key with a float16 or bfloat16 value, or any "
          "mix "
          "of float16 and bfloat16), and each cache has the dtype of the tensor it stores",
          kIni},
         KvCombination},
        {{"rac.format.nd_inputs", kOp, Stage::kDtypeFormat, kAll, kIniMatch,
          "key, value, slotMapping, wins, seqLen and offsetIndex are ND", kIni},
         NdInputs},
        {{"rac.format.cache", kOp, Stage::kDtypeFormat, kAll, kIniMatch,
          "caches are FRACTAL_NZ on atlas-inference and atlas-training and with kvCacheCfg "
          "K_CACHE_V_CACHE_NZ, "
          "ND otherwise",
          "ATB ini [ReshapeAndCacheOperationAtlas300], [ReshapeAndCacheOperationAtlas800A2NZ]; CSV row 31"},
         CacheFormat},
        {{"rac.dtype.nz_products_float16",
          kOp,
          Stage::kDtypeFormat,
          {Platform::kAtlasInference, Platform::kAtlasTraining},
          ERROR_INVALID_TENSOR_DTYPE,
          "key, value and caches are float16 (no bfloat16 on these products; int8 keys need 32-channel NZ "
          "tiles "
          "that the op's cache shape check rejects)",
          "ATB TensorCheck::CheckBF16; docs/spec/self_attention.md 4.3 (310P: cache.dim3 == 16) against the "
          "NZ "
          "kernel's "
          "32-channel int8 tile; docs/spec/DECISIONS.md profiles (fp16 only)"},
         Float16OnNzProducts},
    };
}

}  // namespace atbx::ops::rac
