// PagedAttention tensor rules: dtypes and formats (paged_attention.md 2.4, 4.2), ranks and shapes (4.3-4.6,
// the seed).
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

bool IsFloat16Or(aclDataType dtype) {
    return dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}

Verdict QueryDtype(const S& s) {
    const aclDataType q = s.Desc(Input::kQuery).dtype;
    if (s.QkvQuant())
        return Require(q == ACL_INT8, "query must be int8 with QKV quant, got ", DataTypeName(q));
    return Require(IsFloat16Or(q), "query must be float16 or bfloat16, got ", DataTypeName(q));
}

Verdict CacheDtype(const S& s) {
    const aclDataType q = s.Desc(Input::kQuery).dtype;
    if (!s.QkvQuant() && !IsFloat16Or(q)) return Pass();  // pa.dtype.query reports it
    const aclDataType want = (s.Dequant() || s.QkvQuant()) ? ACL_INT8 : q;
    for (Input cache : {Input::kKeyCache, Input::kValueCache}) {
        if (!s.Has(cache)) continue;
        const aclDataType got = s.Desc(cache).dtype;
        if (got != want)
            return Fail(InputName(cache), " must be ", DataTypeName(want), ", got ", DataTypeName(got));
    }
    return Pass();
}

Verdict IndexDtypes(const S& s) {
    for (Input input : {Input::kBlockTables, Input::kContextLens, Input::kQSeqLen, Input::kBatchRunStatus}) {
        if (!s.Has(input)) continue;
        const TensorDesc& desc = s.Desc(input);
        if (desc.dtype != ACL_INT32 || desc.format != ACL_FORMAT_ND) {
            return Fail(InputName(input), " must be int32 ND, got ", DataTypeName(desc.dtype), ' ',
                        FormatName(desc.format));
        }
    }
    return Pass();
}

Verdict CheckRank(const S& s, Input input, uint64_t rank) {
    if (!s.Has(input)) return Pass();
    return Require(s.Rank(input) == rank, InputName(input), " must have ", rank, " dims, got shape ",
                   ShapeToString(s.Desc(input).shape));
}

Verdict CoreRanks(const S& s) {
    if (auto v = CheckRank(s, Input::kQuery, 3)) return v;
    if (auto v = CheckRank(s, Input::kKeyCache, 4)) return v;
    if (auto v = CheckRank(s, Input::kValueCache, 4)) return v;
    if (auto v = CheckRank(s, Input::kBlockTables, 2)) return v;
    return CheckRank(s, Input::kContextLens, 1);
}

Verdict QueryHeads(const S& s) {
    return Require(s.Dim(Input::kQuery, 1) == s.HeadNum(), "query.dims[1] must equal headNum ", s.HeadNum(),
                   ", got query shape ", ShapeToString(s.Desc(Input::kQuery).shape));
}

Verdict CacheKvHeads(const S& s) {
    if (s.Nz() || s.Compressed()) return Pass();
    return Require(s.CacheKvHeads() == s.KvHeadNum(),
                   "keyCache kv-head dim must equal kvHeadNum (headNum when 0) ", s.KvHeadNum(),
                   ", got keyCache shape ", ShapeToString(s.Desc(Input::kKeyCache).shape));
}

Verdict QueryHeadSize(const S& s) {
    return Require(s.HeadSizeK() == s.Dim(Input::kQuery, 2), "keyCache head_size ", s.HeadSizeK(),
                   " must equal query.dims[2] ", s.Dim(Input::kQuery, 2));
}

Verdict BlockSizeMultipleOf16(const S& s) {
    return Require(s.BlockSize() % 16 == 0, "block_size must be a multiple of 16, got ", s.BlockSize());
}

}  // namespace

std::vector<PaRule> TensorRules() {
    const auto kAll = ProfileSet::All();
    return {
        {{"pa.dtype.query", "PagedAttention", Stage::kDtypeFormat, kAll, ERROR_INVALID_TENSOR_INI_MATCH,
          "query is float16 or bfloat16 (int8 with QKV quant)", "paged_attention.md 2.4, 4.2"},
         QueryDtype},
        {{"pa.dtype.cache", "PagedAttention", Stage::kDtypeFormat, kAll, ERROR_INVALID_TENSOR_INI_MATCH,
          "keyCache and valueCache have the query's dtype (int8 with quantType 1, 2, 3)",
          "paged_attention.md 2.4"},
         CacheDtype},
        {{"pa.dtype.index_tensors", "PagedAttention", Stage::kDtypeFormat, kAll,
          ERROR_INVALID_TENSOR_INI_MATCH, "blockTables, contextLens, qSeqLen and batchRunStatus are int32 ND",
          "paged_attention.md 2.4"},
         IndexDtypes},
        {{"pa.rank.core", "PagedAttention", Stage::kRank, kAll, ERROR_INVALID_TENSOR_DIM_NUM,
          "query 3-D, keyCache and valueCache 4-D, blockTables 2-D, contextLens 1-D",
          "paged_attention.md 4.3"},
         CoreRanks},
        {{"pa.shape.query_heads", "PagedAttention", Stage::kShape, kAll, ERROR_INVALID_TENSOR_DIM,
          "query.dims[1] == headNum", "paged_attention.md 4.5; DECISIONS 10 (checked at op level)"},
         QueryHeads},
        {{"pa.shape.cache_kv_heads", "PagedAttention", Stage::kShape, kAll, ERROR_INVALID_TENSOR_DIM,
          "keyCache kv-head dim == kvHeadNum (headNum when 0)", "paged_attention.md 4.5; DECISIONS 10"},
         CacheKvHeads},
        {{"pa.shape.query_head_size", "PagedAttention", Stage::kShape, kAll, ERROR_INVALID_TENSOR_DIM,
          "keyCache head_size == query.dims[2]", "paged_attention.md 4.3 (K.dims3 == q.dims2)"},
         QueryHeadSize},
        {{"pa.shape.block_size_multiple_of_16", "PagedAttention", Stage::kShape, kAll,
          ERROR_INVALID_TENSOR_DIM, "block_size % 16 == 0",
          "seed: 'Due to hardware restrictions, block_size %16 == 0.'"},
         BlockSizeMultipleOf16},
    };
}

}  // namespace atbx::ops::pa
