// Parameter structs of the three attention operations, with ATB's field names, types, enum values and
// defaults (atb::infer::PagedAttentionParam, SelfAttentionParam, ReshapeAndCacheParam).
#ifndef ATBX_INFER_OP_PARAMS_H
#define ATBX_INFER_OP_PARAMS_H

#include <cstdint>

#include "atbx/types.h"

namespace atbx {
namespace infer {

enum InputLayout : int {
    TYPE_BSND =
        0,  // [batch, seq, heads, head_size]; for a paged cache [num_blocks, block_size, kv_heads, head_size]
    TYPE_BNSD,  // [batch, heads, seq, head_size]; for a paged cache [num_blocks, kv_heads, block_size,
                // head_size]
};

// Writes the key and value of new tokens into a paged KV cache, at the slots slotMapping gives.
struct ReshapeAndCacheParam {
    enum CompressType : int {
        COMPRESS_TYPE_UNDEFINED = 0,
        COMPRESS_TYPE_KVHEAD,       // per-head window compression (ALiBi models)
        COMPRESS_TYPE_KVHEAD_ROPE,  // per-head compression with a window mean (RoPE models)
    };
    enum KvCacheCfg : int {
        K_CACHE_V_CACHE = 0,  // key and value caches
        K_CACHE_V_BYPASS,     // key cache only
        K_CACHE_V_CACHE_NZ,   // key and value caches in FRACTAL_NZ (Atlas A2)
    };

    CompressType compressType = COMPRESS_TYPE_UNDEFINED;
    KvCacheCfg kvCacheCfg = K_CACHE_V_CACHE;
    uint8_t rsv[16] = {0};
};

// Flash attention for prefill and decode: KV cache kept by the op (FA-cache), given by the caller (bypass),
// packed current tokens (PA_ENCODER) or a paged prefix cache (PREFIX_ENCODER).
struct SelfAttentionParam {
    enum CalcType : int {
        UNDEFINED = 0,   // encoder and decoder, KV cache in the op
        ENCODER,         // encoder (prefill), KV cache in the op
        DECODER,         // decoder (one query token per batch), KV cache in the op
        PA_ENCODER,      // prefill over packed q/k/v of the current tokens, no cache
        PREFIX_ENCODER,  // prefill with the prefix KV in a paged block cache
    };
    enum KernelType : int {
        KERNELTYPE_DEFAULT = 0,     // fp16/bf16 matmul and softmax
        KERNELTYPE_HIGH_PRECISION,  // fp32 softmax and accumulation
        KERNELTYPE_EXP_M8V2,        // approximate exp (Atlas inference, PA_ENCODER)
    };
    enum ClampType : int {
        CLAMP_TYPE_UNDEFINED = 0,
        CLAMP_TYPE_MIN_MAX,  // clamp scaled scores to [clampMin, clampMax]
    };
    enum MaskType : int {
        MASK_TYPE_UNDEFINED = 0,
        MASK_TYPE_NORM,
        MASK_TYPE_ALIBI,
        MASK_TYPE_NORM_COMPRESS,
        MASK_TYPE_ALIBI_COMPRESS,
        MASK_TYPE_ALIBI_COMPRESS_SQRT,
        MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN,
        MASK_TYPE_SLIDING_WINDOW_NORM,
        MASK_TYPE_SLIDING_WINDOW_COMPRESS,
        MASK_TYPE_CAUSAL_MASK,
    };
    enum KvCacheCfg : int {
        K_CACHE_V_CACHE = 0,  // the op writes the new key/value into the cache, then attends
        K_BYPASS_V_BYPASS,    // the caller's cache already holds them
    };
    enum ScaleType : int {
        SCALE_TYPE_TOR = 0,
        SCALE_TYPE_LOGN,
        SCALE_TYPE_MAX,
    };
    enum QuantType : int {
        TYPE_QUANT_UNDEFINED = 0,
        TYPE_QUANT_UNQUANT = 0,
        TYPE_DEQUANT_FUSION = 1,  // reserved; always rejected
        TYPE_QUANT_QKV_OFFLINE = 2,
        TYPE_QUANT_QKV_ONLINE = 3,
    };
    enum CacheType : int8_t {
        CACHE_TYPE_NORM = 0,
        CACHE_TYPE_SWA = 1,  // the cache holds only the last windowSize tokens
    };

    QuantType quantType = TYPE_QUANT_UNQUANT;
    aclDataType outDataType = ACL_DT_UNDEFINED;
    int32_t headNum = 0;
    int32_t kvHeadNum = 0;
    float qScale = 1;
    float qkScale = 1;
    bool batchRunStatusEnable = false;
    uint32_t isTriuMask = 0;
    CalcType calcType = UNDEFINED;
    KernelType kernelType = KERNELTYPE_DEFAULT;
    ClampType clampType = CLAMP_TYPE_UNDEFINED;
    float clampMin = 0;
    float clampMax = 0;
    MaskType maskType = MASK_TYPE_UNDEFINED;
    KvCacheCfg kvcacheCfg = K_CACHE_V_CACHE;
    ScaleType scaleType = SCALE_TYPE_TOR;
    InputLayout inputLayout = TYPE_BSND;
    uint32_t mlaVHeadSize = 0;
    CacheType cacheType = CACHE_TYPE_NORM;
    uint32_t windowSize = 0;
    uint8_t rsv[64] = {0};
};

// Decode (and parallel/speculative decode) attention over a paged KV cache.
struct PagedAttentionParam {
    int32_t headNum = 0;
    float qkScale = 1.0;
    int32_t kvHeadNum = 0;
    enum MaskType : int {
        UNDEFINED = 0,
        MASK_TYPE_NORM,
        MASK_TYPE_ALIBI,
        MASK_TYPE_SPEC,
        MASK_TYPE_MASK_FREE,
        MASK_TYPE_NORM_COMPRESS,
    };
    MaskType maskType = UNDEFINED;
    bool batchRunStatusEnable = false;
    enum QuantType : int {
        TYPE_QUANT_UNDEFINED = 0,
        TYPE_QUANT_UNQUANT = 0,
        TYPE_DEQUANT_FUSION = 1,
        TYPE_QUANT_QKV_OFFLINE = 2,
        TYPE_QUANT_QKV_ONLINE = 3,
    };
    QuantType quantType = TYPE_QUANT_UNQUANT;
    aclDataType outDataType = ACL_DT_UNDEFINED;
    bool hasQuantOffset = false;
    enum CompressType : int {
        COMPRESS_TYPE_UNDEFINED = 0,
        COMPRESS_TYPE_KVHEAD,
        COMPRESS_TYPE_KVHEAD_ROPE,
        COMPRESS_TYPE_MAX,  // bound only, never valid
    };
    CompressType compressType = COMPRESS_TYPE_UNDEFINED;
    enum CalcType : int {
        CALC_TYPE_UNDEFINED = 0,
        CALC_TYPE_SPEC,  // parallel / speculative decoding: per-batch query lengths in qSeqLen
    };
    CalcType calcType = CALC_TYPE_UNDEFINED;
    enum ScaleType : int {
        SCALE_TYPE_TOR = 0,
        SCALE_TYPE_LOGN,
        SCALE_TYPE_MAX,
    };
    ScaleType scaleType = SCALE_TYPE_TOR;
    InputLayout inputLayout = TYPE_BSND;
    uint32_t mlaVHeadSize = 0;
    float qScale = 0;
    uint8_t rsv[64] = {0};
};

}  // namespace infer
}  // namespace atbx

#endif  // ATBX_INFER_OP_PARAMS_H
