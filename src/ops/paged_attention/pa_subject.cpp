#include "ops/paged_attention/pa_subject.h"

namespace atbx::ops::pa {
namespace {

bool IsHost(Input input) {
    return input == Input::kContextLens || input == Input::kQSeqLen || input == Input::kBatchRunStatus;
}

// Roles in ATB's input order for the param (docs/spec/paged_attention.md 2.1; the same order serves every
// profile, whose rules forbid the features it lacks).
std::vector<Input> InputOrder(const Param& p) {
    std::vector<Input> order = {Input::kQuery, Input::kKeyCache};
    if (p.mlaVHeadSize == 0) order.push_back(Input::kValueCache);
    order.push_back(Input::kBlockTables);
    order.push_back(Input::kContextLens);
    if (p.maskType != Param::UNDEFINED) order.push_back(Input::kMask);
    if (p.batchRunStatusEnable) order.push_back(Input::kBatchRunStatus);
    const bool qkvQuant =
        p.quantType == Param::TYPE_QUANT_QKV_OFFLINE || p.quantType == Param::TYPE_QUANT_QKV_ONLINE;
    if (p.quantType == Param::TYPE_DEQUANT_FUSION) {
        order.push_back(Input::kKDescale);
        if (p.hasQuantOffset) order.push_back(Input::kKOffset);
        order.push_back(Input::kVDescale);
        if (p.hasQuantOffset) order.push_back(Input::kVOffset);
    } else if (qkvQuant) {
        order.push_back(Input::kKDescale);
        order.push_back(Input::kVDescale);
    }
    if (p.calcType == Param::CALC_TYPE_SPEC) order.push_back(Input::kQSeqLen);
    if (p.compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE) order.push_back(Input::kRazorOffset);
    if (p.quantType == Param::TYPE_QUANT_QKV_OFFLINE) order.push_back(Input::kPScale);
    if (p.scaleType == Param::SCALE_TYPE_LOGN) order.push_back(Input::kLogN);
    return order;
}

// Into the subject's own storage, which Execute's validation reuses (it allocates nothing for the same call).
void ReadInt32s(const PaSubject& s, Input input, std::vector<int32_t>* values) {
    values->clear();
    if (!s.Has(input)) return;
    const auto* data = static_cast<const int32_t*>(s.Data(input));
    values->assign(data, data + s.Dim(input, 0));
}

}  // namespace

const char* InputName(Input input) {
    switch (input) {
        case Input::kQuery:
            return "query";
        case Input::kKeyCache:
            return "keyCache";
        case Input::kValueCache:
            return "valueCache";
        case Input::kBlockTables:
            return "blockTables";
        case Input::kContextLens:
            return "contextLens";
        case Input::kMask:
            return "mask";
        case Input::kBatchRunStatus:
            return "batchRunStatus";
        case Input::kKDescale:
            return "kDescale";
        case Input::kKOffset:
            return "kOffset";
        case Input::kVDescale:
            return "vDescale";
        case Input::kVOffset:
            return "vOffset";
        case Input::kQSeqLen:
            return "qSeqLen";
        case Input::kRazorOffset:
            return "razorOffset";
        case Input::kPScale:
            return "pScale";
        case Input::kLogN:
            return "logN";
        case Input::kCount:
            break;
    }
    return "unknown";
}

int64_t PaSubject::BlockSize() const {
    return (Bnsd() || Nz()) ? Dim(Input::kKeyCache, 2) : Dim(Input::kKeyCache, 1);
}

int64_t PaSubject::CacheKvHeads() const {
    if (Nz()) return KvHeadNum();
    return Bnsd() ? Dim(Input::kKeyCache, 1) : Dim(Input::kKeyCache, 2);
}

int64_t PaSubject::HeadSizeK() const {
    if (Nz()) return Dim(Input::kKeyCache, 1) * 16 / KvHeadNum();
    return Dim(Input::kKeyCache, 3);
}

int64_t PaSubject::HeadSizeV() const {
    if (Mla()) return param->mlaVHeadSize;
    if (Nz()) return Dim(Input::kValueCache, 1) * 16 / KvHeadNum();
    return Dim(Input::kValueCache, 3);
}

PaSubject MakeSubject(const Param& param, Platform platform) {
    PaSubject s;
    s.param = &param;
    s.platform = platform;
    s.index.fill(-1);
    rules::AssignInputs(s, s.index, InputOrder(param), InputName, IsHost);
    s.outputSlots.push_back({"attnOut", false});
    return s;
}

void LoadHostValues(PaSubject& s) {
    ReadInt32s(s, Input::kContextLens, &s.contextLens);
    ReadInt32s(s, Input::kQSeqLen, &s.qSeqLen);
    ReadInt32s(s, Input::kBatchRunStatus, &s.batchRunStatus);
}

}  // namespace atbx::ops::pa
