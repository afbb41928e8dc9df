// PaSubject: what PagedAttention's rules and planner see of a call: the param, the tensors by role, and the
// host values (contextLens, qSeqLen, batchRunStatus) once they are known to be readable.
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_SUBJECT_H
#define ATBX_OPS_PAGED_ATTENTION_PA_SUBJECT_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "rules/role_subject.h"

namespace atbx::ops::pa {

using Param = infer::PagedAttentionParam;

// Input tensors by role, in ATB's order (docs/spec/paged_attention.md 2.1). Optional roles are present only
// when their feature is on.
enum class Input : uint8_t {
    kQuery,
    kKeyCache,
    kValueCache,  // absent for MLA (mlaVHeadSize > 0): V is a view of K
    kBlockTables,
    kContextLens,
    kMask,
    kBatchRunStatus,
    kKDescale,
    kKOffset,
    kVDescale,
    kVOffset,
    kQSeqLen,
    kRazorOffset,
    kPScale,
    kLogN,
    kCount,
};

const char* InputName(Input input);

struct PaSubject : rules::RoleSubject<Input> {
    const Param* param = nullptr;

    // Host values, loaded before Stage::kHostValues.
    std::vector<int32_t> contextLens;
    std::vector<int32_t> qSeqLen;
    std::vector<int32_t> batchRunStatus;

    // Derived quantities; valid once the ranks are checked (Stage::kShape on).
    bool Mla() const { return param->mlaVHeadSize > 0; }
    bool Spec() const { return param->calcType == Param::CALC_TYPE_SPEC; }
    bool Bnsd() const { return param->inputLayout == infer::TYPE_BNSD; }
    bool Nz() const { return Desc(Input::kKeyCache).format == ACL_FORMAT_FRACTAL_NZ; }
    bool Compressed() const { return param->compressType != Param::COMPRESS_TYPE_UNDEFINED; }
    bool Dequant() const { return param->quantType == Param::TYPE_DEQUANT_FUSION; }
    bool QkvQuant() const {
        return param->quantType == Param::TYPE_QUANT_QKV_OFFLINE ||
               param->quantType == Param::TYPE_QUANT_QKV_ONLINE;
    }
    int64_t HeadNum() const { return param->headNum; }
    int64_t KvHeadNum() const { return param->kvHeadNum > 0 ? param->kvHeadNum : param->headNum; }
    int64_t Batch() const { return Dim(Input::kContextLens, 0); }
    int64_t Tokens() const { return Dim(Input::kQuery, 0); }
    int64_t NumBlocks() const { return Dim(Input::kKeyCache, 0); }
    int64_t BlockSize() const;     // K.dims[1] (BSND), K.dims[2] (BNSD, NZ)
    int64_t CacheKvHeads() const;  // kv heads stored in the cache (1 under compression)
    int64_t HeadSizeK() const;     // D
    int64_t HeadSizeV() const;     // Dv: mlaVHeadSize, or V's head size
    int64_t MaxBlocksPerSeq() const { return Dim(Input::kBlockTables, 1); }
};

// Builds the subject for a param: its input and output slots in ATB order.
PaSubject MakeSubject(const Param& param, Platform platform);

// Copies the host tensors' values into the subject.
void LoadHostValues(PaSubject& subject);

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_SUBJECT_H
