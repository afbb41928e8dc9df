// ScalePolicy: how a raw score q.k becomes the logit the mask is added to.
//   logit = clamp((q.k + razor[p, s]) * qkScale * logN, clampMin, clampMax)
#ifndef ATBX_PLAN_SCALE_POLICY_H
#define ATBX_PLAN_SCALE_POLICY_H

#include <algorithm>
#include <cstdint>
#include "atbx/types.h"
#include "plan/element.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct ScalePolicy {
    double qkScale = 1.0;

    // logN scaling (SCALE_TYPE_LOGN), fp32 or fp16: per batch (PagedAttention, SelfAttention DECODER:
    // logN[item.logNIndex]) or per query row inside the sequence (SelfAttention encoders: logN[i]).
    const void* logN = nullptr;
    aclDataType logNType = ACL_DT_UNDEFINED;
    bool logNPerRow = false;

    bool clamp = false;
    double clampMin = 0.0;
    double clampMax = 0.0;

    // Razor offset (COMPRESS_TYPE_KVHEAD_ROPE): fp32 [numBlocks, blockSize] added to the raw score of the key
    // in physical block p, slot s, before scaling.
    const float* razorOffset = nullptr;
    int64_t razorBlockStride = 0;

    double RowScale(const WorkItem& item, int64_t row) const {
        if (logN == nullptr) return qkScale;
        return qkScale * LoadElement(logN, logNType, logNPerRow ? row : item.logNIndex);
    }

    double Clamp(double logit) const { return clamp ? std::min(std::max(logit, clampMin), clampMax) : logit; }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_SCALE_POLICY_H
