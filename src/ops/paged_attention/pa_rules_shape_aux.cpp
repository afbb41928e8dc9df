// PagedAttention shape rules (InferShape) for everything but the caches: tensors indexed by batch, the
// query's rows under compression, quantization scales, razorOffset, logN, and the two fixed-shape masks
// (docs/spec/paged_attention.md 4.3, 4.4, 4.5; DECISIONS 3, 10, 11).
//
// B' = contextLens.dims[0]: the batch, or batch * kvHeadNum under KV-head compression (one sequence per batch
// and kv head).
#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kShape = Stage::kShape;

std::string ShapeOf(const S& s, Input input) {
    return core::StrCat(InputName(input), ' ', ShapeToString(s.Desc(input).shape));
}

Verdict BlockTablesRows(const S& s) {
    return Require(s.Dim(Input::kBlockTables, 0) >= s.Batch(),
                   "blockTables needs a row per sequence: dims[0] must ", "be >= contextLens.dims[0] ",
                   s.Batch(), ", got ", ShapeOf(s, Input::kBlockTables));
}

Verdict BatchRunStatusTokens(const S& s) {
    if (!s.param->batchRunStatusEnable) return Pass();
    const int64_t tokens = s.Tokens();
    return Require(tokens <= s.Dim(Input::kBlockTables, 0) && tokens <= s.Batch(),
                   "with batchRunStatus, query.dims[0] ", tokens, " must be <= blockTables.dims[0] ",
                   s.Dim(Input::kBlockTables, 0), " and <= contextLens.dims[0] ", s.Batch());
}

Verdict CheckBatchLength(const S& s, Input input) {
    if (!s.Has(input)) return Pass();
    return Require(s.Dim(input, 0) == s.Batch(), InputName(input),
                   " must have contextLens.dims[0] = ", s.Batch(), " entries, got ", ShapeOf(s, input));
}

Verdict BatchRunStatusBatch(const S& s) {
    return CheckBatchLength(s, Input::kBatchRunStatus);
}
Verdict QSeqLenBatch(const S& s) {
    return CheckBatchLength(s, Input::kQSeqLen);
}
Verdict LogNBatch(const S& s) {
    return CheckBatchLength(s, Input::kLogN);
}

Verdict CompressQueryRows(const S& s) {
    if (!s.Compressed()) return Pass();
    return Require(SatMul(s.Tokens(), s.KvHeadNum()) == s.Batch(),
                   "under KV-head compression query.dims[0] * kvHeadNum ",
                   "must equal contextLens.dims[0] (one sequence per batch and kv head), got ", s.Tokens(),
                   " * ", s.KvHeadNum(), " and ", s.Batch());
}

Verdict CheckLength(const S& s, Input input, int64_t want, const char* what) {
    if (!s.Has(input)) return Pass();
    return Require(s.Dim(input, 0) == want, InputName(input), " must be [", want, "] (", what, "), got ",
                   ShapeOf(s, input));
}

Verdict DequantScales(const S& s) {
    if (!s.Dequant()) return Pass();
    const int64_t channels = SatMul(s.KvHeadNum(), s.HeadSizeK());
    for (Input input : {Input::kKDescale, Input::kVDescale, Input::kKOffset, Input::kVOffset}) {
        if (auto v = CheckLength(s, input, channels, "kvHeadNum * head_size")) return v;
    }
    return Pass();
}

Verdict DequantInt64Limits(const S& s) {
    if (!s.Dequant() || s.Desc(Input::kKDescale).dtype != ACL_INT64) return Pass();
    const int64_t dv = s.HeadSizeV();
    return Require(dv <= 128 && s.BlockSize() <= dv, "int64 descales need valueCache head_size <= 128 and ",
                   "block_size <= head_size, got head_size ", dv, " and block_size ", s.BlockSize());
}

Verdict QkvQuantScales(const S& s) {
    if (!s.QkvQuant()) return Pass();
    for (Input input : {Input::kKDescale, Input::kVDescale, Input::kPScale}) {
        if (auto v = CheckLength(s, input, s.HeadNum(), "headNum")) return v;
    }
    return Pass();
}

Verdict RazorOffsetDims(const S& s) {
    if (!s.Has(Input::kRazorOffset)) return Pass();
    return Require(
        s.Dim(Input::kRazorOffset, 0) == s.NumBlocks() && s.Dim(Input::kRazorOffset, 1) == s.BlockSize(),
        "razorOffset must be [keyCache.dims[0], keyCache.dims[1]] = [", s.NumBlocks(), ", ", s.BlockSize(),
        "], got ", ShapeOf(s, Input::kRazorOffset));
}

bool IsNormCompressShape(const Dims& shape) {
    const int64_t n = kNormCompressMaskLen;
    const int64_t* d = shape.dims;
    switch (shape.dimNum) {
        case 2:
            return d[0] == n && d[1] == n;
        case 3:
            return d[0] == 1 && d[1] == n && d[2] == n;
        case 4:
            return d[0] == 1 && d[1] == 1 && d[2] == n && d[3] == n;
        default:
            return false;
    }
}

Verdict NormCompressMask(const S& s) {
    if (!NormCompress(s)) return Pass();
    const TensorDesc& mask = s.Desc(Input::kMask);
    if (mask.format != ACL_FORMAT_ND)
        return Fail("the MASK_TYPE_NORM_COMPRESS mask must be ND, got ", FormatName(mask.format));
    return Require(IsNormCompressShape(mask.shape), "the MASK_TYPE_NORM_COMPRESS mask must be [2048, 2048] ",
                   "(or [1, 2048, 2048], [1, 1, 2048, 2048]), got ", ShapeOf(s, Input::kMask));
}

Verdict MaskFreeMask(const S& s) {
    if (!MaskFree(s)) return Pass();
    const TensorDesc& mask = s.Desc(Input::kMask);
    const Dims& d = mask.shape;
    const bool tile =
        d.dimNum == 4 && d.dims[0] == 1 && d.dims[1] == 8 && d.dims[2] == 128 && d.dims[3] == 16;
    return Require(tile && mask.format == ACL_FORMAT_FRACTAL_NZ,
                   "the MASK_TYPE_MASK_FREE mask must be the FRACTAL_NZ 128 x 128 tile [1, 8, 128, 16], got ",
                   FormatName(mask.format), ' ', ShapeToString(d));
}

}  // namespace

std::vector<PaRule> AuxShapeRules() {
    const auto dim = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                        std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, kShape, profiles, ERROR_INVALID_TENSOR_DIM, condition, source, check);
    };
    return {
        dim("pa.shape.block_tables_rows", kAll, "blockTables.dims[0] >= contextLens.dims[0]",
            "docs/spec/paged_attention.md 2.2 (a row per batch; B * kvHeadNum under compression), 3.1",
            BlockTablesRows),
        dim("pa.shape.batch_run_status_tokens", kA2Only,
            "with batchRunStatus: query.dims[0] <= blockTables.dims[0] and <= contextLens.dims[0]",
            "docs/spec/paged_attention.md 4.3 (InferShapeDimCheck), 3.10", BatchRunStatusTokens),
        dim("pa.shape.batch_run_status_batch", kAll, "batchRunStatus.dims[0] == contextLens.dims[0]",
            "docs/spec/paged_attention.md 2.2, 4.4 (LogNDimCheck); DECISIONS 3", BatchRunStatusBatch),
        dim("pa.shape.q_seq_len_batch", kAll, "qSeqLen.dims[0] == contextLens.dims[0]",
            "DECISIONS 10 (len(qSeqLen) == B); docs/spec/paged_attention.md 7.14", QSeqLenBatch),
        dim("pa.shape.compress_query_rows", kA2Only,
            "under KV-head compression query.dims[0] * kvHeadNum == contextLens.dims[0]",
            "docs/spec/paged_attention.md 3.4, 4.5 (kernel: T * kvHeadNum == contextLens.size())",
            CompressQueryRows),
        dim("pa.shape.dequant_scales", kA2Only,
            "DEQUANT: kDescale, vDescale, kOffset, vOffset are [kvHeadNum * D]",
            "docs/spec/paged_attention.md 2.2, 4.5 (dequant)", DequantScales),
        dim("pa.shape.dequant_int64_limits", kA2Only,
            "DEQUANT with int64 descales: valueCache head_size <= 128 and block_size <= head_size",
            "docs/spec/paged_attention.md 3.7, 4.5 (non-fp32 descale)", DequantInt64Limits),
        dim("pa.shape.qkv_quant_scales", kA2Only, "QKV quant: kDescale, vDescale, pScale are [headNum]",
            "docs/spec/paged_attention.md 2.2, 4.5 (QKV quant)", QkvQuantScales),
        dim("pa.shape.razor_offset_dims", kA2Only, "razorOffset is [keyCache.dims[0], keyCache.dims[1]]",
            "docs/spec/paged_attention.md 3.3, 4.4 (RazorDimCheck), 4.5; DECISIONS 11", RazorOffsetDims),
        dim("pa.shape.log_n_batch", kA2AndInference, "logN.dims[0] == contextLens.dims[0]",
            "docs/spec/paged_attention.md 3.2, 4.4 (LogNDimCheck)", LogNBatch),
        dim("pa.shape.norm_compress_mask", kInferenceOnly,
            "the NORM_COMPRESS mask is ND [2048, 2048] (or [1, 2048, 2048], [1, 1, 2048, 2048])",
            "seed: 'Mask dimensions: ND = [2048, 2048].'; docs/spec/paged_attention.md 4.3, 4.5 "
            "(CheckNormCompressNdMask), 7.5",
            NormCompressMask),
        dim("pa.shape.mask_free_mask", kInferenceOnly, "the MASK_FREE mask is the NZ tile [1, 8, 128, 16]",
            "docs/spec/paged_attention.md 2.3, 3.5, 4.3, 4.4 (MASK_FREE)", MaskFreeMask),
    };
}

}  // namespace atbx::ops::pa
