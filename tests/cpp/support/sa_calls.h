// Valid SelfAttention calls for tests: every input the param asks for, with shapes that satisfy the rules of
// the platform, and random contents (never zeros).
#ifndef ATBX_TESTS_SUPPORT_SA_CALLS_H
#define ATBX_TESTS_SUPPORT_SA_CALLS_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

struct SaShape {
    int32_t headSize = 64;
    int32_t headSizeV = 0;  // 0: headSize
    std::vector<int32_t> seqLen = {5, 17, 1};
    std::vector<int32_t> kvSeqLen;  // PA_ENCODER [2, B] form / PREFIX_ENCODER: key lengths (default: seqLen)
    aclDataType dtype = ACL_FLOAT16;
    uint64_t seed = 11;
};

// A PA_ENCODER param: headNum 4 over kvHeadNum 2, qkScale 1/sqrt(64).
infer::SelfAttentionParam PaEncoderParam();

TestCall MakeSaCall(const infer::SelfAttentionParam& param, const SaShape& shape = {},
                    Platform platform = Platform::kAtlasA2);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_SA_CALLS_H
