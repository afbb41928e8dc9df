// ReshapeAndCache param rules (CreateOperation): docs/spec/self_attention.md 1.3 and 4.3.

#include "ops/reshape_and_cache/rac_rule_support.h"

namespace atbx::ops::rac {
namespace {

Verdict RsvZero(const S& s) {
    return rules::RequireReservedZero(s.param->rsv);
}

Verdict CompressTypeRange(const S& s) {
    const int type = s.param->compressType;
    return Require(type >= Param::COMPRESS_TYPE_UNDEFINED && type <= Param::COMPRESS_TYPE_KVHEAD_ROPE,
                   "compressType must be in [0, 2] (UNDEFINED, KVHEAD, KVHEAD_ROPE), got ", type);
}

Verdict KvCacheCfgRange(const S& s) {
    const int cfg = s.param->kvCacheCfg;
    return Require(
        cfg >= Param::K_CACHE_V_CACHE && cfg <= Param::K_CACHE_V_CACHE_NZ,
        "kvCacheCfg must be in [0, 2] (K_CACHE_V_CACHE, K_CACHE_V_BYPASS, K_CACHE_V_CACHE_NZ), got ", cfg);
}

Verdict CompressOnlyOnA2(const S& s) {
    return Require(s.param->compressType == Param::COMPRESS_TYPE_UNDEFINED,
                   "compressType must be 0 (UNDEFINED) on ", PlatformName(s.platform),
                   ": head compression needs Atlas A2, got ", static_cast<int>(s.param->compressType));
}

Verdict NoKeyOnly(const S& s) {
    return Require(s.param->kvCacheCfg != Param::K_CACHE_V_BYPASS,
                   "kvCacheCfg K_CACHE_V_BYPASS (1) is not supported on ", PlatformName(s.platform),
                   ": the key-only cache needs Atlas A2 or Atlas 350");
}

Verdict NzCfgOnlyOnA2(const S& s) {
    return Require(
        s.param->kvCacheCfg != Param::K_CACHE_V_CACHE_NZ, "kvCacheCfg K_CACHE_V_CACHE_NZ (2) is for ",
        "Atlas A2; on ", PlatformName(s.platform), " use K_CACHE_V_CACHE (0)",
        s.platform == Platform::kAtlas350 ? " with ND caches" : ", whose caches are FRACTAL_NZ already");
}

Verdict KeyOnlyWithoutCompress(const S& s) {
    return Require(s.param->kvCacheCfg != Param::K_CACHE_V_BYPASS || !s.Compressed(),
                   "kvCacheCfg K_CACHE_V_BYPASS (1) needs compressType 0, got compressType ",
                   static_cast<int>(s.param->compressType));
}

Verdict NzCfgWithoutCompress(const S& s) {
    return Require(s.param->kvCacheCfg != Param::K_CACHE_V_CACHE_NZ || !s.Compressed(),
                   "kvCacheCfg K_CACHE_V_CACHE_NZ (2) needs compressType 0, got compressType ",
                   static_cast<int>(s.param->compressType));
}

constexpr ErrorType kCode = ERROR_INVALID_PARAM;

}  // namespace

std::vector<RacRule> ParamRules() {
    const auto kAll = ProfileSet::All();
    const auto kNotA2 = ProfileSet::AllBut({Platform::kAtlasA2});
    return {
        {{"rac.param.rsv_zero", kOp, Stage::kParam, kAll, kCode, "rsv is all zero",
          "docs/spec/self_attention.md 4.3"},
         RsvZero},
        {{"rac.param.compress_type_range", kOp, Stage::kParam, kAll, kCode, "compressType in [0, 2]",
          "docs/spec/self_attention.md 1.3, 4.3; CSV reshape_and_cache rows 15, 67"},
         CompressTypeRange},
        {{"rac.param.kv_cache_cfg_range", kOp, Stage::kParam, kAll, kCode, "kvCacheCfg in [0, 2]",
          "docs/spec/self_attention.md 1.3, 4.3; CSV reshape_and_cache rows 28, 29"},
         KvCacheCfgRange},
        {{"rac.param.compress_platform", kOp, Stage::kParam, kNotA2, kCode,
          "compressType == 0 (head compression is Atlas A2 only)",
          "docs/spec/self_attention.md 4.3 (non-A2: compressType != 0 is an error); CSV rows 57, 58"},
         CompressOnlyOnA2},
        {{"rac.param.key_only_platform",
          kOp,
          Stage::kParam,
          {Platform::kAtlasInference, Platform::kAtlasTraining},
          kCode,
          "kvCacheCfg != K_CACHE_V_BYPASS",
          "docs/spec/self_attention.md 4.3 (non-A2, non-950); CSV row 23"},
         NoKeyOnly},
        {{"rac.param.nz_cfg_platform", kOp, Stage::kParam, kNotA2, kCode,
          "kvCacheCfg != K_CACHE_V_CACHE_NZ (FRACTAL_NZ caches with cfg 2 are Atlas A2's)",
          "docs/spec/self_attention.md 1.3 (K_CACHE_V_CACHE_NZ: A2 with NZ caches); docs/decisions.md "
          "ReshapeAndCache"},
         NzCfgOnlyOnA2},
        {{"rac.param.key_only_no_compress", kOp, Stage::kParam, kAll, kCode,
          "kvCacheCfg K_CACHE_V_BYPASS needs compressType 0", "docs/spec/self_attention.md 4.3; CSV row 22"},
         KeyOnlyWithoutCompress},
        {{"rac.param.nz_cfg_no_compress", kOp, Stage::kParam, kAll, kCode,
          "kvCacheCfg K_CACHE_V_CACHE_NZ needs compressType 0", "docs/spec/self_attention.md 4.3"},
         NzCfgWithoutCompress},
    };
}

}  // namespace atbx::ops::rac
