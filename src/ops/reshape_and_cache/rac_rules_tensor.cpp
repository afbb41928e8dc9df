// ReshapeAndCache rank and shape rules: ATB's DimCheck, DimCheckSISO, KVCacheDimCheck910B/310P/910BNZ and the
// kernel's own shape checks (docs/spec/self_attention.md 4.3).
#include "core/saturating.h"
#include "ops/reshape_and_cache/rac_rule_support.h"

namespace atbx::ops::rac {
namespace {

std::string ShapeOf(const S& s, Input input) {
    return ShapeToString(s.Desc(input).shape);
}

Verdict CheckRank(const S& s, Input input, uint64_t rank) {
    if (!s.Has(input)) return Pass();
    return Require(s.Rank(input) == rank, InputName(input), " must have ", rank, " dims, got shape ",
                   ShapeOf(s, input));
}

Verdict KeyValueRanks(const S& s) {
    if (auto v = CheckRank(s, Input::kKey, 3)) return v;
    return CheckRank(s, Input::kValue, 3);
}

Verdict CacheRanks(const S& s) {
    if (auto v = CheckRank(s, Input::kKeyCache, 4)) return v;
    return CheckRank(s, Input::kValueCache, 4);
}

Verdict SlotMappingRank(const S& s) {
    return CheckRank(s, Input::kSlotMapping, 1);
}

Verdict CompressLengthRanks(const S& s) {
    for (Input input : {Input::kWins, Input::kSeqLen, Input::kOffsetIndex}) {
        if (auto v = CheckRank(s, input, 1)) return v;
    }
    return Pass();
}

// key.dims[d] == value.dims[d] (tokens, heads).
Verdict KeyValueDimEqual(const S& s, int d, const char* what) {
    if (s.KeyOnly()) return Pass();
    return Require(s.Dim(Input::kValue, d) == s.Dim(Input::kKey, d), "value.dims[", d, "] (", what,
                   ") must equal key.dims[", d, "] ", s.Dim(Input::kKey, d), ", got key ",
                   ShapeOf(s, Input::kKey), " value ", ShapeOf(s, Input::kValue));
}

Verdict TokensEqual(const S& s) {
    return KeyValueDimEqual(s, 0, "tokens");
}
Verdict HeadsEqual(const S& s) {
    return KeyValueDimEqual(s, 1, "heads");
}

Verdict NumBlocksEqual(const S& s) {
    if (s.KeyOnly()) return Pass();
    return Require(s.Dim(Input::kValueCache, 0) == s.NumBlocks(),
                   "valueCache.dims[0] (num_blocks) must equal ", "keyCache.dims[0] ", s.NumBlocks(),
                   ", got keyCache ", ShapeOf(s, Input::kKeyCache), " valueCache ",
                   ShapeOf(s, Input::kValueCache));
}

Verdict BlockSizeEqual(const S& s) {
    if (s.KeyOnly()) return Pass();
    const int d = s.NzCaches() ? 2 : 1;
    return Require(s.BlockSize(Input::kValueCache) == s.BlockSize(Input::kKeyCache), "valueCache.dims[", d,
                   "] (block_size) must equal keyCache.dims[", d, "] ", s.BlockSize(Input::kKeyCache),
                   ", got keyCache ", ShapeOf(s, Input::kKeyCache), " valueCache ",
                   ShapeOf(s, Input::kValueCache));
}

// An ND cache [NB, BS, heads, D] against the tensor it stores [T, heads, D]; `heads` checks dim 2, else
// dim 3.
Verdict NdCacheDim(const S& s, Input cache, Input stored, int cacheDim, int storedDim) {
    if (!s.Has(cache)) return Pass();
    return Require(s.Dim(cache, cacheDim) == s.Dim(stored, storedDim), InputName(cache), ".dims[", cacheDim,
                   "] must equal ", InputName(stored), ".dims[", storedDim, "] ", s.Dim(stored, storedDim),
                   ", got ", InputName(cache), ' ', ShapeOf(s, cache), ' ', InputName(stored), ' ',
                   ShapeOf(s, stored));
}

Verdict CacheHeads(const S& s) {
    if (s.NzCaches() || s.Compressed()) return Pass();
    if (auto v = NdCacheDim(s, Input::kKeyCache, Input::kKey, 2, 1)) return v;
    return NdCacheDim(s, Input::kValueCache, Input::kValue, 2, 1);
}

Verdict CacheHeadSize(const S& s) {
    if (s.NzCaches()) return Pass();
    if (auto v = NdCacheDim(s, Input::kKeyCache, Input::kKey, 3, 2)) return v;
    return NdCacheDim(s, Input::kValueCache, Input::kValue, 3, 2);
}

Verdict KeyValueHeadSizeEqual(const S& s) {
    if (!s.Compressed() && !(s.NzCaches() && !s.A2Nz())) return Pass();
    return Require(s.HeadSizeV() == s.HeadSizeK(), "value head size (value.dims[2]) must equal key's ",
                   s.HeadSizeK(), " here, got ", s.HeadSizeV());
}

Verdict CompressCacheHeadsOne(const S& s) {
    if (!s.Compressed()) return Pass();
    for (Input cache : {Input::kKeyCache, Input::kValueCache}) {
        if (s.Dim(cache, 2) != 1) {
            return Fail(InputName(cache), ".dims[2] must be 1 with head compression (one cache row per ",
                        "token and head), got ", ShapeOf(s, cache));
        }
    }
    return Pass();
}

Verdict CompressHeadSizeMultipleOf32(const S& s) {
    if (!s.Compressed()) return Pass();
    return Require(s.HeadSizeK() % 32 == 0, "head size (key.dims[2]) must be a multiple of 32 with head ",
                   "compression, got ", s.HeadSizeK());
}

constexpr int64_t kRopeMaxHeadSize = 16384;

Verdict RopeHeadSizeLimit(const S& s) {
    if (!s.Rope()) return Pass();
    return Require(s.HeadSizeK() <= kRopeMaxHeadSize, "head size (key.dims[2]) must be <= ", kRopeMaxHeadSize,
                   " with KVHEAD_ROPE, got ", s.HeadSizeK());
}

Verdict NzBlockSizeMultipleOf16(const S& s) {
    if (!s.NzCaches()) return Pass();
    return Require(s.BlockSize(Input::kKeyCache) % 16 == 0,
                   "block_size (keyCache.dims[2]) of FRACTAL_NZ caches ", "must be a multiple of 16, got ",
                   s.BlockSize(Input::kKeyCache));
}

// A FRACTAL_NZ cache [NB, heads * D / tile, BS, tile] against the tensor it stores [T, heads, D].
Verdict NzTiles(const S& s, Input cache, Input stored) {
    if (!s.NzCaches()) return Pass();
    const int64_t tile = s.NzTile(cache);
    // Dims are not bounded yet in this stage: products saturate rather than overflow.
    const int64_t channels = core::SaturatingMul(s.Dim(stored, 1), s.Dim(stored, 2));
    const bool ok = s.Dim(cache, 3) == tile && core::SaturatingMul(s.Dim(cache, 1), tile) == channels;
    return Require(ok, InputName(cache), " must be [num_blocks, ", InputName(stored), " heads * head_size / ",
                   tile, " = ", channels, " / ", tile, ", block_size, ", tile, "], got ", ShapeOf(s, cache),
                   " for ", InputName(stored), ' ', ShapeOf(s, stored),
                   channels % tile != 0 ? " (heads * head_size is not a multiple of the tile)" : "");
}

Verdict NzKeyCacheTiles(const S& s) {
    return NzTiles(s, Input::kKeyCache, Input::kKey);
}
Verdict NzValueCacheTiles(const S& s) {
    return NzTiles(s, Input::kValueCache, Input::kValue);
}

Verdict SlotMappingLength(const S& s) {
    if (s.Compressed()) return Pass();
    return Require(s.Dim(Input::kSlotMapping, 0) == s.Tokens(), "slotMapping.dims[0] must equal the tokens ",
                   "(key.dims[0]) ", s.Tokens(), ", got ", s.Dim(Input::kSlotMapping, 0));
}

// A compress input of B * Nh entries, one per (batch, head).
Verdict PerHeadLength(const S& s, Input input) {
    if (!s.Has(input)) return Pass();
    const int64_t want = core::SaturatingMul(s.Batch(), s.Heads());
    return Require(s.Dim(input, 0) == want, InputName(input), ".dims[0] must be batch * heads = ", s.Batch(),
                   " * ", s.Heads(), " = ", want, " (seqLen.dims[0] * key.dims[1]), got ", s.Dim(input, 0));
}

Verdict CompressLengths(const S& s) {
    if (!s.Compressed()) return Pass();
    if (auto v = PerHeadLength(s, Input::kSlotMapping)) return v;
    return PerHeadLength(s, Input::kWins);
}

Verdict RopeOffsetLength(const S& s) {
    return PerHeadLength(s, Input::kOffsetIndex);
}

constexpr const char* kDimCheck = "docs/spec/self_attention.md 4.3 DimCheck";

}  // namespace

std::vector<RacRule> TensorRules() {
    const auto kAll = ProfileSet::All();
    const auto kDimNum = ERROR_INVALID_TENSOR_DIM_NUM;
    const auto kDim = ERROR_INVALID_TENSOR_DIM;
    return {
        {{"rac.rank.key_value", kOp, Stage::kRank, kAll, kDimNum,
          "key and value are 3-D [T, heads, head_size]", kDimCheck},
         KeyValueRanks},
        {{"rac.rank.caches", kOp, Stage::kRank, kAll, kDimNum, "keyCache and valueCache are 4-D", kDimCheck},
         CacheRanks},
        {{"rac.rank.slot_mapping", kOp, Stage::kRank, kAll, kDimNum, "slotMapping is 1-D", kDimCheck},
         SlotMappingRank},
        {{"rac.rank.compress_lengths", kOp, Stage::kRank, kAll, kDimNum,
          "wins, seqLen and offsetIndex are 1-D", "docs/spec/self_attention.md 4.3 kernel extras"},
         CompressLengthRanks},
        {{"rac.shape.tokens_equal", kOp, Stage::kShape, kAll, kDim, "value.dims[0] == key.dims[0] (tokens)",
          "docs/spec/self_attention.md 4.3 DimCheck; CSV rows 3, 4"},
         TokensEqual},
        {{"rac.shape.heads_equal", kOp, Stage::kShape, kAll, kDim, "value.dims[1] == key.dims[1] (heads)",
          "docs/spec/self_attention.md 4.3 DimCheck; CSV rows 30, 68, 69"},
         HeadsEqual},
        {{"rac.shape.num_blocks_equal", kOp, Stage::kShape, kAll, kDim,
          "valueCache.dims[0] == keyCache.dims[0] (num_blocks)",
          "docs/spec/self_attention.md 4.3 DimCheck; CSV row 8"},
         NumBlocksEqual},
        {{"rac.shape.block_size_equal", kOp, Stage::kShape, kAll, kDim,
          "the caches' block sizes are equal (dims[1] of ND caches, dims[2] of FRACTAL_NZ caches)",
          "docs/spec/self_attention.md 4.3 DimCheck; CSV rows 9, 11; docs/decisions.md ReshapeAndCache "
          "(atlas-350)"},
         BlockSizeEqual},
        {{"rac.shape.cache_heads", kOp, Stage::kShape, kAll, kDim,
          "ND caches without compression: keyCache.dims[2] == key.dims[1], valueCache.dims[2] == "
          "value.dims[1]",
          "docs/spec/self_attention.md 4.3 A2 and SISO dims; CSV rows 24, 27"},
         CacheHeads},
        {{"rac.shape.cache_head_size", kOp, Stage::kShape, kAll, kDim,
          "ND caches: keyCache.dims[3] == key.dims[2], valueCache.dims[3] == value.dims[2]",
          "docs/spec/self_attention.md 4.3 A2 and SISO dims; CSV rows 5, 6, 7, 14, 25, 26"},
         CacheHeadSize},
        {{"rac.shape.key_value_head_size_equal", kOp, Stage::kShape, kAll, kDim,
          "head compression, and FRACTAL_NZ caches on atlas-inference and atlas-training: value.dims[2] == "
          "key.dims[2]",
          "docs/spec/self_attention.md 4.3 (compress: Dk == Dv; 310P: Dk == Dv)"},
         KeyValueHeadSizeEqual},
        {{"rac.shape.compress_cache_heads_one", kOp, Stage::kShape, kAll, kDim,
          "head compression: keyCache.dims[2] == valueCache.dims[2] == 1",
          "docs/spec/self_attention.md 4.3 compress"},
         CompressCacheHeadsOne},
        {{"rac.shape.compress_head_size_multiple_of_32", kOp, Stage::kShape, kAll, kDim,
          "head compression: head size % 32 == 0", "docs/spec/self_attention.md 4.3 compress"},
         CompressHeadSizeMultipleOf32},
        {{"rac.shape.rope_head_size_limit", kOp, Stage::kShape, kAll, kDim, "KVHEAD_ROPE: head size <= 16384",
          "docs/spec/self_attention.md 4.3 kernel extras"},
         RopeHeadSizeLimit},
        {{"rac.shape.nz_block_size_multiple_of_16", kOp, Stage::kShape, kAll, kDim,
          "FRACTAL_NZ caches: block_size % 16 == 0", "docs/spec/self_attention.md 4.3 310P and A2-NZ dims"},
         NzBlockSizeMultipleOf16},
        {{"rac.shape.nz_key_cache_tiles", kOp, Stage::kShape, kAll, kDim,
          "FRACTAL_NZ keyCache is [NB, heads * Dk / c, BS, c], c = 32 for an int8 key with "
          "K_CACHE_V_CACHE_NZ, "
          "else 16",
          "docs/spec/self_attention.md 4.3 310P and A2-NZ dims; CSV rows 12, 40"},
         NzKeyCacheTiles},
        {{"rac.shape.nz_value_cache_tiles", kOp, Stage::kShape, kAll, kDim,
          "FRACTAL_NZ valueCache is [NB, heads * Dv / 16, BS, 16]",
          "docs/spec/self_attention.md 4.3 310P and A2-NZ dims"},
         NzValueCacheTiles},
        {{"rac.shape.slot_mapping_length", kOp, Stage::kShape, kAll, kDim,
          "without compression: slotMapping.dims[0] == key.dims[0] (one slot per token)",
          "docs/spec/self_attention.md 4.3 (SISO dims; kernel extras); CSV row 24"},
         SlotMappingLength},
        {{"rac.shape.compress_lengths", kOp, Stage::kShape, kAll, kDim,
          "head compression: slotMapping.dims[0] == wins.dims[0] == seqLen.dims[0] * key.dims[1]",
          "docs/spec/self_attention.md 4.3 kernel extras"},
         CompressLengths},
        {{"rac.shape.rope_offset_length", kOp, Stage::kShape, kAll, kDim,
          "KVHEAD_ROPE: offsetIndex.dims[0] == seqLen.dims[0] * key.dims[1]",
          "docs/spec/self_attention.md 4.3 kernel extras"},
         RopeOffsetLength},
    };
}

}  // namespace atbx::ops::rac
