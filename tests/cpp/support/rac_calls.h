// Valid ReshapeAndCache calls for tests, for every mode and profile: random new tokens, caches pre-filled
// with random data, and distinct random slots (some negative). The caches are ND [NB, BS, heads, D]
// (compression: heads 1) or FRACTAL_NZ [NB, heads * D / tile, BS, tile] on atlas-inference, atlas-training
// and with K_CACHE_V_CACHE_NZ.
#ifndef ATBX_TESTS_SUPPORT_RAC_CALLS_H
#define ATBX_TESTS_SUPPORT_RAC_CALLS_H

#include <cstdint>
#include <utility>
#include <vector>

#include "atbx/infer_op_params.h"
#include "support/test_call.h"

namespace atbx::test {

struct RacShape {
    int32_t tokens = 7;  // T; with compression at least the sum of seqLens
    int32_t heads = 2;
    int32_t headSizeK = 32;
    int32_t headSizeV = 32;
    int32_t blockSize = 16;
    int32_t numBlocks = 5;
    aclDataType dtype = ACL_FLOAT16;            // key and keyCache
    aclDataType valueDtype = ACL_DT_UNDEFINED;  // value and valueCache; undefined: dtype
    std::vector<int32_t> seqLens = {3, 4};      // compression: tokens of each sequence
    uint64_t seed = 13;
};

// A shape in one line: T tokens of `heads` heads, key and value head sizes, the caches' block size and count.
inline RacShape MakeRacShape(int32_t tokens, int32_t heads, int32_t dk, int32_t dv, int32_t blockSize,
                             int32_t numBlocks, aclDataType dtype, aclDataType valueDtype = ACL_DT_UNDEFINED,
                             std::vector<int32_t> seqLens = {}, uint64_t seed = 7) {
    RacShape s;
    s.tokens = tokens;
    s.heads = heads;
    s.headSizeK = dk;
    s.headSizeV = dv;
    s.blockSize = blockSize;
    s.numBlocks = numBlocks;
    s.dtype = dtype;
    s.valueDtype = valueDtype;
    s.seqLens = std::move(seqLens);
    s.seed = seed;
    return s;
}

TestCall MakeRacCall(const infer::ReshapeAndCacheParam& param, const RacShape& shape = {},
                     Platform platform = Platform::kAtlasA2);

// The param of each mode.
infer::ReshapeAndCacheParam RacParam(int compressType, int kvCacheCfg = 0);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_RAC_CALLS_H
