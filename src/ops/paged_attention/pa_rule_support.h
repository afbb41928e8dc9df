// What PagedAttention's rule files share: short names for the rule vocabulary, the profile sets, a rule
// constructor, and the quantities several rules derive from the param, the descriptors and the host values
// (the batches that run, the query lengths, the parallel-decoding trigger, the head-size scenario).
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_RULE_SUPPORT_H
#define ATBX_OPS_PAGED_ATTENTION_PA_RULE_SUPPORT_H

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "atbx/platform.h"
#include "atbx/status.h"
#include "ops/paged_attention/pa_rules.h"
#include "rules/rule.h"

namespace atbx::ops::pa {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = PaSubject;

constexpr Platform kA2 = Platform::kAtlasA2;
constexpr Platform kInference = Platform::kAtlasInference;
constexpr Platform kTraining = Platform::kAtlasTraining;
constexpr Platform k350 = Platform::kAtlas350;

constexpr ProfileSet kAll = ProfileSet::All();
constexpr ProfileSet kA2Only = ProfileSet{kA2};
constexpr ProfileSet kInferenceOnly = ProfileSet{kInference};
constexpr ProfileSet kTrainingOnly = ProfileSet{kTraining};
constexpr ProfileSet k350Only = ProfileSet{k350};
// The NZ-cache products (ATB's Is310P and Is910A), whose input and output restrictions are the same.
constexpr ProfileSet kNzProfiles = ProfileSet{kInference, kTraining};
// Every profile but Atlas 350, whose param check is its own (ATB's Ascend950 path).
constexpr ProfileSet kAtbProfiles = ProfileSet::AllBut({k350});
// Profiles with masks, SPEC and logN: Atlas A2 and Atlas inference.
constexpr ProfileSet kA2AndInference = ProfileSet{kA2, kInference};

// Block-size and head-size limits (seed; ATB's tiling).
constexpr int64_t kBlockAlign = 16;
constexpr int64_t kHeadSizeBasicMax = 256;
constexpr int64_t kHeadSizeMax = 576;
constexpr int64_t kBlockHeadProductMax = 128 * 128;
constexpr int64_t kLargeHeadBlockSizeMax = 128;
constexpr int64_t kParallelBlockSizeMax = 128;
constexpr int64_t kParallelBatchMax = 2000;
constexpr int64_t kParallelHeadNumMax = 256;
constexpr int64_t kInferenceBatchMax = 2048;
constexpr int64_t kMlaBatchMax = 8192;
constexpr int64_t kMaskFreeBlockSize = 128;
constexpr int64_t kNormCompressMaskLen = 2048;
constexpr int64_t kNzTile = 16;

inline PaRule MakeRule(std::string_view id, Stage stage, ProfileSet profiles, ErrorType code,
                       std::string_view condition, std::string_view source, Verdict (*check)(const S&)) {
    return {{id, "PagedAttention", stage, profiles, code, condition, source}, check};
}

bool IsHalf(aclDataType dtype);  // float16 or bfloat16
// a * b for dims, saturating at INT64_MAX: shape rules run before the memory stage bounds any dim.
int64_t SatMul(int64_t a, int64_t b);
// ceil(length / blockSize) without overflow.
int64_t BlocksNeeded(int64_t length, int64_t blockSize);
const char* MaskTypeName(int maskType);

// The param alone.
bool MaskSpecType(const S& s);  // maskType == MASK_TYPE_SPEC
bool MaskFree(const S& s);
bool NormCompress(const S& s);
bool LogN(const S& s);
bool QScaleOn(const S& s);  // qScale is neither 0 nor 1: the query is pre-scaled
// KV-head scenarios with equal K and V head sizes up to 256 and block_size * head_size <= 128 * 128 (seed:
// "In the multi-head adaptive compression, parallel decoding, Atlas inference products, and quantization
// scenarios ..."; ATB's IsInMLAIncompatible on Atlas A2). MLA's combined cache has no valueCache and keeps
// the wide limits.
bool RestrictedHeadSizes(const S& s);

// Host values (valid from Stage::kHostValues on, once every host tensor's length is checked).
// Batch b is skipped iff contextLens[b] == 0, or batchRunStatusEnable and batchRunStatus[b] == 0 (DECISIONS
// 3).
bool BatchRuns(const S& s, size_t b);
// Query rows of batch b: qSeqLen[b] with calcType SPEC, else 1.
int64_t QueryLen(const S& s, size_t b);
// Query rows of the batches that run: what query.dims[0] must be.
int64_t RunningRows(const S& s);
// Longest query and context over the batches that run (the rows and columns a mask is read at).
int64_t MaxRunningQueryLen(const S& s);
int64_t MaxRunningContextLen(const S& s);
// Whether ATB's parallel-decoding limits apply: some running batch has more than one query row, or maskType
// is SPEC or MASK_FREE (DECISIONS 2).
bool Parallel(const S& s);
// Whether every host length is non-negative (rules that sum or index by them defer to the sign rules).
bool HostLengthsNonNegative(const S& s);

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_RULE_SUPPORT_H
