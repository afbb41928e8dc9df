// Valid ReshapeAndCache calls for tests: new tokens, caches, and distinct random slots (some negative).
#ifndef ATBX_TESTS_SUPPORT_RAC_CALLS_H
#define ATBX_TESTS_SUPPORT_RAC_CALLS_H

#include <cstdint>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

struct RacShape {
    int32_t tokens = 7;
    int32_t heads = 2;
    int32_t headSizeK = 32;
    int32_t headSizeV = 32;
    int32_t blockSize = 16;
    int32_t numBlocks = 5;
    aclDataType dtype = ACL_FLOAT16;
    uint64_t seed = 13;
};

TestCall MakeRacCall(const infer::ReshapeAndCacheParam& param, const RacShape& shape = {},
                     Platform platform = Platform::kAtlasA2);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_RAC_CALLS_H
