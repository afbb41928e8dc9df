// PagedAttention host-value, mask and device-value rule cases: a valid call and the change of lengths, flags,
// mask shape or block id that breaks only that rule.
#include "support/pa_case_helpers.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using P = PaParam;

RuleCase Case(std::string rule, ErrorType code, std::string variant, std::string call, CallEdit edit) {
    return {std::move(rule), code, std::move(variant), From(std::move(call)), std::move(edit)};
}

RuleCase Value(std::string rule, std::string variant, std::string call, CallEdit edit) {
    return Case(std::move(rule), ERROR_INVALID_PARAM, std::move(variant), std::move(call), std::move(edit));
}

RuleCase Dim(std::string rule, std::string variant, std::string call, CallEdit edit) {
    return Case(std::move(rule), ERROR_INVALID_TENSOR_DIM, std::move(variant), std::move(call),
                std::move(edit));
}

CallEdit Int(const char* input, size_t index, int32_t value) {
    return [=](TestCall& c) { SetInt32(c, input, index, value); };
}

CallEdit Rows(int64_t rows) {
    return [=](TestCall& c) { SetRows(c, rows); };
}

// Changes one dim of the mask; its bytes follow, so the memory stage passes and the mask rule decides.
CallEdit MaskDim(int dim, int64_t value) {
    return [=](TestCall& c) {
        io::HostTensor& mask = c.In("mask");
        mask.desc.shape.dims[dim] = value;
        mask.bytes.resize(ElementCount(mask.desc) * DataTypeSize(mask.desc.dtype), 0x11);
    };
}

CallEdit MaskShape(std::initializer_list<int64_t> dims) {
    const std::vector<int64_t> all(dims);
    return [=](TestCall& c) {
        io::HostTensor& mask = c.In("mask");
        mask.desc.shape = Dims{};
        for (int64_t d : all)
            mask.desc.shape.dims[mask.desc.shape.dimNum++] = d;
        mask.bytes.resize(ElementCount(mask.desc) * DataTypeSize(mask.desc.dtype), 0x11);
    };
}

// Parallel decoding that is not yet parallel: calcType SPEC with a NORM mask, every query one token long
// except the first batch, which has none. Moving two tokens to the first batch (and none to the next two)
// keeps the query rows and turns ATB's parallel limits on.
std::function<TestCall()> NearlyParallel(int32_t heads, int32_t kvHeads, int32_t headSize, int32_t batch) {
    return [=] {
        P p;
        p.headNum = heads;
        p.kvHeadNum = kvHeads;
        p.calcType = P::CALC_TYPE_SPEC;
        p.maskType = P::MASK_TYPE_NORM;
        PaShape shape;
        shape.headSize = headSize;
        shape.contextLens.assign(batch, 3);
        shape.contextLens[0] = 2;
        shape.qSeqLen.assign(batch, 1);
        shape.qSeqLen[0] = 0;
        shape.extraBlocks = 1;
        return MakePaCall(p, shape);
    };
}

CallEdit MakeParallel() {
    return Edits({Int("qSeqLen", 0, 2), Int("qSeqLen", 1, 0), Int("qSeqLen", 2, 0)});
}

RuleCase ParallelCase(std::string rule, ErrorType code, int32_t heads, int32_t kvHeads, int32_t headSize,
                      int32_t batch) {
    return {std::move(rule), code, "", NearlyParallel(heads, kvHeads, headSize, batch), MakeParallel()};
}

std::vector<RuleCase> HostCases() {
    return {
        Value("pa.host.context_lens_non_negative", "a2", "a2.decode", Int("contextLens", 1, -1)),
        Value("pa.host.context_lens_non_negative", "inference", "inference.decode",
              Int("contextLens", 1, -1)),
        Value("pa.host.context_lens_positive", "inference", "inference.decode",
              Edits({Int("contextLens", 1, 0), Rows(3)})),
        Value("pa.host.context_lens_positive", "training", "training.decode",
              Edits({Int("contextLens", 0, 0), Rows(3)})),
        Value("pa.host.context_lens_positive", "a350", "a350.decode",
              Edits({Int("contextLens", 3, 0), Rows(3)})),
        Value("pa.host.q_seq_len_range", "a2_negative", "a2.spec.norm_square", Int("qSeqLen", 0, -1)),
        Value("pa.host.q_seq_len_range", "inference_zero", "inference.spec",
              Edits({Int("qSeqLen", 0, 0), Rows(9)})),
        Value("pa.host.batch_run_status_values", "", "a2.decode.batch_run_status",
              Int("batchRunStatus", 0, 2)),
        Value("pa.host.compress_all_sequences_run", "context", "a2.compress.kvhead",
              Int("contextLens", 1, 0)),
        Value("pa.host.compress_all_sequences_run", "status", "a2.compress.kvhead.batch_run_status",
              Int("batchRunStatus", 2, 0)),
        Dim("pa.host.query_rows", "spec_fewer", "a2.spec.norm_square", Int("qSeqLen", 1, 2)),
        Dim("pa.host.query_rows", "spec_more", "a2.spec.norm_square", Int("qSeqLen", 1, 4)),
        Dim("pa.host.query_rows", "batch_run_status", "a2.decode.batch_run_status",
            Int("batchRunStatus", 2, 1)),
        Value("pa.host.spec_kv_covers_query", "a2", "a2.spec.norm_square", Int("contextLens", 2, 1)),
        Value("pa.host.spec_kv_covers_query", "mask_free", "inference.mask_free", Int("contextLens", 0, 2)),
        Value("pa.host.spec_kv_covers_query", "norm_compress", "inference.norm_compress",
              Int("contextLens", 0, 1)),
        Value("pa.host.mask_free_prefix_aligned", "", "inference.mask_free", Int("contextLens", 0, 132)),
        Dim("pa.host.max_blocks_cover_context", "", "a2.decode", Int("contextLens", 0, 40 + 16)),
        ParallelCase("pa.host.parallel_batch_max", ERROR_INVALID_TENSOR_DIM, 1, 1, 16, 2001),
        ParallelCase("pa.host.parallel_head_num_max", ERROR_INVALID_PARAM, 264, 8, 16, 4),
        ParallelCase("pa.host.parallel_head_size_product", ERROR_INVALID_TENSOR_DIM, 72, 8, 256, 4),
        Dim("pa.host.atlas350_num_blocks_cover", "", "a350.decode",
            [](TestCall& c) { SetCacheDim(c, 0, 3); }),
    };
}

std::vector<RuleCase> MaskCases() {
    return {
        Dim("pa.host.mask_norm_shape", "batch", "a2.mask.norm_3d", MaskDim(0, 3)),
        Dim("pa.host.mask_norm_shape", "decode_rows", "a2.mask.norm_3d", MaskDim(1, 2)),
        Dim("pa.host.mask_norm_shape", "short", "a2.mask.norm_3d", MaskDim(2, 39)),
        Dim("pa.host.mask_norm_shape", "four_d", "a2.mask.norm_3d", MaskShape({4, 8, 1, 40})),
        Dim("pa.host.mask_norm_shape", "one_d", "a2.mask.norm_row", MaskShape({40})),
        Dim("pa.host.mask_norm_shape", "row_short", "a2.mask.norm_row", MaskDim(1, 39)),
        Dim("pa.host.mask_norm_shape", "spec_rows", "a2.spec.norm_row", MaskDim(0, 3)),
        Dim("pa.host.mask_norm_shape", "spec_not_square", "a2.spec.norm_3d", MaskDim(1, 39)),
        Dim("pa.host.mask_norm_shape", "square_short", "a2.spec.norm_square", MaskShape({39, 39})),
        Dim("pa.host.mask_norm_shape", "nz_batch", "inference.norm", MaskDim(0, 3)),
        Dim("pa.host.mask_norm_shape", "nz_short", "inference.norm", MaskDim(1, 2)),
        Dim("pa.host.mask_norm_shape", "nz_rows", "training.norm", MaskDim(2, 8)),
        Dim("pa.host.mask_alibi_shape", "heads", "a2.mask.alibi_4d", MaskDim(1, 4)),
        Dim("pa.host.mask_alibi_shape", "rows", "a2.mask.alibi_4d", MaskDim(2, 2)),
        Dim("pa.host.mask_alibi_shape", "short", "a2.mask.alibi_4d", MaskDim(3, 39)),
        Dim("pa.host.mask_alibi_shape", "heads_3d", "a2.mask.alibi_3d", MaskDim(0, 4)),
        Dim("pa.host.mask_alibi_shape", "two_d", "a2.mask.alibi_3d", MaskShape({8, 40})),
        Dim("pa.host.mask_alibi_shape", "compressed_batch", "a2.compress.kvhead.alibi_sequence",
            MaskDim(0, 3)),
        Dim("pa.host.mask_alibi_shape", "nz_planes", "inference.alibi", MaskDim(0, 31)),
        Dim("pa.host.mask_alibi_shape", "nz_rows", "inference.alibi", MaskShape({32, 3, 32, 16})),
        Dim("pa.host.mask_spec_shape", "rows", "a2.spec.spec_mask", MaskDim(0, 9)),
        Dim("pa.host.mask_spec_shape", "short", "a2.spec.spec_mask", MaskDim(1, 39)),
        Dim("pa.host.mask_spec_shape", "three_d", "a2.mask.spec_decode", MaskShape({4, 1, 40})),
        Dim("pa.host.mask_spec_shape", "nz_planes", "inference.spec.nz_mask", MaskDim(0, 2)),
        Dim("pa.host.mask_spec_shape", "nz_short", "inference.spec.nz_mask", MaskDim(1, 2)),
        Dim("pa.host.mask_spec_shape", "nd_rows", "inference.spec.nd_mask", MaskDim(0, 9)),
    };
}

std::vector<RuleCase> DeviceCases() {
    const auto blockId = [](size_t index, int32_t id) { return Int("blockTables", index, id); };
    return {
        Value("pa.device.block_ids_in_range", "past_end", "a2.decode",
              [](TestCall& c) {
                  SetInt32(c, "blockTables", 0, static_cast<int32_t>(c.In("keyCache").desc.shape.dims[0]));
              }),
        Value("pa.device.block_ids_in_range", "negative", "a2.decode", blockId(1, -1)),
        Value("pa.device.block_ids_in_range", "compressed", "a2.compress.kvhead",
              [](TestCall& c) {
                  SetInt32(c, "blockTables", 3 * c.In("blockTables").desc.shape.dims[1], 1000);
              }),
        Value("pa.device.block_ids_in_range", "nz", "inference.decode", blockId(0, 1000)),
    };
}

}  // namespace

std::vector<RuleCase> PagedAttentionValueRuleCases() {
    std::vector<RuleCase> cases;
    for (auto* part : {&HostCases, &MaskCases, &DeviceCases}) {
        std::vector<RuleCase> more = part();
        cases.insert(cases.end(), more.begin(), more.end());
    }
    return cases;
}

}  // namespace atbx::test
