// PagedAttention param rules (CreateOperation): paged_attention.md 4.1, the seed, DECISIONS.md.
#include <algorithm>

#include "ops/paged_attention/pa_rules.h"

namespace atbx::ops::pa {
namespace {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = PaSubject;

constexpr auto kParam = Stage::kParam;
constexpr auto kA2 = Platform::kAtlasA2;
constexpr auto kInference = Platform::kAtlasInference;
constexpr auto kTraining = Platform::kAtlasTraining;
constexpr auto k350 = Platform::kAtlas350;

Verdict RsvZero(const S& s) {
    const auto& rsv = s.param->rsv;
    const auto* nonZero = std::find_if(std::begin(rsv), std::end(rsv), [](uint8_t b) { return b != 0; });
    return Require(nonZero == std::end(rsv), "rsv must be all zero, rsv[", nonZero - std::begin(rsv), "] is ",
                   nonZero == std::end(rsv) ? 0 : static_cast<int>(*nonZero));
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

}  // namespace

std::vector<PaRule> ParamRules() {
    const auto kAll = ProfileSet::All();
    return {
        {{"pa.param.rsv_zero", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM, "rsv is all zero",
          "paged_attention.md 1 (OP_PARAM_RSV_CHECK)"},
         RsvZero},
        {{"pa.param.head_num_positive", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM, "headNum > 0",
          "paged_attention.md 4.1 common"},
         HeadNumPositive},
        {{"pa.param.kv_head_num_non_negative", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "kvHeadNum >= 0", "paged_attention.md 4.1 common"},
         KvHeadNumNonNegative},
        {{"pa.param.head_num_divisible", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "kvHeadNum == 0 or headNum % kvHeadNum == 0",
          "seed: 'To use the GQA mode ... headNum%kvHeadNum == 0'; paged_attention.md 4.1"},
         HeadNumDivisible},
        {{"pa.param.mask_type_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "maskType in [0, 5]", "paged_attention.md 4.1 (not range-checked by ATB; atbx rejects)"},
         MaskTypeRange},
        {{"pa.param.quant_type_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "quantType in [0, 3]", "paged_attention.md 4.1 (not range-checked by ATB; atbx rejects)"},
         QuantTypeRange},
        {{"pa.param.calc_type_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "calcType in {0, 1}", "paged_attention.md 4.1 (not range-checked by ATB; atbx rejects)"},
         CalcTypeRange},
        {{"pa.param.input_layout_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "inputLayout in {0, 1}", "paged_attention.md 4.1 (not range-checked by ATB; atbx rejects)"},
         InputLayoutRange},
        {{"pa.param.compress_type_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "compressType in [0, COMPRESS_TYPE_MAX)", "paged_attention.md 4.1 compress"},
         CompressTypeRange},
        {{"pa.param.scale_type_range", "PagedAttention", kParam, kAll, ERROR_INVALID_PARAM,
          "scaleType in [0, SCALE_TYPE_MAX)", "paged_attention.md 4.1 logN"},
         ScaleTypeRange},
    };
}

}  // namespace atbx::ops::pa
