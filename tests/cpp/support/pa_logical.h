// PagedAttention calls built from logical data, for the reference's feature tests: queries and per-sequence
// keys and values held as doubles (exact in their dtype) and laid out into the cache layout under test, with
// shuffled block tables and random filler in every slot no sequence uses; and the attention formula of
// docs/spec/paged_attention.md 3.1 evaluated directly, with the logit of each feature written by the test.
#ifndef ATBX_TESTS_SUPPORT_PA_LOGICAL_H
#define ATBX_TESTS_SUPPORT_PA_LOGICAL_H

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "atbx/infer_op_params.h"
#include "atbx/platform.h"
#include "support/test_call.h"

namespace atbx::test {

enum class PaLayout { kBsnd, kBnsd, kNz };

struct PaLogical {
    infer::PagedAttentionParam param;
    Platform platform = Platform::kAtlasA2;
    PaLayout layout = PaLayout::kBsnd;
    aclDataType dtype = ACL_FLOAT16;       // query
    aclDataType cacheDtype = ACL_FLOAT16;  // keyCache and valueCache
    int64_t headDim = 32;
    int64_t headDimV = 32;  // MLA: mlaVHeadSize (V is the first headDimV channels of K)
    int64_t blockSize = 16;
    std::vector<int32_t> contextLens;     // one per block-table row (B, or B*Hk under compression)
    std::vector<int32_t> qSeqLen;         // SPEC: query rows per batch
    std::vector<int32_t> batchRunStatus;  // when batchRunStatusEnable
    int64_t extraBlocks = 3;              // blocks no sequence uses (filled with random values)
    int64_t spareRows = 0;                // query and output rows past those of the running batches

    std::vector<double> query;                    // [T, H, D]
    std::vector<std::vector<double>> keys;        // per block-table row: [L, cache heads, D]
    std::vector<std::vector<double>> values;      // per block-table row: [L, cache heads, Dv]; empty for MLA
    std::map<std::string, io::HostTensor> extra;  // further inputs by ATB name (mask, kDescale, logN ...)

    int64_t Heads() const { return param.headNum; }
    int64_t KvHeads() const { return param.kvHeadNum > 0 ? param.kvHeadNum : param.headNum; }
    int64_t CacheHeads() const;  // 1 under KV-head compression
    int64_t Batch() const;       // original batches (contextLens / Hk under compression)
    int64_t Tokens() const;      // query rows T (spare rows included)
    bool Spec() const { return param.calcType == infer::PagedAttentionParam::CALC_TYPE_SPEC; }
    bool Compressed() const {
        return param.compressType != infer::PagedAttentionParam::COMPRESS_TYPE_UNDEFINED;
    }
    bool Mla() const { return param.mlaVHeadSize > 0; }

    double Query(int64_t row, int64_t h, int64_t c) const;
    double Key(int64_t sequence, int64_t j, int64_t cacheHead, int64_t c) const;
    double Value(int64_t sequence, int64_t j, int64_t cacheHead, int64_t c) const;
};

// A decode call on atlas-a2: headNum/kvHeadNum, qkScale 1/sqrt(D), K and V head size D, BSND caches.
PaLogical DecodeLogical(int32_t heads, int32_t kvHeads, int64_t headDim, int64_t blockSize,
                        std::vector<int32_t> contextLens, aclDataType dtype = ACL_FLOAT16);

// The longest context.
int64_t MaxContext(const PaLogical& logical);

// Draws queries and keys from U(-3, 3) and values from U(-1, 1), rounded to their dtype (int8 caches and
// queries: integers in [-5, 5]), for the sizes the logical call describes.
void FillRandom(PaLogical& logical, std::mt19937_64& rng);

// A tensor of the given shape and format whose elements are `values` rounded to the dtype.
io::HostTensor ValuesTensor(aclDataType dtype, std::initializer_list<int64_t> dims,
                            const std::vector<double>& values, aclFormat format = ACL_FORMAT_ND);
// `count` values from U(low, high), rounded to the dtype.
std::vector<double> RandomValues(aclDataType dtype, int64_t count, double low, double high,
                                 std::mt19937_64& rng);

// The call: caches laid out in the logical call's layout through a shuffled block table, its other inputs
// from `extra`, outputs of InferShape's shape.
TestCall BuildCall(const PaLogical& logical, std::mt19937_64& rng);

// Indices of one term of the formula: batch b, query row i inside it (packed row `row`), query head h, its kv
// head kvh, the block-table row `sequence` it reads (b, or b*Hk + kvh under compression) and the cache head
// (kvh, or 0 under compression), key j.
struct PaIndex {
    int64_t b, i, row, h, kvh, sequence, cacheHead, j;
};

struct PaFormula {
    std::function<double(const PaIndex&)> logit;             // default: qkScale * Dot
    std::function<double(const PaIndex&, int64_t c)> value;  // default: V (MLA: channel c of K)
};

// q[row, h, :] . K_sequence[j][cacheHead][:] on the logical values.
double Dot(const PaLogical& logical, const PaIndex& at);

// out[row, h, :] = sum_j softmax_j(logit) * value: rows packed over the batches that run (contextLens 0 or
// batchRunStatus 0 skip a batch; SPEC gives batch b qSeqLen[b] rows), GQA group H / Hk, KV-head compression
// reading row b*Hk + kvh. Elements no batch writes are NaN.
std::vector<double> DirectAttention(const PaLogical& logical, PaFormula formula);

// The reference result of the call equals the direct result (relative 1e-9; NaN in the same places).
void ExpectReferenceMatches(TestCall& call, const std::vector<double>& direct);

// Every CPU path this machine has, forced in turn, runs the call, meets the precision standard and leaves the
// rows of skipped batches untouched.
void ExpectCpuPaths(TestCall& call, int64_t headDimV, int64_t maxKvLen);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PA_LOGICAL_H
