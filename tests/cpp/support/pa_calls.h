// Valid PagedAttention calls for tests: every input the param asks for, with shapes that satisfy the rules of
// the platform, and random contents (never zeros) unless asked otherwise. Masks carry the pattern their type
// means (causal for SPEC and square masks, the fixed tiles of MASK_FREE and NORM_COMPRESS).
#ifndef ATBX_TESTS_SUPPORT_PA_CALLS_H
#define ATBX_TESTS_SUPPORT_PA_CALLS_H

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

// Layout of the mask input (docs/spec/paged_attention.md 3.5). S is the mask's key length: the longest
// context (rounded up to 16 in NZ masks); B' is contextLens.size(); T the query rows.
enum class PaMask {
    kDefault,              // NORM: [B', 1, S] ([S, S] with SPEC; NZ [B', S/16, 16, 16]); ALIBI: [B', H, 1, S]
                           // (NZ [B'*H, S/16, 16, 16]); SPEC: [T, S] (NZ [1, S/16, T16, 16]); MASK_FREE and
                           // NORM_COMPRESS: their fixed tiles
    kNormRow,              // [maxQ, S]: row i of a shared mask
    kNormSquare,           // [S, S]: row contextLens[b] - qSeqLen[b] + i (causal)
    kNorm3D,               // [B', 1, S] decoding, [B', S, S] with SPEC
    kNorm3DOriginalBatch,  // [B, 1, S] under KV-head compression
    kAlibi3D,              // [H, 1, S]
    kAlibi4DOriginalBatch,  // [B, H, 1, S] under KV-head compression
    kNzShared,              // NORM [1, S/16, 16, 16]; ALIBI [H, S/16, 16, 16]
    kNdSpec,                // ND [T, S] with NZ caches (atlas-inference SPEC)
    kNormCompress3D,        // [1, 2048, 2048]
    kNormCompress4D,        // [1, 1, 2048, 2048]
};

struct PaShape {
    int32_t headSize = 64;
    int32_t headSizeV = 0;  // 0: headSize (MLA: mlaVHeadSize of the param)
    int32_t blockSize = 16;
    // Context length per sequence: B entries, or B * kvHeadNum under KV-head compression.
    std::vector<int32_t> contextLens = {17, 40, 1, 33};
    std::vector<int32_t> qSeqLen;          // calcType SPEC: query rows per batch (default: 1 per batch)
    std::vector<int32_t> batchRunStatus;   // batchRunStatusEnable: 0 skips a batch (default: all 1)
    aclDataType dtype = ACL_FLOAT16;       // query (caches without quant, mask without QKV quant)
    aclDataType descaleDtype = ACL_FLOAT;  // DEQUANT: ACL_FLOAT or ACL_INT64 (float bits in the low word)
    PaMask mask = PaMask::kDefault;
    int32_t extraBlocks = 2;  // blocks no sequence uses
    uint64_t seed = 7;
};

// headNum/kvHeadNum default to 8/2 when the param leaves them 0.
TestCall MakePaCall(infer::PagedAttentionParam param, const PaShape& shape = {},
                    Platform platform = Platform::kAtlasA2);

// A named valid call: every feature and profile has at least one (pa_valid_calls_test.cpp checks that each
// passes every rule).
struct PaValidCall {
    std::string name;  // "a2.spec.norm_square", "inference.mask_free" ...
    std::function<TestCall()> make;
};
// Prints the call's name in test output.
inline void PrintTo(const PaValidCall& call, std::ostream* out) {
    *out << call.name;
}

const std::vector<PaValidCall>& PaValidCalls();
// The catalogue's call of that name; fails the test when there is none.
TestCall PaCall(std::string_view name);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PA_CALLS_H
