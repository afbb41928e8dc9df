#include "ops/self_attention/sa_subject.h"

namespace atbx::ops::sa {
namespace {

bool IsHost(Input input) {
    return input == Input::kSeqLen || input == Input::kKvSeqLen || input == Input::kTokenOffset ||
           input == Input::kBatchRunStatus;
}

// Appends roles one by one (vector::insert of an initializer list trips a GCC 12 -Warray-bounds false
// positive).
void Append(std::vector<Input>& order, std::initializer_list<Input> roles) {
    for (Input role : roles)
        order.push_back(role);
}

bool AlibiCompress(Param::MaskType m) {
    return m == Param::MASK_TYPE_ALIBI_COMPRESS || m == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT ||
           m == Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN;
}

// Roles in ATB's input order (docs/spec/self_attention.md 2, SelfAttentionOperation::GetInputNum).
std::vector<Input> PaEncoderOrder(const Param& p) {
    std::vector<Input> order = {Input::kQuery, Input::kKey};
    if (p.mlaVHeadSize == 0) order.push_back(Input::kValue);
    if (p.maskType != Param::MASK_TYPE_UNDEFINED) order.push_back(Input::kMask);
    order.push_back(Input::kSeqLen);
    if (AlibiCompress(p.maskType)) order.push_back(Input::kSlopes);
    if (p.quantType == Param::TYPE_QUANT_QKV_ONLINE || p.quantType == Param::TYPE_QUANT_QKV_OFFLINE) {
        Append(order, {Input::kQkDescale, Input::kQkOffset, Input::kVpvDescale, Input::kVpvOffset});
        if (p.quantType == Param::TYPE_QUANT_QKV_OFFLINE) order.push_back(Input::kPScale);
    }
    if (p.scaleType == Param::SCALE_TYPE_LOGN) order.push_back(Input::kLogN);
    return order;
}

std::vector<Input> PrefixEncoderOrder(const Param& p) {
    std::vector<Input> order = {Input::kQuery, Input::kKey, Input::kValue, Input::kBlockTables};
    if (p.maskType != Param::MASK_TYPE_CAUSAL_MASK) order.push_back(Input::kMask);
    order.push_back(Input::kSeqLen);
    order.push_back(Input::kKvSeqLen);
    if (p.maskType != Param::MASK_TYPE_CAUSAL_MASK && p.maskType != Param::MASK_TYPE_NORM_COMPRESS) {
        order.push_back(Input::kSlopes);
    }
    return order;
}

std::vector<Input> FlashOrder(const Param& p, bool bypass) {
    std::vector<Input> order = {Input::kQuery};
    if (!bypass) Append(order, {Input::kKey, Input::kValue});
    Append(order, {Input::kCacheK, Input::kCacheV});
    const bool decoderWindow =
        p.calcType == Param::DECODER && p.maskType == Param::MASK_TYPE_SLIDING_WINDOW_NORM;
    if (p.maskType != Param::MASK_TYPE_UNDEFINED && !decoderWindow) order.push_back(Input::kMask);
    Append(order, {Input::kTokenOffset, Input::kSeqLen, Input::kLayerId});
    if (p.batchRunStatusEnable) order.push_back(Input::kBatchRunStatus);
    if (p.maskType == Param::MASK_TYPE_ALIBI_COMPRESS || p.maskType == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT) {
        order.push_back(Input::kSlopes);
    }
    if (p.scaleType == Param::SCALE_TYPE_LOGN) order.push_back(Input::kLogN);
    return order;
}

std::vector<Input> InputOrder(const Param& p) {
    switch (ModeOf(p)) {
        case Mode::kPaEncoder:
            return PaEncoderOrder(p);
        case Mode::kPrefixEncoder:
            return PrefixEncoderOrder(p);
        case Mode::kFaBypass:
            return FlashOrder(p, true);
        case Mode::kFaCache:
            return FlashOrder(p, false);
    }
    return {};
}

// Length tensors are int32 or uint32; values above INT32_MAX are kept as negative int32 for the rules to
// reject. Into the subject's own storage, which Execute's validation reuses (it allocates nothing for the
// same call).
void ReadLengths(const SaSubject& s, Input input, int64_t offset, int64_t count,
                 std::vector<int32_t>* values) {
    const int32_t* data = static_cast<const int32_t*>(s.Data(input)) + offset;
    values->assign(data, data + count);
}

}  // namespace

Mode ModeOf(const Param& p) {
    if (p.calcType == Param::PA_ENCODER) return Mode::kPaEncoder;
    if (p.calcType == Param::PREFIX_ENCODER) return Mode::kPrefixEncoder;
    return p.kvcacheCfg == Param::K_BYPASS_V_BYPASS ? Mode::kFaBypass : Mode::kFaCache;
}

const char* InputName(Input input) {
    switch (input) {
        case Input::kQuery:
            return "query";
        case Input::kKey:
            return "key";
        case Input::kValue:
            return "value";
        case Input::kCacheK:
            return "cacheK";
        case Input::kCacheV:
            return "cacheV";
        case Input::kBlockTables:
            return "blockTables";
        case Input::kMask:
            return "attentionMask";
        case Input::kTokenOffset:
            return "tokenOffset";
        case Input::kSeqLen:
            return "seqLen";
        case Input::kKvSeqLen:
            return "kvSeqLen";
        case Input::kLayerId:
            return "layerId";
        case Input::kBatchRunStatus:
            return "batchRunStatus";
        case Input::kSlopes:
            return "slopes";
        case Input::kQkDescale:
            return "qkDescale";
        case Input::kQkOffset:
            return "qkOffset";
        case Input::kVpvDescale:
            return "vpvDescale";
        case Input::kVpvOffset:
            return "vpvOffset";
        case Input::kPScale:
            return "pScale";
        case Input::kLogN:
            return "logN";
        case Input::kCount:
            break;
    }
    return "unknown";
}

SaSubject MakeSubject(const Param& param, Platform platform) {
    SaSubject s;
    s.param = &param;
    s.platform = platform;
    s.mode = ModeOf(param);
    s.index.fill(-1);
    rules::AssignInputs(s, s.index, InputOrder(param), InputName, IsHost);
    s.outputSlots.push_back({"attnOut", false});
    return s;
}

void LoadHostValues(SaSubject& s) {
    if (s.Has(Input::kSeqLen)) {
        const TensorDesc& desc = s.Desc(Input::kSeqLen);
        s.unsignedLengths = desc.dtype == ACL_UINT32;
        const int64_t batch = desc.shape.dims[desc.shape.dimNum - 1];
        ReadLengths(s, Input::kSeqLen, 0, batch, &s.seqLen);
        // PA_ENCODER's [2, B] seqLen: row 0 query lengths, row 1 key lengths.
        if (desc.shape.dimNum == 2) {
            ReadLengths(s, Input::kSeqLen, batch, batch, &s.kvSeqLen);
        } else {
            s.kvSeqLen = s.seqLen;
        }
    }
    if (s.Has(Input::kKvSeqLen)) ReadLengths(s, Input::kKvSeqLen, 0, s.Dim(Input::kKvSeqLen, 0), &s.kvSeqLen);
    if (s.Has(Input::kTokenOffset))
        ReadLengths(s, Input::kTokenOffset, 0, s.Dim(Input::kTokenOffset, 0), &s.tokenOffset);
    if (s.Has(Input::kBatchRunStatus))
        ReadLengths(s, Input::kBatchRunStatus, 0, s.Dim(Input::kBatchRunStatus, 0), &s.batchRunStatus);
}

}  // namespace atbx::ops::sa
