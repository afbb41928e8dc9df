// CausalMask: a mask that ATB encodes in a compressed tile or generates itself (PagedAttention MASK_FREE and
// NORM_COMPRESS; SelfAttention NORM_COMPRESS, CAUSAL_MASK, SLIDING_WINDOW_COMPRESS), decoded to its rule.
// Query row i of an item sits at absolute position p = item.prefix + i; key j is hidden when j > p, or, with
// a window W > 0, when j <= p - W. Hidden keys get `maskedValue` added (the compressed mask's own value).
#ifndef ATBX_PLAN_MASK_CAUSAL_H
#define ATBX_PLAN_MASK_CAUSAL_H

#include <cstdint>
#include <limits>

#include "plan/work_item.h"

namespace atbx::plan {

struct CausalMask {
    double maskedValue = -60000.0;
    int64_t window = 0;

    // The keys row i sees: [first, last].
    struct KeyRange {
        int64_t first, last;
    };
    KeyRange Visible(const WorkItem& item, int64_t i) const {
        const int64_t position = item.prefix + i;
        return {window > 0 ? position - window + 1 : std::numeric_limits<int64_t>::min(), position};
    }

    bool Hidden(const WorkItem& item, int64_t i, int64_t j) const {
        const KeyRange keys = Visible(item, i);
        return j < keys.first || j > keys.last;
    }

    double Term(const WorkItem& item, int64_t /*h*/, int64_t i, int64_t j) const {
        return Hidden(item, i, j) ? maskedValue : 0.0;
    }
};

}  // namespace atbx::plan

#endif  // ATBX_PLAN_MASK_CAUSAL_H
