// PagedAttention param rule cases: a valid call and the param change that breaks only that rule.
#include <limits>

#include "support/pa_case_helpers.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using P = PaParam;

RuleCase Param(std::string rule, std::string variant, std::string call, std::function<void(P&)> change) {
    return {std::move(rule), ERROR_INVALID_PARAM, std::move(variant), From(std::move(call)),
            EditParam(change)};
}

std::vector<RuleCase> CommonAndProfileCases() {
    return {
        Param("pa.param.rsv_zero", "", "a2.decode", [](P& p) { p.rsv[3] = 1; }),
        Param("pa.param.head_num_positive", "zero", "a2.decode", [](P& p) { p.headNum = 0; }),
        Param("pa.param.head_num_positive", "negative", "a2.decode", [](P& p) { p.headNum = -1; }),
        Param("pa.param.kv_head_num_non_negative", "", "a2.decode", [](P& p) { p.kvHeadNum = -1; }),
        Param("pa.param.head_num_divisible", "", "a2.decode", [](P& p) { p.kvHeadNum = 3; }),
        Param("pa.param.head_num_divisible", "more_kv_heads", "a2.decode", [](P& p) { p.kvHeadNum = 16; }),
        Param("pa.param.scales_finite", "qk_scale_inf", "a2.decode",
              [](P& p) { p.qkScale = std::numeric_limits<float>::infinity(); }),
        Param("pa.param.scales_finite", "q_scale_nan", "a2.decode.q_scale",
              [](P& p) { p.qScale = std::numeric_limits<float>::quiet_NaN(); }),
        Param("pa.param.mask_type_range", "", "a2.decode",
              [](P& p) { p.maskType = static_cast<P::MaskType>(6); }),
        Param("pa.param.quant_type_range", "", "a2.decode",
              [](P& p) { p.quantType = static_cast<P::QuantType>(4); }),
        Param("pa.param.calc_type_range", "", "a2.decode",
              [](P& p) { p.calcType = static_cast<P::CalcType>(2); }),
        Param("pa.param.input_layout_range", "", "a2.decode",
              [](P& p) { p.inputLayout = static_cast<infer::InputLayout>(2); }),
        Param("pa.param.compress_type_range", "", "a2.decode",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_MAX; }),
        Param("pa.param.scale_type_range", "", "a2.decode", [](P& p) { p.scaleType = P::SCALE_TYPE_MAX; }),
        Param("pa.param.mla_v_head_size_max", "", "a2.mla.combined", [](P& p) { p.mlaVHeadSize = 577; }),
        Param("pa.param.atlas350_qk_scale_range", "zero", "a350.decode", [](P& p) { p.qkScale = 0.0f; }),
        Param("pa.param.atlas350_qk_scale_range", "above_one", "a350.decode", [](P& p) { p.qkScale = 1.5f; }),
        Param("pa.param.atlas350_quant_type", "", "a350.decode",
              [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.atlas350_input_layout", "", "a350.decode",
              [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Param("pa.param.atlas350_basic_only", "mask", "a350.decode",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Param("pa.param.atlas350_basic_only", "batch_run_status", "a350.decode",
              [](P& p) { p.batchRunStatusEnable = true; }),
        Param("pa.param.atlas350_basic_only", "compress", "a350.decode",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.atlas350_basic_only", "spec", "a350.decode",
              [](P& p) { p.calcType = P::CALC_TYPE_SPEC; }),
        Param("pa.param.atlas350_basic_only", "logn", "a350.decode",
              [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Param("pa.param.atlas350_basic_only", "mla", "a350.decode", [](P& p) { p.mlaVHeadSize = 32; }),
        Param("pa.param.atlas350_basic_only", "q_scale", "a350.decode", [](P& p) { p.qScale = 0.5f; }),
        Param("pa.param.norm_compress_atlas_inference_only", "a2", "a2.decode",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM_COMPRESS; }),
        Param("pa.param.norm_compress_atlas_inference_only", "training", "training.decode",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM_COMPRESS; }),
        Param("pa.param.batch_run_status_atlas_a2_only", "inference", "inference.decode",
              [](P& p) { p.batchRunStatusEnable = true; }),
        Param("pa.param.batch_run_status_atlas_a2_only", "training", "training.decode",
              [](P& p) { p.batchRunStatusEnable = true; }),
        Param("pa.param.compress_atlas_a2_only", "inference", "inference.decode",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.compress_atlas_a2_only", "training", "training.decode",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.mla_atlas_a2_only", "inference", "inference.decode",
              [](P& p) { p.mlaVHeadSize = 32; }),
        Param("pa.param.mla_atlas_a2_only", "training", "training.decode", [](P& p) { p.mlaVHeadSize = 32; }),
        Param("pa.param.quant_atlas_a2_only", "inference_dequant", "inference.decode",
              [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.quant_atlas_a2_only", "training_qkv", "training.decode",
              [](P& p) {
                  p.quantType = P::TYPE_QUANT_QKV_ONLINE;
                  p.outDataType = ACL_FLOAT16;
              }),
        Param("pa.param.training_basic_only", "spec_mask", "training.decode",
              [](P& p) { p.maskType = P::MASK_TYPE_SPEC; }),
        Param("pa.param.training_basic_only", "mask_free", "training.decode",
              [](P& p) { p.maskType = P::MASK_TYPE_MASK_FREE; }),
        Param("pa.param.training_basic_only", "calc_type", "training.decode",
              [](P& p) { p.calcType = P::CALC_TYPE_SPEC; }),
        Param("pa.param.training_basic_only", "logn", "training.decode",
              [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Param("pa.param.training_basic_only", "bnsd", "training.decode",
              [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Param("pa.param.training_basic_only", "q_scale", "training.decode", [](P& p) { p.qScale = 2.0f; }),
    };
}

std::vector<RuleCase> FeatureCases() {
    return {
        Param("pa.param.rope_compress_no_mask", "", "a2.compress.rope",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Param("pa.param.rope_compress_no_batch_run_status", "", "a2.compress.rope",
              [](P& p) { p.batchRunStatusEnable = true; }),
        Param("pa.param.compress_mask_type", "", "a2.compress.kvhead",
              [](P& p) { p.maskType = P::MASK_TYPE_SPEC; }),
        Param("pa.param.compress_kv_head_num_set", "", "a2.compress.kvhead", [](P& p) { p.kvHeadNum = 0; }),
        Param("pa.param.spec_no_batch_run_status", "", "a2.spec.norm_square",
              [](P& p) { p.batchRunStatusEnable = true; }),
        Param("pa.param.spec_no_compress", "", "a2.spec.norm_square",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.spec_mask_type", "a2_alibi", "a2.spec.norm_square",
              [](P& p) { p.maskType = P::MASK_TYPE_ALIBI; }),
        Param("pa.param.spec_mask_type", "a2_no_mask", "a2.spec.norm_square",
              [](P& p) { p.maskType = P::UNDEFINED; }),
        Param("pa.param.spec_mask_type", "inference_norm", "inference.spec",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Param("pa.param.mask_free_needs_spec", "", "inference.mask_free",
              [](P& p) { p.calcType = P::CALC_TYPE_UNDEFINED; }),
        Param("pa.param.norm_compress_needs_spec", "", "inference.norm_compress",
              [](P& p) { p.calcType = P::CALC_TYPE_UNDEFINED; }),
        Param("pa.param.norm_compress_scale_tor", "", "inference.norm_compress",
              [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Param("pa.param.spec_mask_bsnd", "", "a2.mask.spec_decode",
              [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Param("pa.param.spec_mask_no_quant", "", "a2.mask.spec_decode",
              [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.dequant_no_spec", "", "a2.dequant.norm_mask",
              [](P& p) { p.calcType = P::CALC_TYPE_SPEC; }),
        Param("pa.param.qkv_quant_out_data_type", "float", "a2.qkv.offline",
              [](P& p) { p.outDataType = ACL_FLOAT; }),
        Param("pa.param.qkv_quant_out_data_type", "undefined", "a2.qkv.offline",
              [](P& p) { p.outDataType = ACL_DT_UNDEFINED; }),
        Param("pa.param.qkv_quant_no_offset", "", "a2.qkv.offline", [](P& p) { p.hasQuantOffset = true; }),
        Param("pa.param.qkv_quant_no_compress", "", "a2.qkv.offline",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.qkv_quant_no_spec", "", "a2.qkv.online_mask",
              [](P& p) { p.calcType = P::CALC_TYPE_SPEC; }),
        Param("pa.param.quant_offset_needs_dequant", "", "a2.decode", [](P& p) { p.hasQuantOffset = true; }),
        Param("pa.param.logn_no_quant", "", "a2.logn", [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.logn_no_spec", "", "a2.logn",
              [](P& p) {
                  p.calcType = P::CALC_TYPE_SPEC;
                  p.maskType = P::MASK_TYPE_NORM;
              }),
        Param("pa.param.logn_no_compress", "", "a2.logn",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.bnsd_no_spec", "", "a2.decode.bnsd",
              [](P& p) {
                  p.calcType = P::CALC_TYPE_SPEC;
                  p.maskType = P::MASK_TYPE_NORM;
              }),
        Param("pa.param.bnsd_no_spec", "inference", "inference.spec",
              [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Param("pa.param.bnsd_no_compress", "", "a2.decode.bnsd",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.bnsd_no_quant", "", "a2.decode.bnsd",
              [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.bnsd_no_logn", "", "a2.decode.bnsd", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Param("pa.param.mla_no_alibi", "", "a2.mla.combined", [](P& p) { p.maskType = P::MASK_TYPE_ALIBI; }),
        Param("pa.param.mla_spec_restrictions", "", "a2.mla.spec",
              [](P& p) { p.maskType = P::MASK_TYPE_NORM; }),
        Param("pa.param.mla_no_compress", "", "a2.mla.combined",
              [](P& p) { p.compressType = P::COMPRESS_TYPE_KVHEAD; }),
        Param("pa.param.mla_no_dequant", "", "a2.mla.combined",
              [](P& p) { p.quantType = P::TYPE_DEQUANT_FUSION; }),
        Param("pa.param.mla_no_logn", "", "a2.mla.combined", [](P& p) { p.scaleType = P::SCALE_TYPE_LOGN; }),
        Param("pa.param.mla_bsnd", "", "a2.mla.combined", [](P& p) { p.inputLayout = infer::TYPE_BNSD; }),
        Param("pa.param.mla_kv_head_num_one", "", "a2.mla.combined", [](P& p) { p.kvHeadNum = 2; }),
    };
}

}  // namespace

std::vector<RuleCase> PagedAttentionParamRuleCases() {
    std::vector<RuleCase> cases = CommonAndProfileCases();
    std::vector<RuleCase> features = FeatureCases();
    cases.insert(cases.end(), features.begin(), features.end());
    return cases;
}

}  // namespace atbx::test
