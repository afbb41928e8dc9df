// PagedAttention rule cases: for every rule, a valid call and the change that breaks only that rule.
#include "support/pa_calls.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

TestCall Decode() {
    return MakePaCall({});
}

// Changes the param of a call.
template <class F>
std::function<void(TestCall&)> WithParam(F change) {
    return [change](TestCall& c) { change(c.Param<Param>()); };
}

void SetDim(TestCall& c, const char* input, int dim, int64_t value) {
    c.In(input).desc.shape.dims[dim] = value;
}

}  // namespace

std::vector<RuleCase> PagedAttentionRuleCases() {
    return {
        {"pa.param.rsv_zero", ERROR_INVALID_PARAM, "", Decode, WithParam([](Param& p) { p.rsv[3] = 1; })},
        {"pa.param.head_num_positive", ERROR_INVALID_PARAM, "zero", Decode,
         WithParam([](Param& p) { p.headNum = 0; })},
        {"pa.param.head_num_positive", ERROR_INVALID_PARAM, "negative", Decode,
         WithParam([](Param& p) { p.headNum = -1; })},
        {"pa.param.kv_head_num_non_negative", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.kvHeadNum = -1; })},
        {"pa.param.head_num_divisible", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.kvHeadNum = 3; })},
        {"pa.param.mask_type_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.maskType = static_cast<Param::MaskType>(6); })},
        {"pa.param.quant_type_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.quantType = static_cast<Param::QuantType>(4); })},
        {"pa.param.calc_type_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.calcType = static_cast<Param::CalcType>(2); })},
        {"pa.param.input_layout_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.inputLayout = static_cast<infer::InputLayout>(2); })},
        {"pa.param.compress_type_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.compressType = Param::COMPRESS_TYPE_MAX; })},
        {"pa.param.scale_type_range", ERROR_INVALID_PARAM, "", Decode,
         WithParam([](Param& p) { p.scaleType = Param::SCALE_TYPE_MAX; })},
        {"pa.dtype.query", ERROR_INVALID_TENSOR_INI_MATCH, "int32", Decode,
         [](TestCall& c) { c.In("query").desc.dtype = ACL_INT32; }},
        {"pa.dtype.cache", ERROR_INVALID_TENSOR_INI_MATCH, "fp32", Decode,
         [](TestCall& c) { c.In("valueCache").desc.dtype = ACL_FLOAT; }},
        {"pa.dtype.index_tensors", ERROR_INVALID_TENSOR_INI_MATCH, "fp16_context_lens", Decode,
         [](TestCall& c) { c.In("contextLens").desc.dtype = ACL_FLOAT16; }},
        {"pa.rank.core", ERROR_INVALID_TENSOR_DIM_NUM, "block_tables_3d", Decode,
         [](TestCall& c) {
             c.In("blockTables").desc.shape.dims[c.In("blockTables").desc.shape.dimNum++] = 1;
         }},
        {"pa.shape.query_heads", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) { SetDim(c, "query", 1, 4); }},
        {"pa.shape.cache_kv_heads", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) {
             SetDim(c, "keyCache", 2, 4);
             SetDim(c, "valueCache", 2, 4);
         }},
        {"pa.shape.query_head_size", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) { SetDim(c, "query", 2, 32); }},
        {"pa.shape.block_size_multiple_of_16", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) {
             SetDim(c, "keyCache", 1, 24);
             SetDim(c, "valueCache", 1, 24);
         }},
        {"pa.host.context_lens_non_negative", ERROR_INVALID_PARAM, "", Decode,
         [](TestCall& c) { Elements<int32_t>(c.In("contextLens"))[1] = -1; }},
        {"pa.host.max_blocks_cover_context", ERROR_INVALID_TENSOR_DIM, "", Decode,
         [](TestCall& c) { Elements<int32_t>(c.In("contextLens"))[0] = 40 + 16; }},
        {"pa.device.block_ids_in_range", ERROR_INVALID_PARAM, "past_end", Decode,
         [](TestCall& c) {
             Elements<int32_t>(c.In("blockTables"))[0] =
                 static_cast<int32_t>(c.In("keyCache").desc.shape.dims[0]);
         }},
        {"pa.device.block_ids_in_range", ERROR_INVALID_PARAM, "negative", Decode,
         [](TestCall& c) { Elements<int32_t>(c.In("blockTables"))[1] = -1; }},
    };
}

}  // namespace atbx::test
