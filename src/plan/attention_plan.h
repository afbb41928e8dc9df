// AttentionPlan: a backend-neutral description of one attention call, built from a validated param and its
// tensors. Kernels read the plan, never the raw param: every ATB layout and mask quirk is decoded when the
// plan is built. For each work item, each query row i and head h:
//   q'      = qPreScale ? round_q_dtype(q * qPreScale) : q
//   logit_j = clamp((q'.K_j + razor) * rowScale) + mask term        for keys j in [kvBegin, kvEnd)
//   out     = softmax(logit) . V                                   (int8 QKV: see QuantPolicy)
#ifndef ATBX_PLAN_ATTENTION_PLAN_H
#define ATBX_PLAN_ATTENTION_PLAN_H

#include <cstdint>
#include <optional>
#include <vector>

#include "plan/cache_write.h"
#include "plan/kv_source.h"
#include "plan/mask_policy.h"
#include "plan/quant_policy.h"
#include "plan/row_access.h"
#include "plan/scale_policy.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct AttentionPlan {
    int32_t headDim = 0;   // D: channels of q and K
    int32_t headDimV = 0;  // Dv: channels of V and of the output

    RowAccess query;
    RowAccess output;
    int64_t outputElements = 0;       // elements of the output tensor
    std::optional<double> qPreScale;  // qScale, applied first and rounded to the query dtype

    KvSource key;
    KvSource value;
    ScalePolicy scale;
    MaskPolicy mask;
    QuantPolicy quant;

    CacheWritePlan preWrites;  // cache writes that happen before attention (SelfAttention KV cache in the op)
    std::vector<WorkItem> items;
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_ATTENTION_PLAN_H
