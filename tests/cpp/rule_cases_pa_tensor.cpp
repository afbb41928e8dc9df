// PagedAttention tensor rule cases (dtype/format, rank, shape): a valid call and the tensor change that
// breaks only that rule.
#include "support/pa_case_helpers.h"
#include "support/rule_case.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using P = PaParam;

RuleCase Case(std::string rule, ErrorType code, std::string variant, std::string call, CallEdit edit) {
    return {std::move(rule), code, std::move(variant), From(std::move(call)), std::move(edit)};
}

RuleCase Ini(std::string rule, std::string variant, std::string call, CallEdit edit) {
    return Case(std::move(rule), ERROR_INVALID_TENSOR_INI_MATCH, std::move(variant), std::move(call),
                std::move(edit));
}

RuleCase Dim(std::string rule, std::string variant, std::string call, CallEdit edit) {
    return Case(std::move(rule), ERROR_INVALID_TENSOR_DIM, std::move(variant), std::move(call),
                std::move(edit));
}

CallEdit Dtype(const char* input, aclDataType dtype) {
    return [=](TestCall& c) { SetDtype(c, input, dtype); };
}

CallEdit Format(const char* input, aclFormat format) {
    return [=](TestCall& c) { SetFormat(c, input, format); };
}

CallEdit CacheFormat(aclFormat format) {
    return Edits({Format("keyCache", format), Format("valueCache", format)});
}

CallEdit Dimension(const char* input, int dim, int64_t value) {
    return [=](TestCall& c) { SetDim(c, input, dim, value); };
}

CallEdit CacheDimension(int dim, int64_t value) {
    return [=](TestCall& c) { SetCacheDim(c, dim, value); };
}

std::vector<RuleCase> DtypeCases() {
    return {
        Ini("pa.dtype.query", "int32", "a2.decode", Dtype("query", ACL_INT32)),
        Ini("pa.dtype.query", "nz", "a2.decode", Format("query", ACL_FORMAT_FRACTAL_NZ)),
        Ini("pa.dtype.query", "qkv_float16", "a2.qkv.offline", Dtype("query", ACL_FLOAT16)),
        Ini("pa.dtype.cache", "value_float", "a2.decode", Dtype("valueCache", ACL_FLOAT)),
        Ini("pa.dtype.cache", "key_bf16", "a2.decode", Dtype("keyCache", ACL_BF16)),
        Ini("pa.dtype.cache", "formats_differ", "a2.decode", Format("valueCache", ACL_FORMAT_FRACTAL_NZ)),
        Ini("pa.dtype.cache", "nchw", "a2.decode", CacheFormat(ACL_FORMAT_NCHW)),
        Ini("pa.dtype.cache", "dequant_float16_key", "a2.dequant", Dtype("keyCache", ACL_FLOAT16)),
        Ini("pa.dtype.cache_format", "a2_nz", "a2.decode", CacheFormat(ACL_FORMAT_FRACTAL_NZ)),
        Ini("pa.dtype.cache_format", "inference_nd", "inference.decode", CacheFormat(ACL_FORMAT_ND)),
        Ini("pa.dtype.cache_format", "a350_nz", "a350.decode", CacheFormat(ACL_FORMAT_FRACTAL_NZ)),
        Ini("pa.dtype.index_tensors", "float16_context_lens", "a2.decode", Dtype("contextLens", ACL_FLOAT16)),
        Ini("pa.dtype.index_tensors", "float16_block_tables", "a2.decode", Dtype("blockTables", ACL_FLOAT16)),
        Ini("pa.dtype.index_tensors", "float16_q_seq_len", "a2.spec.norm_square",
            Dtype("qSeqLen", ACL_FLOAT16)),
        Ini("pa.dtype.index_tensors", "int64_batch_run_status", "a2.decode.batch_run_status",
            Dtype("batchRunStatus", ACL_INT64)),
        Ini("pa.dtype.mask", "bf16_with_float16_query", "a2.mask.norm_3d", Dtype("mask", ACL_BF16)),
        Ini("pa.dtype.mask", "qkv_not_out_dtype", "a2.qkv.online_mask", Dtype("mask", ACL_BF16)),
        Ini("pa.dtype.mask", "a2_nz", "a2.mask.norm_3d", Format("mask", ACL_FORMAT_FRACTAL_NZ)),
        Ini("pa.dtype.mask", "inference_nd_decode", "inference.norm", Format("mask", ACL_FORMAT_ND)),
        Ini("pa.dtype.quant_scales", "uint64_descale", "a2.dequant",
            Edits({Dtype("kDescale", ACL_UINT64), Dtype("vDescale", ACL_UINT64)})),
        Ini("pa.dtype.quant_scales", "descales_differ", "a2.dequant", Dtype("vDescale", ACL_INT64)),
        Ini("pa.dtype.quant_scales", "float_offset", "a2.dequant.offsets", Dtype("vOffset", ACL_FLOAT)),
        Ini("pa.dtype.quant_scales", "float16_p_scale", "a2.qkv.offline", Dtype("pScale", ACL_FLOAT16)),
        Ini("pa.dtype.razor_offset", "", "a2.compress.rope", Dtype("razorOffset", ACL_FLOAT16)),
        Ini("pa.dtype.log_n", "a2_float16", "a2.logn", Dtype("logN", ACL_FLOAT16)),
        Ini("pa.dtype.log_n", "inference_float", "inference.logn", Dtype("logN", ACL_FLOAT)),
        Case("pa.dtype.float16_only", ERROR_INVALID_TENSOR_DTYPE, "inference", "inference.norm",
             Edits({Dtype("query", ACL_BF16), Dtype("keyCache", ACL_BF16), Dtype("valueCache", ACL_BF16),
                    Dtype("mask", ACL_BF16)})),
        Case("pa.dtype.float16_only", ERROR_INVALID_TENSOR_DTYPE, "training", "training.decode",
             Edits({Dtype("query", ACL_BF16), Dtype("keyCache", ACL_BF16), Dtype("valueCache", ACL_BF16)})),
        Case("pa.dtype.dequant_bf16_int64_descale", ERROR_INVALID_TENSOR_DTYPE, "", "a2.dequant.bf16",
             Edits({Dtype("kDescale", ACL_INT64), Dtype("vDescale", ACL_INT64)})),
        Case("pa.dtype.compress_dequant_fp16_query", ERROR_INVALID_TENSOR_DTYPE, "",
             "a2.compress.kvhead.dequant",
             Edits({Dtype("query", ACL_BF16), Dtype("kDescale", ACL_FLOAT), Dtype("vDescale", ACL_FLOAT)})),
    };
}

std::vector<RuleCase> RankCases() {
    const auto add = [](const char* input) { return [=](TestCall& c) { AddDim(c, input); }; };
    const auto drop = [](const char* input) { return [=](TestCall& c) { DropDim(c, input); }; };
    return {
        Case("pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "block_tables_3d", "a2.decode",
             add("blockTables")),
        Case("pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "query_4d", "a2.decode", add("query")),
        Case("pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "key_3d", "a2.decode", drop("keyCache")),
        Case("pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "context_lens_2d", "a2.decode",
             add("contextLens")),
        Case("pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "mla_key_3d", "a2.mla.combined", drop("keyCache")),
        Dim("pa.rank.aux_tensors", "log_n_2d", "a2.logn", add("logN")),
        Dim("pa.rank.aux_tensors", "razor_offset_1d", "a2.compress.rope", drop("razorOffset")),
        Dim("pa.rank.aux_tensors", "q_seq_len_2d", "a2.spec.norm_square", add("qSeqLen")),
        Dim("pa.rank.aux_tensors", "descale_2d", "a2.dequant", add("kDescale")),
        Dim("pa.rank.aux_tensors", "batch_run_status_2d", "a2.decode.batch_run_status",
            add("batchRunStatus")),
    };
}

std::vector<RuleCase> CacheShapeCases() {
    return {
        Dim("pa.shape.query_heads", "", "a2.decode", Dimension("query", 1, 4)),
        Dim("pa.shape.cache_kv_heads", "bsnd", "a2.decode", CacheDimension(2, 4)),
        Dim("pa.shape.cache_kv_heads", "bnsd", "a2.decode.bnsd", CacheDimension(1, 4)),
        Dim("pa.shape.cache_kv_heads", "compressed", "a2.compress.kvhead", CacheDimension(2, 2)),
        Dim("pa.shape.cache_kv_heads", "a350_kv_head_num_zero", "a350.decode",
            EditParam([](P& p) { p.kvHeadNum = 0; })),
        Dim("pa.shape.kv_cache_match", "num_blocks", "a2.decode", Dimension("valueCache", 0, 3)),
        Dim("pa.shape.kv_cache_match", "block_size", "a2.decode", Dimension("valueCache", 1, 32)),
        Dim("pa.shape.kv_cache_match", "nz_tiles", "inference.decode", Dimension("valueCache", 1, 4)),
        Dim("pa.shape.nz_cache_last_dim_16", "", "inference.decode", Dimension("keyCache", 3, 32)),
        Dim("pa.shape.nz_head_size_multiple_of_16", "not_16", "inference.decode",
            Edits({CacheDimension(1, 5), Dimension("query", 2, 40)})),
        Dim("pa.shape.nz_head_size_multiple_of_16", "inexact", "training.decode",
            Edits({EditParam([](P& p) {
                       p.headNum = 6;
                       p.kvHeadNum = 3;
                   }),
                   Dimension("query", 1, 6), CacheDimension(1, 13)})),
        Dim("pa.shape.query_head_size", "", "a2.decode", Dimension("query", 2, 32)),
        Dim("pa.shape.query_head_size", "nz", "inference.decode", Dimension("query", 2, 48)),
        Dim("pa.shape.kv_head_size_equal", "dequant", "a2.dequant", Dimension("valueCache", 3, 32)),
        Dim("pa.shape.kv_head_size_equal", "spec_mask", "a2.mask.spec_decode",
            Dimension("valueCache", 3, 32)),
        Dim("pa.shape.kv_head_size_equal", "compress", "a2.compress.kvhead", Dimension("valueCache", 3, 32)),
        Dim("pa.shape.kv_head_size_equal", "a350", "a350.decode", Dimension("valueCache", 3, 32)),
        Dim("pa.shape.kv_head_size_equal", "bnsd", "a2.decode.bnsd", Dimension("valueCache", 3, 32)),
        Dim("pa.shape.head_size_range", "restricted", "a2.logn", [](TestCall& c) { SetHeadSize(c, 288); }),
        Dim("pa.shape.head_size_range", "value_577", "a2.decode.split_kv_heads",
            Dimension("valueCache", 3, 577)),
        Dim("pa.shape.head_size_range", "key_577", "a2.decode.split_kv_heads",
            Edits({Dimension("keyCache", 3, 577), Dimension("query", 2, 577)})),
        Dim("pa.shape.head_size_range", "inference", "inference.decode",
            Edits({CacheDimension(1, 34), Dimension("query", 2, 272)})),
        Dim("pa.shape.head_size_range", "a350", "a350.decode", [](TestCall& c) { SetHeadSize(c, 288); }),
        Dim("pa.shape.block_head_product", "a2", "a2.decode", CacheDimension(1, 512)),
        Dim("pa.shape.block_head_product", "inference", "inference.decode", CacheDimension(2, 512)),
        Dim("pa.shape.large_head_block_size", "split", "a2.decode.split_kv_576_512", CacheDimension(1, 256)),
        Dim("pa.shape.large_head_block_size", "mla_head_num", "a2.mla.block256",
            Edits({EditParam([](P& p) { p.headNum = 8; }), Dimension("query", 1, 8)})),
        Dim("pa.shape.head_size_256_large_block", "bnsd", "a2.decode.head256_block128",
            Edits({EditParam([](P& p) { p.inputLayout = infer::TYPE_BNSD; }), CacheDimension(1, 2),
                   CacheDimension(2, 128)})),
        Dim("pa.shape.head_size_256_large_block", "block_144", "a2.decode.head256_block128",
            CacheDimension(1, 144)),
        Dim("pa.shape.head_size_256_large_block", "dequant", "a2.dequant",
            Edits({[](TestCall& c) { SetHeadSize(c, 256); }, CacheDimension(1, 128),
                   Dimension("kDescale", 0, 512), Dimension("vDescale", 0, 512)})),
        Dim("pa.shape.head_size_256_large_block", "spec", "a2.spec.norm_square",
            Edits({[](TestCall& c) { SetHeadSize(c, 256); }, CacheDimension(1, 128)})),
        Dim("pa.shape.mla_v_head_size_le_k", "", "a2.mla.combined",
            EditParam([](P& p) { p.mlaVHeadSize = 256; })),
        Dim("pa.shape.mla_batch_max", "", "a2.mla.combined",
            Edits({Dimension("contextLens", 0, 8193), Dimension("blockTables", 0, 8193)})),
        Dim("pa.shape.block_size_multiple_of_16", "a2", "a2.decode", CacheDimension(1, 24)),
        Dim("pa.shape.block_size_multiple_of_16", "nz", "inference.decode", CacheDimension(2, 24)),
        Dim("pa.shape.parallel_block_size_max", "a2", "a2.spec.norm_square", CacheDimension(1, 256)),
        Dim("pa.shape.parallel_block_size_max", "inference", "inference.spec", CacheDimension(2, 256)),
        Case("pa.shape.mask_free_block_size", ERROR_INVALID_PARAM, "", "inference.mask_free",
             CacheDimension(2, 64)),
        Dim("pa.shape.atlas_inference_batch_max", "inference", "inference.decode",
            Edits({Dimension("contextLens", 0, 2049), Dimension("blockTables", 0, 2049)})),
        Dim("pa.shape.atlas_inference_batch_max", "training", "training.decode",
            Edits({Dimension("contextLens", 0, 2049), Dimension("blockTables", 0, 2049)})),
        Dim("pa.shape.mask_free_atlas_inference_only", "", "a2.decode",
            [](TestCall& c) {
                c.Param<P>().maskType = P::MASK_TYPE_MASK_FREE;
                c.inputs.insert(c.inputs.begin() + 5, ZeroTensor(Desc(ACL_FLOAT16, {1, 8, 128, 16})));
                NameInputs(c);
            }),
    };
}

std::vector<RuleCase> AuxShapeCases() {
    return {
        Dim("pa.shape.block_tables_rows", "", "a2.decode", Dimension("blockTables", 0, 3)),
        Dim("pa.shape.batch_run_status_tokens", "", "a2.decode.batch_run_status", Dimension("query", 0, 6)),
        Dim("pa.shape.batch_run_status_batch", "", "a2.decode.batch_run_status",
            Dimension("batchRunStatus", 0, 4)),
        Dim("pa.shape.q_seq_len_batch", "", "a2.spec.norm_square", Dimension("qSeqLen", 0, 3)),
        Dim("pa.shape.compress_query_rows", "", "a2.compress.kvhead", Dimension("query", 0, 3)),
        Dim("pa.shape.dequant_scales", "descale", "a2.dequant", Dimension("kDescale", 0, 64)),
        Dim("pa.shape.dequant_scales", "offset", "a2.dequant.offsets", Dimension("vOffset", 0, 64)),
        Dim("pa.shape.dequant_int64_limits", "block_size", "a2.dequant.int64", CacheDimension(1, 128)),
        Dim("pa.shape.dequant_int64_limits", "head_size", "a2.dequant.int64",
            Edits({[](TestCall& c) { SetHeadSize(c, 160); }, Dimension("kDescale", 0, 320),
                   Dimension("vDescale", 0, 320)})),
        Dim("pa.shape.qkv_quant_scales", "p_scale", "a2.qkv.offline", Dimension("pScale", 0, 4)),
        Dim("pa.shape.qkv_quant_scales", "descale", "a2.qkv.online_mask", Dimension("vDescale", 0, 2)),
        Dim("pa.shape.razor_offset_dims", "", "a2.compress.rope", Dimension("razorOffset", 1, 8)),
        Dim("pa.shape.log_n_batch", "a2", "a2.logn", Dimension("logN", 0, 3)),
        Dim("pa.shape.log_n_batch", "inference", "inference.logn", Dimension("logN", 0, 5)),
        Dim("pa.shape.norm_compress_mask", "short", "inference.norm_compress", Dimension("mask", 1, 1024)),
        Dim("pa.shape.norm_compress_mask", "nz", "inference.norm_compress",
            Edits({Format("mask", ACL_FORMAT_FRACTAL_NZ),
                   [](TestCall& c) {
                       SetShape(c, "mask", {1, 128, 2048, 16});
                   }})),
        Dim("pa.shape.mask_free_mask", "rows", "inference.mask_free", Dimension("mask", 2, 64)),
        Dim("pa.shape.mask_free_mask", "nd", "inference.mask_free", Format("mask", ACL_FORMAT_ND)),
    };
}

}  // namespace

std::vector<RuleCase> PagedAttentionTensorRuleCases() {
    std::vector<RuleCase> cases;
    for (auto* part : {&DtypeCases, &RankCases, &CacheShapeCases, &AuxShapeCases}) {
        std::vector<RuleCase> more = part();
        cases.insert(cases.end(), more.begin(), more.end());
    }
    return cases;
}

}  // namespace atbx::test
