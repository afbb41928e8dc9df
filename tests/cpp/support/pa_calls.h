// Valid PagedAttention calls for tests: every input the param asks for, with shapes that satisfy the rules of
// the platform, and random contents (never zeros) unless asked otherwise.
#ifndef ATBX_TESTS_SUPPORT_PA_CALLS_H
#define ATBX_TESTS_SUPPORT_PA_CALLS_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

struct PaShape {
    int32_t headSize = 64;
    int32_t headSizeV = 0;  // 0: headSize (MLA: mlaVHeadSize of the param)
    int32_t blockSize = 16;
    std::vector<int32_t> contextLens = {17, 40, 1, 33};
    std::vector<int32_t> qSeqLen;  // calcType SPEC: query rows per batch (default: 1 per batch)
    aclDataType dtype = ACL_FLOAT16;
    int32_t extraBlocks = 2;  // blocks no sequence uses
    uint64_t seed = 7;
};

// headNum/kvHeadNum default to 8/2 when the param leaves them 0.
TestCall MakePaCall(infer::PagedAttentionParam param, const PaShape& shape = {},
                    Platform platform = Platform::kAtlasA2);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PA_CALLS_H
