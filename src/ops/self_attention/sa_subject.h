// SaSubject: what SelfAttention's rules and planner see of a call: the param, the tensors by role, and the
// host values (seqLen, kvSeqLen, tokenOffset, batchRunStatus) once they are known to be readable.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_SUBJECT_H
#define ATBX_OPS_SELF_ATTENTION_SA_SUBJECT_H

#include <cstdint>
#include <vector>

#include "atbx/infer_op_params.h"
#include "rules/role_subject.h"

namespace atbx::ops::sa {

using Param = infer::SelfAttentionParam;

// Input tensors by role (docs/spec/self_attention.md 2). Which roles are present, and in which order, depends
// on the mode.
enum class Input : uint8_t {
    kQuery,
    kKey,     // new tokens (FA-cache), packed tokens (PA_ENCODER) or the paged cache (PREFIX_ENCODER)
    kValue,   // absent for MLA (mlaVHeadSize > 0): V is a view of K
    kCacheK,  // FA-cache and bypass: [layers, batch, maxSeq, hidden] (or its BNSD / NZ forms)
    kCacheV,
    kBlockTables,  // PREFIX_ENCODER
    kMask,
    kTokenOffset,
    kSeqLen,
    kKvSeqLen,  // PREFIX_ENCODER
    kLayerId,
    kBatchRunStatus,
    kSlopes,
    kQkDescale,
    kQkOffset,
    kVpvDescale,
    kVpvOffset,
    kPScale,
    kLogN,
    kCount,
};

const char* InputName(Input input);

// How the call gets its keys and values.
enum class Mode : uint8_t {
    kFaCache,   // calcType UNDEFINED/ENCODER/DECODER, kvcacheCfg K_CACHE_V_CACHE: the op writes, then attends
    kFaBypass,  // calcType UNDEFINED/ENCODER/DECODER, kvcacheCfg K_BYPASS_V_BYPASS (BSND or BNSD)
    kPaEncoder,      // calcType PA_ENCODER: packed q/k/v of the current tokens
    kPrefixEncoder,  // calcType PREFIX_ENCODER: prefix KV in a paged cache
};

Mode ModeOf(const Param& param);

struct SaSubject : rules::RoleSubject<Input> {
    const Param* param = nullptr;
    Mode mode = Mode::kFaCache;

    // Host values, loaded before Stage::kHostValues. seqLen holds the query lengths; kvSeqLen the key lengths
    // (PREFIX_ENCODER's kvSeqLen, or row 1 of a [2, B] PA_ENCODER seqLen).
    std::vector<int32_t> seqLen;
    std::vector<int32_t> kvSeqLen;
    std::vector<int32_t> tokenOffset;
    std::vector<int32_t> batchRunStatus;
    bool unsignedLengths = false;  // the length tensors are uint32 (read as int32 above)

    bool Mla() const { return param->mlaVHeadSize > 0; }
    bool Bnsd() const { return param->inputLayout == infer::TYPE_BNSD; }
    bool QkvQuant() const {
        return param->quantType == Param::TYPE_QUANT_QKV_OFFLINE ||
               param->quantType == Param::TYPE_QUANT_QKV_ONLINE;
    }
    int64_t HeadNum() const { return param->headNum; }
    int64_t KvHeadNum() const { return param->kvHeadNum > 0 ? param->kvHeadNum : param->headNum; }
};

// Builds the subject for a param: its input and output slots in ATB order.
SaSubject MakeSubject(const Param& param, Platform platform);

// Copies the host tensors' values into the subject (int32 or uint32 length tensors).
void LoadHostValues(SaSubject& subject);

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_SUBJECT_H
