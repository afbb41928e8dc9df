// AlibiMask: the ALiBi bias that a compressed ALiBi mask stands for (SelfAttention ALIBI_COMPRESS,
// ALIBI_COMPRESS_SQRT and ALIBI_COMPRESS_LEFT_ALIGN with a [256, 256] tile and per-head slopes), decoded to
// its formula (docs/spec/self_attention.md 3.5). Query row i of an item sits at absolute position p =
// item.prefix + i; key j is hidden when j > p (causal), else the term is slopes[h] * f with
//   kDistance:      f = p - j          (the tile holds p - j; callers pass negated ALiBi slopes)
//   kSqrtDistance:  f = sqrt(p - j)
//   kColumn:        f = j              (left-aligned ALiBi; callers pass positive slopes)
// The sign of the bias lives in the caller's slopes, as on the device.
#ifndef ATBX_PLAN_MASK_ALIBI_H
#define ATBX_PLAN_MASK_ALIBI_H

#include <cmath>
#include <cstdint>
#include <limits>

#include "atbx/types.h"
#include "plan/element.h"
#include "plan/work_item.h"

namespace atbx::plan {

struct AlibiMask {
    enum class Form { kDistance, kSqrtDistance, kColumn };

    Form form = Form::kDistance;
    const void* slopes = nullptr;  // [headNum]
    aclDataType slopeType = ACL_FLOAT;

    double Term(const WorkItem& item, int64_t h, int64_t i, int64_t j) const {
        const int64_t position = item.prefix + i;
        if (j > position) return -std::numeric_limits<double>::infinity();
        const double slope = LoadElement(slopes, slopeType, h);
        switch (form) {
            case Form::kDistance:
                return slope * static_cast<double>(position - j);
            case Form::kSqrtDistance:
                return slope * std::sqrt(static_cast<double>(position - j));
            case Form::kColumn:
                return slope * static_cast<double>(j);
        }
        return 0.0;
    }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_ALIBI_H
