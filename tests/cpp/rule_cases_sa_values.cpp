// SelfAttention rule cases, value stages: host values (lengths, offsets, flags), what masks and logN cover,
// and the indices read from device tensors. Each case takes a valid call of the catalogue and changes one
// value, or one tensor's size together with the outputs it implies.
#include "support/rule_case.h"
#include "support/sa_edits.h"

namespace atbx::test {
namespace {

using P = SaParam;

RuleCase Case(std::string rule, ErrorType code, std::string variant, std::string call, CallEdit edit) {
    return {std::move(rule), code, std::move(variant), Valid(std::move(call)), std::move(edit)};
}

// Sets element `index` of an int32/uint32 tensor.
CallEdit Value(std::string input, int64_t index, int32_t value) {
    return [input, index, value](TestCall& c) { Elements<int32_t>(c.In(input))[index] = value; };
}

CallEdit Values(std::string input, std::vector<int32_t> values, std::vector<int64_t> dims = {}) {
    return [input, values, dims](TestCall& c) { SetValues(c, input, values, dims); };
}

// Replaces inputs by tensors of new dims and gives the call the outputs they imply.
CallEdit Resized(std::vector<std::pair<std::string, std::vector<int64_t>>> inputs) {
    return [inputs](TestCall& c) {
        for (const auto& [input, dims] : inputs)
            Resize(c, input, dims);
        RefreshOutputs(c);
    };
}

std::vector<RuleCase> HostCases() {
    const ErrorType param = ERROR_INVALID_PARAM;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        Case("sa.host.seq_len_non_negative", param, "", "pa_encoder", Value("seqLen", 0, -3)),
        Case("sa.host.seq_len_non_negative", param, "uint32_above_int32_max", "fa_uint32_lengths",
             Value("seqLen", 2, static_cast<int32_t>(0x80000001u))),
        Case("sa.host.kv_seq_len_non_negative", param, "seq_len_2b", "pa_encoder_seq_len_2b",
             Value("seqLen", 3, -1)),
        Case("sa.host.kv_seq_len_non_negative", param, "prefix", "prefix_norm_compress",
             Value("kvSeqLen", 0, -5)),
        Case("sa.host.token_offset_non_negative", param, "", "fa_encoder", Value("tokenOffset", 0, -1)),
        Case("sa.host.token_offset_covers_seq_len", param, "", "fa_encoder", Value("tokenOffset", 0, 4)),
        Case("sa.host.token_offset_within_cache", param, "", "fa_decoder_no_mask",
             Value("tokenOffset", 1, 34)),
        Case("sa.host.token_offset_within_cache", param, "bnsd", "bnsd_bypass_decoder",
             [](TestCall& c) {
                 SetDim(c, "cacheK", 3, 29);
                 SetDim(c, "cacheV", 3, 29);
             }),
        Case("sa.host.batch_run_status_flags", param, "", "fa_dynamic_batch", Value("batchRunStatus", 1, 2)),
        Case("sa.host.decoder_single_query", param, "", "fa_decoder_no_mask", Values("seqLen", {2, 0, 1})),
        Case("sa.host.fa_token_rows", dim, "", "fa_encoder", Value("seqLen", 1, 16)),
        Case("sa.host.fa_token_rows", dim, "inference_padding", "nz_fa_encoder",
             Resized({{"query", {48, 256}}, {"key", {48, 128}}, {"value", {48, 128}}})),
        Case("sa.host.fa_token_rows", dim, "4d", "fa_undefined_4d", Value("seqLen", 0, 5)),
        Case("sa.host.bnsd_query_rows", dim, "", "bnsd_bypass", Resized({{"query", {3, 4, 16, 64}}})),
        Case("sa.host.pa_token_rows", dim, "", "pa_encoder", Value("seqLen", 1, 16)),
        Case("sa.host.pa_token_rows", dim, "inference_padding", "nz_pa_encoder",
             Resized({{"query", {23, 4, 64}}, {"key", {23, 2, 64}}, {"value", {23, 2, 64}}})),
        Case("sa.host.pa_token_rows", dim, "350", "a350_pa_encoder",
             Resized({{"query", {24, 4, 64}}, {"key", {24, 2, 64}}, {"value", {24, 2, 64}}})),
        Case("sa.host.pa_bnsd_lengths", dim, "", "pa_bnsd_bf16",
             Resized({{"key", {3, 2, 16, 64}}, {"value", {3, 2, 16, 64}}})),
        Case("sa.host.nz_encoder_qkv_3d", ERROR_INVALID_TENSOR_DIM_NUM, "", "nz_pa_encoder",
             Resized({{"query", {32, 256}}, {"key", {32, 128}}, {"value", {32, 128}}})),
        Case("sa.host.prefix_token_rows", dim, "", "prefix_norm_compress",
             [](TestCall& c) {
                 SetValues(c, "seqLen", {5, 16, 1});
                 SetValues(c, "kvSeqLen", {5, 144, 1});
             }),
        Case("sa.host.prefix_kv_covers_q", param, "", "prefix_norm_compress", Value("kvSeqLen", 0, 4)),
        Case("sa.host.prefix_aligned", param, "", "prefix_norm_compress", Value("kvSeqLen", 1, 146)),
        Case("sa.host.prefix_block_size", dim, "", "prefix_norm_compress",
             Resized({{"key", {6, 256, 2, 64}}, {"value", {6, 256, 2, 64}}})),
        Case("sa.host.prefix_block_table_width", dim, "", "prefix_norm_compress",
             [](TestCall& c) { SetDim(c, "blockTables", 1, 1); }),
        Case("sa.host.q_equals_kv_inference", param, "pa_encoder", "nz_pa_encoder",
             Values("seqLen", {5, 17, 1, 5, 16, 2}, {2, 3})),
        Case("sa.host.q_equals_kv_inference", param, "fa_encoder", "nz_fa_encoder",
             Value("tokenOffset", 0, 6)),
        Case("sa.host.packed_kernel_q_kv", param, "pa_default_kernel", "pa_encoder",
             Values("seqLen", {5, 17, 1, 6, 16, 1}, {2, 3})),
        Case("sa.host.packed_kernel_q_kv", param, "dynamic_batch", "fa_dynamic_batch",
             Value("tokenOffset", 0, 6)),
        Case("sa.host.logn_covers_rows", dim, "pa_encoder", "pa_logn",
             [](TestCall& c) { SetDim(c, "logN", 0, 16); }),
        Case("sa.host.logn_covers_rows", dim, "decoder", "fa_decoder_logn",
             [](TestCall& c) { SetDim(c, "logN", 0, 2); }),
    };
}

std::vector<RuleCase> MaskCoverageCases() {
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        Case("sa.mask.covers_lengths", dim, "columns", "pa_norm_mask",
             [](TestCall& c) { SetDim(c, "attentionMask", 1, 16); }),
        Case("sa.mask.covers_lengths", dim, "decoder_columns", "fa_decoder",
             [](TestCall& c) { SetDim(c, "attentionMask", 2, 29); }),
        Case("sa.mask.covers_lengths", dim, "nz_rows", "nz_fa_encoder",
             [](TestCall& c) { SetDim(c, "attentionMask", 2, 16); }),
        Case("sa.mask.covers_lengths", dim, "alibi_compress_rows", "pa_alibi_compress_sqrt_per_head",
             [](TestCall& c) { SetDim(c, "attentionMask", 1, 16); }),
        Case(
            "sa.mask.covers_lengths", dim, "prefix_alibi_compress_rows",
            "prefix_alibi_compress_sqrt_per_head",
            [](TestCall& c) { SetDim(c, "attentionMask", 1, c.In("attentionMask").desc.shape.dims[1] - 1); }),
        Case("sa.mask.covers_lengths", dim, "norm_compress_without_triu", "training_pa_norm_compress",
             WithParam([](P& p) { p.isTriuMask = 0; })),
        Case("sa.mask.actual_max_seq_len", dim, "nd", "nz_pa_norm_mask_nd",
             Resized({{"attentionMask", {17, 18}}})),
        Case("sa.mask.actual_max_seq_len", dim, "nz_rows", "nz_fa_encoder",
             Resized({{"attentionMask", {1, 2, 48, 16}}})),
        Case("sa.mask.kv_covers_q", ERROR_INVALID_PARAM, "", "pa_norm_mask_seq_len_2b",
             Values("seqLen", {5, 17, 1, 9, 12, 8}, {2, 3})),
    };
}

std::vector<RuleCase> DeviceCases() {
    const ErrorType param = ERROR_INVALID_PARAM;
    return {
        Case("sa.device.layer_id_in_range", param, "past_end", "fa_encoder", Value("layerId", 0, 2)),
        Case("sa.device.layer_id_in_range", param, "negative", "bnsd_bypass", Value("layerId", 0, -1)),
        Case("sa.device.layer_id_in_range", param, "uint32_large", "fa_uint32_lengths",
             Value("layerId", 0, static_cast<int32_t>(0x80000000u))),
        Case("sa.device.block_ids_in_range", param, "past_end", "prefix_norm_compress",
             [](TestCall& c) {
                 Elements<int32_t>(c.In("blockTables"))[0] =
                     static_cast<int32_t>(c.In("key").desc.shape.dims[0]);
             }),
        Case("sa.device.block_ids_in_range", param, "negative", "prefix_causal", Value("blockTables", 4, -1)),
    };
}

}  // namespace

std::vector<RuleCase> SelfAttentionValueRuleCases() {
    std::vector<RuleCase> all = HostCases();
    for (auto* part : {&MaskCoverageCases, &DeviceCases}) {
        std::vector<RuleCase> more = part();
        all.insert(all.end(), more.begin(), more.end());
    }
    return all;
}

}  // namespace atbx::test
