// PagedAttention cache shape rules (InferShape): heads, head sizes and block sizes of the query and the paged
// caches (docs/spec/paged_attention.md 4.3 generic, 910B and 310P checks, 4.5 kernel cache checks, 4.6 tiling
// head-size and block-size limits; the seed's block_size and head_size sentences; DECISIONS 10, 18).
//
// Caches: BSND [NB, BS, Hk, D], BNSD [NB, Hk, BS, D], FRACTAL_NZ [NB, Hk*D/16, BS, 16]; under KV-head
// compression Hk is 1 in the cache. D is K's head size, Dv V's (mlaVHeadSize for MLA's combined cache).
#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kShape = Stage::kShape;

std::string ShapeOf(const S& s, Input input) {
    return core::StrCat(InputName(input), ' ', ShapeToString(s.Desc(input).shape));
}

// NZ caches store Hk*D/16 channel tiles; the head size is whole only when Hk divides dims[1]*16.
bool NzHeadSizeExact(const S& s) {
    const int64_t channels = SatMul(s.Dim(Input::kKeyCache, 1), kNzTile);
    return !s.Nz() || (channels != INT64_MAX && channels % s.KvHeadNum() == 0);
}

// The Atlas A2 case of a 256 head size with a block of 128 or more, which ATB's tiling handles with its
// split-block kernels (pa.shape.head_size_256_large_block).
bool HeadSize256LargeBlockCase(const S& s) {
    return s.platform == kA2 && s.HeadSizeK() == kHeadSizeBasicMax && s.HeadSizeV() == kHeadSizeBasicMax &&
           s.BlockSize() >= 128;
}

Verdict QueryHeads(const S& s) {
    return Require(s.Dim(Input::kQuery, 1) == s.HeadNum(), "query.dims[1] must equal headNum ", s.HeadNum(),
                   ", got ", ShapeOf(s, Input::kQuery));
}

Verdict CacheKvHeads(const S& s) {
    if (s.Nz()) return Pass();  // NZ caches have no kv-head dim
    const char* dim = s.Bnsd() ? "keyCache.dims[1]" : "keyCache.dims[2]";
    if (s.Compressed()) {
        return Require(s.CacheKvHeads() == 1, dim, " must be 1 under KV-head compression, got ",
                       ShapeOf(s, Input::kKeyCache));
    }
    if (s.platform == k350) {
        return Require(s.CacheKvHeads() == s.param->kvHeadNum, dim, " must equal kvHeadNum ",
                       s.param->kvHeadNum, " on atlas-350, got ", ShapeOf(s, Input::kKeyCache));
    }
    return Require(s.CacheKvHeads() == s.KvHeadNum(), dim, " must equal kvHeadNum (headNum when 0) ",
                   s.KvHeadNum(), ", got ", ShapeOf(s, Input::kKeyCache));
}

Verdict KvCacheMatch(const S& s) {
    if (!s.Has(Input::kValueCache)) return Pass();
    for (int d = 0; d < 3; ++d) {
        if (s.Dim(Input::kKeyCache, d) != s.Dim(Input::kValueCache, d)) {
            return Fail("keyCache and valueCache must agree in dims 0-2, dim ", d,
                        " differs: ", ShapeOf(s, Input::kKeyCache), " and ", ShapeOf(s, Input::kValueCache));
        }
    }
    return Pass();
}

Verdict NzCacheLastDim16(const S& s) {
    for (Input cache : {Input::kKeyCache, Input::kValueCache}) {
        if (s.Dim(cache, 3) != kNzTile)
            return Fail(InputName(cache), ".dims[3] must be 16 (FRACTAL_NZ), got ", ShapeOf(s, cache));
    }
    return Pass();
}

Verdict NzHeadSize(const S& s) {
    const int64_t tiles = s.Dim(Input::kKeyCache, 1);
    if (!NzHeadSizeExact(s)) {
        return Fail("keyCache.dims[1] * 16 = ", SatMul(tiles, kNzTile), " must be a multiple of kvHeadNum ",
                    s.KvHeadNum(), " (it is kvHeadNum * head_size)");
    }
    return Require(s.HeadSizeK() % kNzTile == 0, "head_size must be a multiple of 16 with NZ caches, got ",
                   s.HeadSizeK(), " (keyCache.dims[1] ", tiles, " * 16 / kvHeadNum ", s.KvHeadNum(), ")");
}

Verdict QueryHeadSize(const S& s) {
    if (!NzHeadSizeExact(s)) return Pass();  // pa.shape.nz_head_size_multiple_of_16
    return Require(s.HeadSizeK() == s.Dim(Input::kQuery, 2), "keyCache head_size ", s.HeadSizeK(),
                   " must equal query.dims[2] ", s.Dim(Input::kQuery, 2));
}

Verdict KvHeadSizeEqual(const S& s) {
    if (s.Nz() || !s.Has(Input::kValueCache)) return Pass();  // NZ: pa.shape.kv_cache_match compares dims[1]
    const bool required = s.platform == k350 || RestrictedHeadSizes(s) || MaskSpecType(s) || s.Bnsd();
    if (!required) return Pass();
    return Require(s.HeadSizeK() == s.HeadSizeV(), "keyCache and valueCache head sizes must be equal here ",
                   "(compression, parallel decoding, quantization, logN, BNSD or atlas-350), got ",
                   s.HeadSizeK(), " and ", s.HeadSizeV());
}

Verdict HeadSizeRange(const S& s) {
    if (!NzHeadSizeExact(s)) return Pass();  // pa.shape.nz_head_size_multiple_of_16
    const int64_t d = s.HeadSizeK();
    // The value head size equals d here (pa.shape.kv_head_size_equal; pa.shape.kv_cache_match with NZ
    // caches).
    if (s.platform == k350 || RestrictedHeadSizes(s)) {
        return Require(d > 0 && d <= kHeadSizeBasicMax, "head_size must be in (0, ", kHeadSizeBasicMax,
                       "] here (compression, parallel decoding, quantization, logN, atlas-inference, "
                       "atlas-training or atlas-350), got ",
                       d);
    }
    const int64_t dv = s.HeadSizeV();  // ND caches (atlas-a2) only from here
    return Require(d <= kHeadSizeMax && dv <= kHeadSizeMax,
                   "keyCache and valueCache head sizes must be <= ", kHeadSizeMax, ", got ", d, " and ", dv);
}

Verdict BlockHeadProduct(const S& s) {
    if (!NzHeadSizeExact(s)) return Pass();
    const int64_t d = s.HeadSizeK();
    const int64_t bs = s.BlockSize();
    if (s.platform == kA2) {
        const bool applies = d == s.HeadSizeV() && d <= kHeadSizeBasicMax && !HeadSize256LargeBlockCase(s);
        if (!applies) return Pass();
    } else if (d > kHeadSizeBasicMax) {
        return Pass();  // pa.shape.head_size_range
    }
    const int64_t product = SatMul(d, bs);
    return Require(product <= kBlockHeadProductMax, "block_size * head_size must be <= 128 * 128, got ", bs,
                   " * ", d, " = ", product);
}

bool MlaBlock256Exception(const S& s) {
    const aclDataType q = s.Desc(Input::kQuery).dtype;
    return s.Mla() && !s.Spec() && IsHalf(q) && s.BlockSize() == 256 && s.param->kvHeadNum == 1 &&
           (s.HeadNum() == 16 || s.HeadNum() == 32) && s.HeadSizeK() == 576 && s.HeadSizeV() == 512;
}

Verdict LargeHeadBlockSize(const S& s) {
    if (RestrictedHeadSizes(s)) return Pass();  // pa.shape.head_size_range
    if (s.HeadSizeK() <= kHeadSizeBasicMax && s.HeadSizeV() <= kHeadSizeBasicMax) return Pass();
    if (MlaBlock256Exception(s)) return Pass();
    return Require(
        s.BlockSize() <= kLargeHeadBlockSizeMax, "block_size must be <= 128 when a head size exceeds 256 ",
        "(only MLA 576/512 with headNum 16 or 32, kvHeadNum 1, no SPEC may use 256), got block_size ",
        s.BlockSize(), " with head sizes ", s.HeadSizeK(), " and ", s.HeadSizeV());
}

Verdict HeadSize256LargeBlock(const S& s) {
    if (!HeadSize256LargeBlockCase(s)) return Pass();
    if (s.BlockSize() % 128 != 0)
        return Fail("with head_size 256 a block_size >= 128 must be a multiple of 128, got ", s.BlockSize());
    if (s.Bnsd())
        return Fail("head_size 256 with block_size ", s.BlockSize(), " requires inputLayout TYPE_BSND");
    if (s.param->quantType != Param::TYPE_QUANT_UNQUANT)
        return Fail("head_size 256 with block_size ", s.BlockSize(), " requires quantType 0, got ",
                    s.param->quantType);
    return Require(!s.Spec(), "head_size 256 with block_size ", s.BlockSize(),
                   " requires decoding (calcType 0), got calcType SPEC");
}

Verdict MlaVHeadSizeLeK(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.HeadSizeV() <= s.HeadSizeK(), "mlaVHeadSize ", s.HeadSizeV(),
                   " must be <= keyCache head_size ", s.HeadSizeK());
}

Verdict MlaBatchMax(const S& s) {
    if (!s.Mla()) return Pass();
    return Require(s.Batch() <= kMlaBatchMax, "MLA batch (contextLens.dims[0]) must be <= ", kMlaBatchMax,
                   ", got ", s.Batch());
}

Verdict BlockSizeMultipleOf16(const S& s) {
    return Require(s.BlockSize() % kBlockAlign == 0, "block_size must be a multiple of 16, got ",
                   s.BlockSize());
}

Verdict ParallelBlockSizeMax(const S& s) {
    if (!s.Spec() && !MaskSpecType(s) && !MaskFree(s)) return Pass();
    return Require(s.BlockSize() <= kParallelBlockSizeMax,
                   "block_size must be <= 128 with parallel decoding ",
                   "(calcType SPEC or maskType SPEC/MASK_FREE), got ", s.BlockSize());
}

Verdict MaskFreeBlockSize(const S& s) {
    if (!MaskFree(s)) return Pass();
    return Require(s.BlockSize() == kMaskFreeBlockSize,
                   "maskType MASK_TYPE_MASK_FREE requires block_size 128, got ", s.BlockSize());
}

Verdict InferenceBatchMax(const S& s) {
    return Require(s.Batch() <= kInferenceBatchMax,
                   "batch (contextLens.dims[0]) must be <= ", kInferenceBatchMax, " on ",
                   PlatformName(s.platform), ", got ", s.Batch());
}

Verdict MaskFreeAtlasInferenceOnly(const S& s) {
    return Require(!MaskFree(s),
                   "maskType MASK_TYPE_MASK_FREE is only supported on atlas-inference (300I Duo)");
}

constexpr std::string_view kRestrictedSeed =
    "seed: 'In the multi-head adaptive compression, parallel decoding, Atlas inference products, and "
    "quantization scenarios, the head sizes of keyCache and valueCache are the same. The value range is (0, "
    "256] "
    "and block_size x head_size <= 128 x 128. Otherwise ... (0, 576], when head_size ... is greater than "
    "256, "
    "block_size is less than or equal to 128.'";

}  // namespace

std::vector<PaRule> CacheShapeRules() {
    const auto dim = [](std::string_view id, ProfileSet profiles, std::string_view condition,
                        std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, kShape, profiles, ERROR_INVALID_TENSOR_DIM, condition, source, check);
    };
    return {
        dim("pa.shape.query_heads", kAll, "query.dims[1] == headNum",
            "docs/spec/paged_attention.md 4.5; DECISIONS 10 (checked at op level)", QueryHeads),
        dim("pa.shape.cache_kv_heads", kAll,
            "the cache's kv-head dim == kvHeadNum (headNum when 0); 1 under KV-head compression",
            "docs/spec/paged_attention.md 4.5 (kernel), 4.3 (950); DECISIONS 10", CacheKvHeads),
        dim("pa.shape.kv_cache_match", kAll, "keyCache and valueCache agree in dims 0-2",
            "docs/spec/paged_attention.md 4.3 (numBlocks, 2nd dim, 3rd dim), 4.4 BlockDimCheck, 4.5",
            KvCacheMatch),
        dim("pa.shape.nz_cache_last_dim_16", kNzProfiles, "NZ keyCache.dims[3] == valueCache.dims[3] == 16",
            "docs/spec/paged_attention.md 4.3 (KVCacheDimCheck310P)", NzCacheLastDim16),
        dim("pa.shape.nz_head_size_multiple_of_16", kNzProfiles,
            "with NZ caches kvHeadNum divides keyCache.dims[1] * 16 and head_size % 16 == 0",
            "seed: 'If the format of keyCache and valueCache is NZ, the value of head_size must be a "
            "multiple of "
            "16.'; docs/spec/paged_attention.md 4.3",
            NzHeadSize),
        dim("pa.shape.query_head_size", kAll, "keyCache head_size == query.dims[2]",
            "docs/spec/paged_attention.md 4.3 (K.dims3 == q.dims2; 310P D == q.dims2)", QueryHeadSize),
        dim("pa.shape.kv_head_size_equal", kAll,
            "K and V head sizes equal with compression, SPEC, quantization or logN (non-MLA), maskType SPEC, "
            "BNSD, and on atlas-350",
            kRestrictedSeed, KvHeadSizeEqual),
        dim("pa.shape.head_size_range", kAll,
            "head_size in (0, 256] in the restricted scenarios and on atlas-350; else K and V head sizes <= "
            "576",
            "seed: 'The value range of head_size is (0, 256].' and the scenario sentence; DECISIONS 18; "
            "docs/spec/paged_attention.md 4.3, 4.6",
            HeadSizeRange),
        dim("pa.shape.block_head_product", kAtbProfiles,
            "block_size * head_size <= 128 * 128 (restricted scenarios; atlas-a2 with equal K and V head "
            "sizes "
            "up to 256, except head size 256 with block_size >= 128)",
            "seed scenario sentence; docs/spec/paged_attention.md 4.3, 4.6 (CheckPagedAttentionNdEnhance)",
            BlockHeadProduct),
        dim("pa.shape.large_head_block_size", kA2Only,
            "block_size <= 128 when a head size exceeds 256, except MLA 576/512 with block_size 256",
            "seed scenario sentence ('when head_size ... is greater than 256, block_size is less than or "
            "equal to "
            "128'); docs/spec/paged_attention.md 3.9, 4.3, 4.6",
            LargeHeadBlockSize),
        dim("pa.shape.head_size_256_large_block", kA2Only,
            "head_size 256 with block_size >= 128: block_size % 128 == 0, BSND, no quant, decoding",
            "seed: 'When block_size = head_size = 256, the input format must meet the BSND, "
            "non-quantization, and "
            "decoder requirements on Atlas A2 ...'; docs/spec/paged_attention.md 4.6",
            HeadSize256LargeBlock),
        dim("pa.shape.mla_v_head_size_le_k", kA2Only, "mlaVHeadSize <= keyCache head_size",
            "docs/spec/paged_attention.md 4.3, 4.5 (MLA combined cache)", MlaVHeadSizeLeK),
        dim("pa.shape.mla_batch_max", kA2Only, "MLA: contextLens.dims[0] <= 8192",
            "docs/spec/paged_attention.md 3.9, 4.3", MlaBatchMax),
        dim("pa.shape.block_size_multiple_of_16", kAll, "block_size % 16 == 0",
            "seed: 'Due to hardware restrictions, block_size %16 == 0.'; docs/spec/paged_attention.md 4.6",
            BlockSizeMultipleOf16),
        dim("pa.shape.parallel_block_size_max", kA2AndInference,
            "block_size <= 128 with calcType SPEC, maskType SPEC or MASK_FREE",
            "seed: 'When parallel decoding is enabled, block_size <= 128.'; docs/spec/paged_attention.md 4.6",
            ParallelBlockSizeMax),
        MakeRule("pa.shape.mask_free_block_size", kShape, kInferenceOnly, ERROR_INVALID_PARAM,
                 "maskType MASK_FREE requires block_size == 128",
                 "seed: 'When maskType is set to 4 ... block_size = 128'; docs/spec/paged_attention.md 4.3 "
                 "(MASK_FREE, "
                 "PARAM)",
                 MaskFreeBlockSize),
        dim("pa.shape.atlas_inference_batch_max", kNzProfiles, "contextLens.dims[0] <= 2048",
            "seed: 'On Atlas inference products: ... 0 < batch <= 2048.'; 'The input and output restrictions "
            "of "
            "Atlas training products and Atlas inference products are the same.'; DECISIONS 2",
            InferenceBatchMax),
        dim("pa.shape.mask_free_atlas_inference_only", kA2Only, "maskType MASK_FREE only on atlas-inference",
            "docs/spec/paged_attention.md 4.3 (MASK_FREE must be 310P, DIM)", MaskFreeAtlasInferenceOnly),
    };
}

}  // namespace atbx::ops::pa
