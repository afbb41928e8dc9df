// SelfAttention rule cases, tensor stages: dtypes and formats, ranks, shapes, head sizes and mask layouts.
// Each case takes a valid call of the catalogue and changes one tensor (or the few tensors one change of a
// dim touches, such as a head size in q, key and value).
#include "support/rule_case.h"
#include "support/sa_edits.h"

namespace atbx::test {
namespace {

using P = SaParam;
constexpr aclFormat kFractalZ = static_cast<aclFormat>(4);

RuleCase Case(std::string rule, ErrorType code, std::string variant, std::string call, CallEdit edit) {
    return {std::move(rule), code, std::move(variant), Valid(std::move(call)), std::move(edit)};
}

// Sets the last dim of each input.
CallEdit LastDims(std::vector<std::pair<std::string, int64_t>> dims) {
    return [dims](TestCall& c) {
        for (const auto& [input, value] : dims)
            SetDim(c, input, static_cast<int>(c.In(input).desc.shape.dimNum) - 1, value);
    };
}

CallEdit Dims(std::string input, std::vector<int64_t> dims) {
    return [input, dims](TestCall& c) { SetDims(c, input, dims); };
}

CallEdit Dtype(std::vector<std::string> inputs, aclDataType dtype) {
    return [inputs, dtype](TestCall& c) {
        for (const std::string& input : inputs)
            SetDtype(c, input, dtype);
    };
}

CallEdit Format(std::vector<std::string> inputs, aclFormat format) {
    return [inputs, format](TestCall& c) {
        for (const std::string& input : inputs)
            SetFormat(c, input, format);
    };
}

std::vector<RuleCase> DtypeCases() {
    const ErrorType ini = ERROR_INVALID_TENSOR_INI_MATCH;
    const ErrorType dtype = ERROR_INVALID_TENSOR_DTYPE;
    return {
        Case("sa.dtype.query", ini, "int32", "pa_encoder", Dtype({"query"}, ACL_INT32)),
        Case("sa.dtype.query", ini, "quant_fp16", "pa_quant_online", Dtype({"query"}, ACL_FLOAT16)),
        Case("sa.dtype.query_fp16_nz", ini, "", "nz_pa_encoder", Dtype({"query", "key", "value"}, ACL_BF16)),
        Case("sa.dtype.pa_bnsd_bf16", ini, "", "pa_bnsd_bf16", Dtype({"query", "key", "value"}, ACL_FLOAT16)),
        Case("sa.dtype.key_value", ini, "value_bool", "pa_encoder", Dtype({"value"}, ACL_BOOL)),
        Case("sa.dtype.key_value", ini, "cache", "fa_encoder", Dtype({"cacheV"}, ACL_BF16)),
        Case("sa.format.qkv_nd", ini, "", "pa_encoder", Format({"query"}, kFractalZ)),
        Case("sa.format.cache_ini", ini, "", "fa_encoder", Format({"cacheK"}, kFractalZ)),
        Case("sa.format.cache_platform", dtype, "nz_on_a2", "fa_encoder",
             Format({"cacheK", "cacheV"}, ACL_FORMAT_FRACTAL_NZ)),
        Case("sa.format.cache_platform", dtype, "nd_on_inference", "nz_bypass_decoder",
             Format({"cacheK", "cacheV"}, ACL_FORMAT_ND)),
        Case("sa.dtype.mask", ini, "", "pa_norm_mask", Dtype({"attentionMask"}, ACL_BF16)),
        Case("sa.dtype.mask", ini, "quant_out", "pa_quant_online", Dtype({"attentionMask"}, ACL_BF16)),
        Case("sa.dtype.mask", ini, "350_int32", "a350_pa_norm_mask", Dtype({"attentionMask"}, ACL_INT32)),
        Case("sa.format.mask", ini, "", "pa_norm_mask", Format({"attentionMask"}, ACL_FORMAT_FRACTAL_NZ)),
        Case("sa.dtype.length_tensors", ini, "pa_uint32", "pa_encoder", Dtype({"seqLen"}, ACL_UINT32)),
        Case("sa.dtype.length_tensors", ini, "int8", "fa_encoder", Dtype({"layerId"}, ACL_INT8)),
        Case("sa.dtype.length_tensors", ini, "mixed", "fa_encoder", Dtype({"tokenOffset"}, ACL_UINT32)),
        Case("sa.dtype.length_tensors", ini, "format", "prefix_norm_compress",
             Format({"kvSeqLen"}, kFractalZ)),
        Case("sa.dtype.block_tables", ini, "", "prefix_norm_compress", Dtype({"blockTables"}, ACL_UINT32)),
        Case("sa.dtype.slopes", ini, "", "pa_alibi_compress", Dtype({"slopes"}, ACL_INT32)),
        Case("sa.dtype.slopes", ini, "bf16_half", "pa_alibi_compress_left_align_bf16",
             Dtype({"slopes"}, ACL_FLOAT16)),
        Case("sa.dtype.slopes", ini, "nz_mask_float", "nz_pa_alibi_compress", Dtype({"slopes"}, ACL_FLOAT)),
        Case("sa.dtype.logn", ini, "", "pa_logn", Dtype({"logN"}, ACL_INT32)),
        Case("sa.dtype.logn_platform", dtype, "a2_half", "pa_logn", Dtype({"logN"}, ACL_FLOAT16)),
        Case("sa.dtype.logn_platform", dtype, "inference_float", "nz_pa_logn", Dtype({"logN"}, ACL_FLOAT)),
        Case("sa.dtype.quant_scales", ini, "", "pa_quant_offline_bf16_out", Dtype({"pScale"}, ACL_FLOAT16)),
        Case("sa.dtype.quant_scales", ini, "offset", "pa_quant_online", Dtype({"qkOffset"}, ACL_FLOAT)),
        {"sa.mask.alibi_compress_high_precision", ERROR_INVALID_PARAM, "", Valid("pa_alibi_compress"),
         WithParam([](P& p) { p.kernelType = P::KERNELTYPE_DEFAULT; })},
    };
}

std::vector<RuleCase> RankCases() {
    const ErrorType dimNum = ERROR_INVALID_TENSOR_DIM_NUM;
    const ErrorType size = ERROR_INVALID_TENSOR_SIZE;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        Case("sa.rank.query", dimNum, "fa_3d", "fa_encoder", Dims("query", {23, 4, 64})),
        Case("sa.rank.query", dimNum, "bnsd_3d", "bnsd_bypass", Dims("query", {3, 4, 64})),
        Case("sa.rank.query", dimNum, "prefix_4d", "prefix_norm_compress", Dims("query", {1, 23, 4, 64})),
        Case("sa.rank.fa_key_value", dimNum, "", "fa_encoder", Dims("key", {23, 2, 64})),
        Case("sa.rank.fa_same_rank", dimNum, "", "fa_encoder",
             [](TestCall& c) {
                 SetDims(c, "key", {1, 23, 2, 64});
                 SetDims(c, "value", {1, 23, 2, 64});
             }),
        Case("sa.rank.fa_cache", dimNum, "", "fa_encoder", Dims("cacheK", {1, 2, 3, 20, 128})),
        Case("sa.rank.fa_cache", dimNum, "dynamic_batch_4d", "fa_dynamic_batch",
             Dims("cacheV", {1, 3, 12, 128})),
        Case("sa.rank.fa_lengths", dimNum, "", "fa_encoder", Dims("layerId", {1, 1})),
        Case("sa.rank.pa_encoder_query", size, "4d", "pa_encoder",
             [](TestCall& c) {
                 for (const char* input : {"query", "key", "value"})
                     SetDims(c, input, {1, 23, c.In(input).desc.shape.dims[1], 64});
             }),
        Case("sa.rank.pa_encoder_same_rank", size, "", "pa_encoder", Dims("key", {23, 128})),
        Case("sa.rank.pa_encoder_350", dim, "", "a350_pa_encoder", Dims("value", {23, 2, 64, 1})),
        Case("sa.rank.pa_encoder_seq_len", dimNum, "", "pa_encoder", Dims("seqLen", {1, 1, 3})),
        Case("sa.rank.pa_encoder_slopes", size, "", "pa_alibi_compress", Dims("slopes", {1, 4})),
        Case("sa.rank.pa_bnsd", dimNum, "", "pa_bnsd_bf16", Dims("query", {51, 4, 64})),
        Case("sa.rank.pa_bnsd_value", dim, "", "pa_bnsd_bf16", Dims("value", {6, 17, 64})),
        Case("sa.rank.prefix", dimNum, "block_tables", "prefix_norm_compress", Dims("blockTables", {6})),
        Case("sa.rank.prefix", dimNum, "value", "prefix_norm_compress", Dims("value", {6, 128, 128})),
        Case("sa.rank.mask", size, "norm_1d", "pa_norm_mask", Dims("attentionMask", {17})),
        Case("sa.rank.mask", size, "norm_compress_3d", "pa_norm_compress",
             Dims("attentionMask", {1, 128, 128})),
        Case("sa.rank.mask", size, "alibi_compress_4d", "pa_alibi_compress",
             Dims("attentionMask", {1, 1, 256, 256})),
        Case("sa.rank.mask", size, "nz_3d", "nz_pa_alibi_per_head", Dims("attentionMask", {4, 32, 16})),
        Case("sa.rank.bnsd_mask", dimNum, "", "bnsd_bypass", Dims("attentionMask", {1, 1, 1, 17, 17})),
        Case("sa.rank.quant_scales", dim, "", "pa_quant_online", Dims("vpvDescale", {4, 1})),
        Case("sa.rank.logn", dim, "", "pa_logn", Dims("logN", {17, 1})),
    };
}

std::vector<RuleCase> ShapeCases() {
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        Case("sa.shape.fa_hidden_matches_cache", dim, "", "fa_encoder",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 3, 256);
                 SetDim(c, "cacheV", 3, 256);
             }),
        Case("sa.shape.fa_hidden_multiple_of_16", dim, "", "fa_encoder",
             [](TestCall& c) {
                 // Head size 60: hidden 120 for 2 kv heads is not a multiple of 16.
                 SetDim(c, "query", 1, 4 * 60);
                 for (const char* input : {"key", "value", "cacheK", "cacheV"})
                     SetDim(c, input, static_cast<int>(c.In(input).desc.shape.dimNum) - 1, 2 * 60);
             }),
        Case("sa.shape.cache_pair", dim, "", "fa_encoder", [](TestCall& c) { SetDim(c, "cacheV", 2, 21); }),
        Case("sa.shape.cache_pair", dim, "bnsd_layers", "bnsd_bypass",
             [](TestCall& c) { SetDim(c, "cacheV", 0, 3); }),
        Case("sa.shape.nz_cache_tile", dim, "", "nz_fa_encoder",
             [](TestCall& c) {
                 for (const char* cache : {"cacheK", "cacheV"}) {
                     SetDim(c, cache, 2, 4);
                     SetDim(c, cache, 4, 32);
                 }
             }),
        Case("sa.shape.fa_batch", dim, "", "fa_encoder", Dims("tokenOffset", {2})),
        Case("sa.shape.bnsd_batch", dim, "seq_len", "bnsd_bypass", Dims("seqLen", {4})),
        Case("sa.shape.bnsd_batch", dim, "cache", "bnsd_bypass",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 1, 4);
                 SetDim(c, "cacheV", 1, 4);
             }),
        Case("sa.shape.bnsd_batch", dim, "nz_cache", "nz_bnsd_bypass",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 1, 7);
                 SetDim(c, "cacheV", 1, 7);
             }),
        Case("sa.shape.fa_token_rows", dim, "", "fa_encoder", [](TestCall& c) { SetDim(c, "key", 0, 24); }),
        Case("sa.shape.pa_key_value_pair", dim, "", "pa_encoder",
             [](TestCall& c) { SetDim(c, "value", 0, 24); }),
        Case("sa.shape.prefix_key_value_pair", dim, "", "prefix_norm_compress",
             [](TestCall& c) { SetDim(c, "value", 0, 7); }),
        Case("sa.shape.seq_len_rows", dim, "", "pa_encoder_seq_len_2b", Dims("seqLen", {3, 3})),
        Case("sa.shape.pa_bnsd_batch", dim, "", "pa_bnsd_bf16",
             [](TestCall& c) {
                 SetDim(c, "key", 0, 2);
                 SetDim(c, "value", 0, 2);
             }),
        Case("sa.shape.prefix_batch", dim, "", "prefix_norm_compress", Dims("kvSeqLen", {5})),
        Case("sa.mask.slopes_heads", dim, "", "pa_alibi_compress", Dims("slopes", {5})),
        Case("sa.shape.quant_scales_heads", dim, "", "pa_quant_offline_bf16_out", Dims("pScale", {3})),
        Case("sa.shape.query_heads", dim, "3d", "pa_encoder", [](TestCall& c) { SetDim(c, "query", 1, 8); }),
        Case("sa.shape.query_heads", dim, "2d_hidden", "fa_encoder",
             [](TestCall& c) { SetDim(c, "query", 1, 258); }),
        Case("sa.shape.query_heads", dim, "4d", "fa_undefined_4d",
             [](TestCall& c) { SetDim(c, "query", 2, 8); }),
        Case("sa.shape.kv_heads", dim, "pa", "pa_encoder",
             [](TestCall& c) {
                 SetDim(c, "key", 1, 4);
                 SetDim(c, "value", 1, 4);
             }),
        Case("sa.shape.kv_heads", dim, "bypass_hidden", "bypass_decoder",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 3, 129);
                 SetDim(c, "cacheV", 3, 129);
             }),
        Case("sa.shape.kv_heads", dim, "bnsd_cache", "bnsd_bypass",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 2, 4);
                 SetDim(c, "cacheV", 2, 4);
             }),
        Case("sa.shape.query_head_size", dim, "", "pa_encoder",
             [](TestCall& c) { SetDim(c, "query", 2, 32); }),
        Case("sa.shape.query_head_size", dim, "bnsd", "bnsd_bypass",
             [](TestCall& c) { SetDim(c, "query", 3, 32); }),
        Case("sa.shape.batch_limit_inference", dim, "", "nz_pa_encoder", Dims("seqLen", {2001})),
    };
}

std::vector<RuleCase> HeadSizeCases() {
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        Case("sa.shape.head_size_max", dim, "577", "pa_encoder",
             LastDims({{"query", 577}, {"key", 577}, {"value", 577}})),
        Case("sa.shape.head_size_max", dim, "logn_264", "pa_logn",
             LastDims({{"query", 264}, {"key", 264}, {"value", 264}})),
        Case("sa.shape.head_size_max", dim, "alibi_compress_136", "pa_alibi_compress",
             LastDims({{"query", 136}, {"key", 136}, {"value", 136}})),
        Case("sa.shape.head_size_max", dim, "inference_272", "nz_pa_encoder",
             LastDims({{"query", 272}, {"key", 272}, {"value", 272}})),
        Case("sa.shape.head_size_max", dim, "bnsd_288", "bnsd_bypass",
             LastDims({{"query", 288}, {"cacheK", 288}, {"cacheV", 288}})),
        Case("sa.shape.head_size_equal", dim, "logn", "pa_logn", LastDims({{"value", 32}})),
        Case("sa.shape.head_size_equal", dim, "quant", "pa_quant_online", LastDims({{"value", 32}})),
        {"sa.shape.mla_v_within_k", dim, "", Valid("pa_mla"), WithParam([](P& p) { p.mlaVHeadSize = 128; })},
        Case("sa.shape.head_size_multiple_of_16_nz", dim, "", "nz_pa_encoder",
             LastDims({{"query", 72}, {"key", 72}, {"value", 72}})),
        Case("sa.shape.nz_key_value_identical", dim, "", "nz_pa_encoder", LastDims({{"value", 48}})),
        Case("sa.shape.value_head_size_350", dim, "", "a350_pa_encoder", LastDims({{"value", 32}})),
        Case("sa.shape.prefix_head_size", dim, "", "prefix_norm_compress",
             LastDims({{"query", 72}, {"key", 72}, {"value", 72}})),
        Case("sa.shape.prefix_block_times_head_size", dim, "", "prefix_norm_compress",
             [](TestCall& c) {
                 SetDim(c, "key", 1, 512);
                 SetDim(c, "value", 1, 512);
             }),
    };
}

std::vector<RuleCase> MaskLayoutCases() {
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    const auto mask = [](std::vector<int64_t> dims) { return Dims("attentionMask", std::move(dims)); };
    return {
        Case("sa.mask.layout", dim, "norm_batch", "pa_norm_mask", mask({2, 17, 17})),
        Case("sa.mask.layout", dim, "norm_4d", "fa_encoder", mask({3, 1, 17, 17})),
        Case("sa.mask.layout", dim, "triu_rows", "fa_encoder_triu_compressed", mask({64, 128})),
        Case("sa.mask.layout", dim, "norm_compress_64", "pa_norm_compress", mask({64, 64})),
        Case("sa.mask.layout", dim, "alibi_heads", "pa_alibi", mask({3, 17, 17})),
        Case("sa.mask.layout", dim, "alibi_compress_128", "pa_alibi_compress", mask({128, 128})),
        Case("sa.mask.layout", dim, "left_align_3d", "pa_alibi_compress_left_align_bf16", mask({4, 17, 128})),
        Case("sa.mask.layout", dim, "prefix_alibi_compress", "prefix_alibi_compress", mask({256, 257})),
        Case("sa.mask.layout", dim, "swa_3d", "fa_swa_norm", mask({3, 17, 17})),
        Case("sa.mask.layout", dim, "swa_rows_over_cols", "pa_swa_norm", mask({18, 17})),
        Case("sa.mask.layout", dim, "swa_compress_256", "fa_swa_compress", mask({256, 256})),
        Case("sa.mask.layout", dim, "nz_tile", "nz_fa_encoder", mask({1, 1, 32, 32})),
        Case("sa.mask.layout", dim, "nz_triu_rows", "nz_fa_encoder",
             [](TestCall& c) {
                 c.Param<P>().isTriuMask = 1;
                 SetDims(c, "attentionMask", {1, 8, 64, 16});
             }),
        Case("sa.mask.layout", dim, "nz_norm_compress", "nz_pa_norm_compress", mask({1, 8, 64, 16})),
        Case("sa.mask.layout", dim, "nz_alibi_compress", "nz_pa_alibi_compress", mask({1, 16, 128, 16})),
        Case("sa.mask.layout", dim, "nz_swa_nd", "nz_pa_swa", Format({"attentionMask"}, ACL_FORMAT_ND)),
        Case("sa.mask.layout", dim, "350_norm_compress", "a350_pa_norm_compress", mask({128, 128})),
        {"sa.mask.long_window", ERROR_INVALID_PARAM, "", Valid("nz_pa_norm_compress_long_window"),
         OnPlatform(Platform::kAtlasTraining)},
    };
}

}  // namespace

std::vector<RuleCase> SelfAttentionTensorRuleCases() {
    std::vector<RuleCase> all = DtypeCases();
    for (auto* part : {&RankCases, &ShapeCases, &HeadSizeCases, &MaskLayoutCases}) {
        std::vector<RuleCase> more = part();
        all.insert(all.end(), more.begin(), more.end());
    }
    return all;
}

}  // namespace atbx::test
