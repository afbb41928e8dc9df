// SelfAttention rule cases, param stage: the param rules, the mode requirements and what each platform
// profile does not support. Each case takes a valid call of the catalogue and changes one param field.
#include <limits>

#include "support/rule_case.h"
#include "support/sa_edits.h"

namespace atbx::test {
namespace {

using P = SaParam;
constexpr ErrorType kInvalid = ERROR_INVALID_PARAM;

RuleCase Case(std::string rule, std::string variant, std::string call, std::function<void(SaParam&)> change) {
    return {std::move(rule), kInvalid, std::move(variant), Valid(std::move(call)),
            WithParam(std::move(change))};
}

std::vector<RuleCase> CommonCases() {
    return {
        Case("sa.param.rsv_zero", "", "pa_encoder", [](P& p) { p.rsv[0] = 7; }),
        Case("sa.param.head_num_positive", "zero", "pa_encoder", [](P& p) { p.headNum = 0; }),
        Case("sa.param.head_num_positive", "negative", "fa_encoder", [](P& p) { p.headNum = -4; }),
        Case("sa.param.kv_head_num_non_negative", "", "pa_encoder", [](P& p) { p.kvHeadNum = -1; }),
        Case("sa.param.gqa_head_num_divisible", "not_divisible", "pa_encoder", [](P& p) { p.kvHeadNum = 3; }),
        Case("sa.param.gqa_head_num_divisible", "more_kv_heads", "prefix_norm_compress",
             [](P& p) { p.kvHeadNum = 8; }),
        Case("sa.param.calc_type_range", "", "fa_encoder",
             [](P& p) { p.calcType = static_cast<P::CalcType>(5); }),
        Case("sa.param.kernel_type_range", "", "pa_encoder",
             [](P& p) { p.kernelType = static_cast<P::KernelType>(3); }),
        Case("sa.param.scales_finite", "qk_scale_nan", "pa_encoder",
             [](P& p) { p.qkScale = std::numeric_limits<float>::quiet_NaN(); }),
        Case("sa.param.scales_finite", "q_scale_inf", "fa_encoder",
             [](P& p) { p.qScale = std::numeric_limits<float>::infinity(); }),
        Case("sa.param.scales_finite", "clamp_min_inf", "fa_clamp_qscale",
             [](P& p) { p.clampMin = -std::numeric_limits<float>::infinity(); }),
        Case("sa.param.scales_finite", "clamp_max_nan", "fa_clamp_qscale",
             [](P& p) { p.clampMax = std::numeric_limits<float>::quiet_NaN(); }),
        Case("sa.param.mask_type_range", "", "pa_encoder",
             [](P& p) { p.maskType = static_cast<P::MaskType>(10); }),
        Case("sa.param.clamp_type_range", "", "fa_encoder",
             [](P& p) { p.clampType = static_cast<P::ClampType>(2); }),
        Case("sa.param.kv_cache_cfg_range", "", "fa_encoder",
             [](P& p) { p.kvcacheCfg = static_cast<P::KvCacheCfg>(2); }),
        Case("sa.param.scale_type_range", "", "pa_encoder", [](P& p) { p.scaleType = P::SCALE_TYPE_MAX; }),
        Case("sa.param.input_layout_range", "", "pa_encoder",
             [](P& p) { p.inputLayout = static_cast<infer::InputLayout>(2); }),
        Case("sa.param.cache_type_range", "", "fa_encoder",
             [](P& p) { p.cacheType = static_cast<P::CacheType>(2); }),
        Case("sa.param.quant_type_range", "", "pa_encoder",
             [](P& p) { p.quantType = static_cast<P::QuantType>(4); }),
        Case("sa.param.triu_mask_range", "", "pa_norm_mask", [](P& p) { p.isTriuMask = 2; }),
        Case("sa.param.window_size_range", "", "fa_swa_norm", [](P& p) { p.windowSize = 0x80000000u; }),
        Case("sa.param.quant_not_dequant_fusion", "", "pa_encoder",
             [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Case("sa.param.quant_out_data_type", "", "pa_quant_online", [](P& p) { p.outDataType = ACL_FLOAT; }),
        Case("sa.param.quant_pa_encoder_only", "", "fa_encoder",
             [](P& p) {
                 p.quantType = P::TYPE_QUANT_QKV_OFFLINE;
                 p.outDataType = ACL_FLOAT16;
             }),
        Case("sa.param.quant_scale_tor", "", "pa_quant_online",
             [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.pa_encoder_no_bypass", "", "pa_encoder",
             [](P& p) { p.kvcacheCfg = P::K_BYPASS_V_BYPASS; }),
        Case("sa.param.alibi_compress_encoders_only", "", "fa_encoder",
             [](P& p) { p.maskType = P::MASK_TYPE_ALIBI_COMPRESS; }),
        Case("sa.param.triu_needs_mask", "", "pa_encoder", [](P& p) { p.isTriuMask = 1; }),
        Case("sa.param.causal_mask_prefix_only", "", "pa_norm_mask",
             [](P& p) { p.maskType = P::MASK_TYPE_CAUSAL_MASK; }),
        Case("sa.param.dynamic_batch_not_bypass", "", "bypass_decoder",
             [](P& p) { p.batchRunStatusEnable = true; }),
    };
}

std::vector<RuleCase> ModeCases() {
    return {
        Case("sa.param.bnsd_scale_tor", "", "bnsd_bypass", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.bnsd_no_quant", "", "pa_bnsd_bf16",
             [](P& p) {
                 p.quantType = P::TYPE_QUANT_QKV_ONLINE;
                 p.outDataType = ACL_BF16;
             }),
        Case("sa.param.prefix_bsnd", "", "prefix_norm_compress",
             [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Case("sa.param.pa_bnsd_no_mla", "", "pa_bnsd_bf16", [](P& p) { p.mlaVHeadSize = 32; }),
        Case("sa.param.pa_bnsd_no_high_precision", "", "pa_bnsd_bf16",
             [](P& p) { p.kernelType = P::KERNELTYPE_HIGH_PRECISION; }),
        Case("sa.param.pa_bnsd_platform", "inference_without_m8v2", "nz_pa_m8v2_bnsd",
             [](P& p) { p.kernelType = P::KERNELTYPE_DEFAULT; }),
        {"sa.param.pa_bnsd_platform", kInvalid, "training", Valid("pa_bnsd_bf16"),
         OnPlatform(Platform::kAtlasTraining)},
        Case("sa.param.pa_bnsd_no_mask", "", "pa_bnsd_bf16", [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Case("sa.param.bnsd_bypass", "", "bnsd_bypass", [](P& p) { p.kvcacheCfg = P::K_CACHE_V_CACHE; }),
        Case("sa.param.bnsd_mask_required", "", "bnsd_bypass",
             [](P& p) { p.maskType = P::MASK_TYPE_UNDEFINED; }),
        Case("sa.param.mla_pa_encoder_only", "", "fa_encoder", [](P& p) { p.mlaVHeadSize = 32; }),
        Case("sa.param.mla_mask_types", "", "pa_mla", [](P& p) { p.maskType = P::MASK_TYPE_ALIBI; }),
        Case("sa.param.mla_scale_tor", "", "pa_mla", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.mla_no_clamp", "", "pa_mla", [](P& p) { p.clampType = P::CLAMP_TYPE_MIN_MAX; }),
        Case("sa.param.mla_v_head_size_max", "", "pa_mla", [](P& p) { p.mlaVHeadSize = 577; }),
        Case("sa.param.swa_cache_type_needs_swa", "", "fa_encoder",
             [](P& p) { p.cacheType = P::CACHE_TYPE_SWA; }),
        Case("sa.param.swa_window_mask_pair", "window_without_mask", "fa_encoder",
             [](P& p) { p.windowSize = 4; }),
        Case("sa.param.swa_window_mask_pair", "mask_without_window", "fa_swa_norm",
             [](P& p) { p.windowSize = 0; }),
        Case("sa.param.swa_compress_not_decoder", "", "fa_swa_compress",
             [](P& p) { p.calcType = P::DECODER; }),
        Case("sa.param.swa_no_dynamic_batch", "", "fa_swa_norm", [](P& p) { p.batchRunStatusEnable = true; }),
        Case("sa.param.swa_default_kernel", "", "fa_swa_norm",
             [](P& p) { p.kernelType = P::KERNELTYPE_HIGH_PRECISION; }),
        Case("sa.param.swa_no_clamp", "", "fa_swa_norm", [](P& p) { p.clampType = P::CLAMP_TYPE_MIN_MAX; }),
        Case("sa.param.swa_no_quant", "", "pa_swa_norm",
             [](P& p) {
                 p.quantType = P::TYPE_QUANT_QKV_ONLINE;
                 p.outDataType = ACL_FLOAT16;
             }),
        Case("sa.param.swa_scale_tor", "", "fa_swa_norm", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.swa_bsnd", "", "bnsd_bypass",
             [](P& p) {
                 p.maskType = P::MASK_TYPE_SLIDING_WINDOW_NORM;
                 p.windowSize = 4;
             }),
        {"sa.param.prefix_platform", kInvalid, "", Valid("prefix_norm_compress"),
         OnPlatform(Platform::kAtlasInference)},
        Case("sa.param.prefix_out_data_type", "", "prefix_norm_compress",
             [](P& p) { p.outDataType = ACL_FLOAT16; }),
        Case("sa.param.prefix_q_scale_one", "", "prefix_norm_compress", [](P& p) { p.qScale = 2.0f; }),
        Case("sa.param.prefix_no_dynamic_batch", "", "prefix_norm_compress",
             [](P& p) { p.batchRunStatusEnable = true; }),
        Case("sa.param.prefix_triu_mask", "", "prefix_norm_compress", [](P& p) { p.isTriuMask = 0; }),
        Case("sa.param.prefix_high_precision", "", "prefix_alibi_compress",
             [](P& p) { p.kernelType = P::KERNELTYPE_DEFAULT; }),
        Case("sa.param.prefix_no_clamp", "bounds", "prefix_norm_compress", [](P& p) { p.clampMin = 0.5f; }),
        Case("sa.param.prefix_mask_types", "", "prefix_norm_compress",
             [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Case("sa.param.prefix_kv_cache", "", "prefix_norm_compress",
             [](P& p) { p.kvcacheCfg = P::K_BYPASS_V_BYPASS; }),
        Case("sa.param.prefix_scale_tor", "", "prefix_norm_compress",
             [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.exp_m8v2_platform", "", "pa_encoder",
             [](P& p) { p.kernelType = P::KERNELTYPE_EXP_M8V2; }),
        Case("sa.param.exp_m8v2_out_data_type", "", "nz_pa_m8v2", [](P& p) { p.outDataType = ACL_FLOAT16; }),
        Case("sa.param.exp_m8v2_q_scale_one", "", "nz_pa_m8v2", [](P& p) { p.qScale = 0.5f; }),
        Case("sa.param.exp_m8v2_no_triu", "", "nz_pa_m8v2", [](P& p) { p.isTriuMask = 1; }),
        Case("sa.param.exp_m8v2_pa_encoder", "", "nz_fa_encoder",
             [](P& p) { p.kernelType = P::KERNELTYPE_EXP_M8V2; }),
        Case("sa.param.exp_m8v2_clamp_bounds", "", "nz_pa_m8v2", [](P& p) { p.clampMax = 1.0f; }),
        Case("sa.param.exp_m8v2_mask_types", "", "nz_pa_m8v2", [](P& p) { p.maskType = P::MASK_TYPE_ALIBI; }),
        Case("sa.param.exp_m8v2_scale_tor", "", "nz_pa_m8v2", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.logn_calc_type", "", "fa_decoder_logn", [](P& p) { p.calcType = P::ENCODER; }),
        Case("sa.param.logn_pa_high_precision", "", "pa_logn",
             [](P& p) { p.kernelType = P::KERNELTYPE_DEFAULT; }),
    };
}

std::vector<RuleCase> PlatformCases() {
    return {
        Case("sa.param.left_align_a2_only", "", "nz_pa_alibi_compress",
             [](P& p) { p.maskType = P::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN; }),
        Case("sa.param.clamp_a2_only", "", "nz_fa_encoder",
             [](P& p) { p.clampType = P::CLAMP_TYPE_MIN_MAX; }),
        Case("sa.param.quant_a2_only", "", "nz_pa_encoder",
             [](P& p) {
                 p.quantType = P::TYPE_QUANT_QKV_ONLINE;
                 p.outDataType = ACL_FLOAT16;
             }),
        Case("sa.param.dynamic_batch_a2_only", "", "nz_fa_encoder",
             [](P& p) { p.batchRunStatusEnable = true; }),
        Case("sa.param.mla_a2_only", "", "nz_pa_encoder", [](P& p) { p.mlaVHeadSize = 32; }),
        Case("sa.param.pa_encoder_only", "training", "training_pa_encoder",
             [](P& p) { p.calcType = P::ENCODER; }),
        Case("sa.param.pa_encoder_only", "350", "a350_pa_encoder", [](P& p) { p.calcType = P::DECODER; }),
        Case("sa.param.alibi_compress_unsupported", "", "training_pa_encoder",
             [](P& p) { p.maskType = P::MASK_TYPE_ALIBI_COMPRESS; }),
        Case("sa.param.swa_unsupported", "", "training_pa_encoder",
             [](P& p) {
                 p.maskType = P::MASK_TYPE_SLIDING_WINDOW_NORM;
                 p.windowSize = 4;
             }),
        Case("sa.param.logn_unsupported", "training", "training_pa_encoder",
             [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.logn_unsupported", "350", "a350_pa_encoder",
             [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Case("sa.param.mask_types_350", "", "a350_pa_encoder",
             [](P& p) { p.maskType = P::MASK_TYPE_ALIBI_COMPRESS; }),
    };
}

}  // namespace

std::vector<RuleCase> SelfAttentionRuleCases() {
    std::vector<RuleCase> all = CommonCases();
    for (auto* part : {&ModeCases, &PlatformCases}) {
        std::vector<RuleCase> more = part();
        all.insert(all.end(), more.begin(), more.end());
    }
    return all;
}

}  // namespace atbx::test
