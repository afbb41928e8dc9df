#include "ops/paged_attention/pa_rule_support.h"

#include <algorithm>

namespace atbx::ops::pa {

bool IsHalf(aclDataType dtype) {
    return dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}

int64_t SatMul(int64_t a, int64_t b) {
    int64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

int64_t BlocksNeeded(int64_t length, int64_t blockSize) {
    return length / blockSize + (length % blockSize != 0 ? 1 : 0);
}

const char* MaskTypeName(int maskType) {
    switch (maskType) {
        case Param::UNDEFINED:
            return "UNDEFINED";
        case Param::MASK_TYPE_NORM:
            return "MASK_TYPE_NORM";
        case Param::MASK_TYPE_ALIBI:
            return "MASK_TYPE_ALIBI";
        case Param::MASK_TYPE_SPEC:
            return "MASK_TYPE_SPEC";
        case Param::MASK_TYPE_MASK_FREE:
            return "MASK_TYPE_MASK_FREE";
        case Param::MASK_TYPE_NORM_COMPRESS:
            return "MASK_TYPE_NORM_COMPRESS";
        default:
            return "out of range";
    }
}

bool MaskSpecType(const S& s) {
    return s.param->maskType == Param::MASK_TYPE_SPEC;
}
bool MaskFree(const S& s) {
    return s.param->maskType == Param::MASK_TYPE_MASK_FREE;
}
bool NormCompress(const S& s) {
    return s.param->maskType == Param::MASK_TYPE_NORM_COMPRESS;
}
bool LogN(const S& s) {
    return s.param->scaleType == Param::SCALE_TYPE_LOGN;
}
bool QScaleOn(const S& s) {
    return s.param->qScale != 0.0f && s.param->qScale != 1.0f;
}

bool RestrictedHeadSizes(const S& s) {
    if (s.platform == kInference || s.platform == kTraining) return true;
    if (s.platform != kA2 || s.Mla()) return false;
    return s.Dequant() || s.QkvQuant() || s.Spec() || LogN(s) || s.Compressed();
}

bool BatchRuns(const S& s, size_t b) {
    if (s.contextLens[b] == 0) return false;
    return !s.param->batchRunStatusEnable || s.batchRunStatus[b] != 0;
}

int64_t QueryLen(const S& s, size_t b) {
    return s.Spec() ? s.qSeqLen[b] : 1;
}

int64_t RunningRows(const S& s) {
    int64_t rows = 0;
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (BatchRuns(s, b)) rows += QueryLen(s, b);
    }
    return rows;
}

int64_t MaxRunningQueryLen(const S& s) {
    int64_t longest = 0;
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (BatchRuns(s, b)) longest = std::max(longest, QueryLen(s, b));
    }
    return longest;
}

int64_t MaxRunningContextLen(const S& s) {
    int64_t longest = 0;
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (BatchRuns(s, b)) longest = std::max<int64_t>(longest, s.contextLens[b]);
    }
    return longest;
}

bool Parallel(const S& s) {
    return MaskSpecType(s) || MaskFree(s) || MaxRunningQueryLen(s) > 1;
}

bool HostLengthsNonNegative(const S& s) {
    const auto negative = [](int32_t v) { return v < 0; };
    return std::none_of(s.contextLens.begin(), s.contextLens.end(), negative) &&
           std::none_of(s.qSeqLen.begin(), s.qSeqLen.end(), negative);
}

}  // namespace atbx::ops::pa
