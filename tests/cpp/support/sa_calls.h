// Valid SelfAttention calls for tests: every input the param asks for, with shapes and host values that
// satisfy every rule of the platform, and random contents (never zeros). One builder covers every mode: the
// FA modes (KV cache in the op, bypass, BNSD), PA_ENCODER (BSND/BNSD, MLA, QKV quant, logN, alibi compress)
// and PREFIX_ENCODER, on every platform profile.
#ifndef ATBX_TESTS_SUPPORT_SA_CALLS_H
#define ATBX_TESTS_SUPPORT_SA_CALLS_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

// Which of a mask type's accepted layouts the call gets (B batch, H heads, R rows, C columns).
enum class SaMaskForm {
    kShared,        // [R, C]; compressed types: their 2-D tile ([128, 128], [256, 256], [512, 512])
    kPerBatch,      // [B, R, C] (NORM, SLIDING_WINDOW_NORM; FRACTAL_NZ lead B)
    kPerHead,       // [H, R, C] (ALIBI); alibi compress: [H, R, 128]
    kPerBatchHead,  // [B, H, R, C] (ALIBI; FRACTAL_NZ lead B * H)
};

struct SaShape {
    int32_t headSize = 64;
    int32_t headSizeV = 0;                     // 0: headSize (MLA: the param's mlaVHeadSize)
    std::vector<int32_t> seqLen = {5, 17, 1};  // query tokens per sequence
    // Key tokens per sequence: tokenOffset (FA modes), row 1 of a [2, B] seqLen (PA_ENCODER), kvSeqLen
    // (PREFIX_ENCODER). Empty: the query lengths (PREFIX_ENCODER: plus a 128-token prefix for odd sequences).
    std::vector<int32_t> kvSeqLen;
    int rank = 0;           // rank of q/k/v; 0: 2 (FA modes, PREFIX_ENCODER) or 3 (PA_ENCODER)
    bool seqLen2d = false;  // PA_ENCODER: seqLen [2, B] (always when kvSeqLen differs from seqLen)
    int32_t layers = 2;     // FA caches
    int32_t layerId = 1;
    int32_t cacheSlack = 3;   // FA caches hold max(key lengths) + cacheSlack positions
    int32_t extraBlocks = 2;  // PREFIX_ENCODER: blocks no sequence uses
    SaMaskForm mask = SaMaskForm::kShared;
    int32_t maskSlack = 0;  // extra rows and columns of uncompressed masks (not on atlas-inference)
    bool nzMask = true;     // atlas-inference/training: FRACTAL_NZ masks (false: ND)
    aclDataType dtype = ACL_FLOAT16;
    aclDataType lengthDtype = ACL_INT32;  // seqLen, kvSeqLen, tokenOffset, layerId, batchRunStatus
    std::vector<int32_t> batchRunStatus;  // dynamic batch; empty: all 1
    uint64_t seed = 11;
};

// Params (headNum 4, kvHeadNum 2, qkScale 1/8 unless said otherwise).
infer::SelfAttentionParam PaEncoderParam();
// KV cache in the op (kvcacheCfg K_CACHE_V_CACHE), calcType and maskType as given.
infer::SelfAttentionParam FlashParam(infer::SelfAttentionParam::CalcType calcType,
                                     infer::SelfAttentionParam::MaskType maskType);
// kvcacheCfg K_BYPASS_V_BYPASS.
infer::SelfAttentionParam BypassParam(infer::SelfAttentionParam::CalcType calcType,
                                      infer::SelfAttentionParam::MaskType maskType);
// TYPE_BNSD bypass with a NORM mask.
infer::SelfAttentionParam BnsdParam(infer::SelfAttentionParam::CalcType calcType);
// PREFIX_ENCODER with isTriuMask 1 and KERNELTYPE_HIGH_PRECISION.
infer::SelfAttentionParam PrefixParam(infer::SelfAttentionParam::MaskType maskType);

// A shape of the given head size, query lengths and dtype, the rest as SaShape's defaults.
SaShape MakeSaShape(int32_t headSize, std::vector<int32_t> seqLen, aclDataType dtype);

// Decode step shape: one query per sequence attending over 9, 30 and 2 keys.
SaShape DecoderShape();

TestCall MakeSaCall(const infer::SelfAttentionParam& param, const SaShape& shape = {},
                    Platform platform = Platform::kAtlasA2);

// Fills the call's compressed causal tile (ND [128, 128], or the [512, 512] sliding-window tile with a window
// of at most 384) as models pass it (docs/spec/self_attention.md 3.4, 3.6): 0 where visible, and where hidden
// -10000 in fp16 masks, the flag 1 (-3e38) in bf16 ones, rather than MakeSaCall's random values. Keys such a
// finite term hides then weigh nothing, and the CPU paths skip them where they can prove it.
void UseModelMaskTile(TestCall& call, int64_t window = 0);

// Fills the call's ALiBi mask ([H, R, C], SaMaskForm::kPerHead) as models pass it: slope_h (c - r) on and
// below the diagonal, slope_h = 2^-(h + 1); above it the bias plus -10000 in fp16, -inf in bf16
// (docs/spec/self_attention.md 3.4).
void UseModelAlibiMask(TestCall& call);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_SA_CALLS_H
