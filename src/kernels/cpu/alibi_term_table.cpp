#include "kernels/cpu/alibi_term_table.h"

#include <algorithm>
#include <variant>

#include "core/parallel.h"
#include "plan/mask_segment.h"

namespace atbx::kernels::cpu {
namespace {

struct TableShape {
    int64_t heads = 0;
    int64_t lastPosition = 0;  // P: the largest query position of a computing item
    int64_t width = 0;         // P + K floats per head
};

TableShape ShapeOf(const plan::AttentionPlan& plan) {
    TableShape shape;
    int64_t keyEnd = 0;
    for (const plan::WorkItem& item : plan.items) {
        if (item.zeroOutput || item.qLen == 0) continue;
        shape.heads = std::max<int64_t>(shape.heads, item.headBegin + item.headCount);
        shape.lastPosition = std::max(shape.lastPosition, item.prefix + item.qLen - 1);
        keyEnd = std::max<int64_t>(keyEnd, item.kvEnd);
    }
    shape.width = shape.lastPosition + keyEnd;
    return shape;
}

bool HasTable(const plan::AttentionPlan& plan) {
    const auto* alibi = std::get_if<plan::AlibiMask>(&plan.mask);
    return alibi != nullptr && alibi->form != plan::AlibiMask::Form::kColumn;
}

}  // namespace

int64_t AlibiTermTableFloats(const plan::AttentionPlan& plan) {
    if (!HasTable(plan)) return 0;
    const TableShape shape = ShapeOf(plan);
    return shape.heads * shape.width;
}

KernelCall::MaskRows FillAlibiTermTable(const plan::AttentionPlan& plan, float* table, int threads) {
    const TableShape shape = ShapeOf(plan);
    // Row x of head h holds the terms of key x for the query at position P: those of key j for the query at
    // p are at x = j - p + P.
    plan::WorkItem atLastPosition;
    atLastPosition.prefix = shape.lastPosition;
    auto fill = [&](int64_t h, int) {
        float* row = table + h * shape.width;
        std::fill_n(row, shape.width, 0.0f);
        plan::AddMaskTerms(plan.mask, atLastPosition, h, 0, 0, static_cast<int32_t>(shape.width), row);
    };
    core::ParallelFor(shape.heads, threads, fill);
    KernelCall::MaskRows view;
    view.data = table + shape.lastPosition;
    view.dtype = ACL_FLOAT;
    view.headStride = shape.width;
    view.rowStride = -1;
    view.rowsAtPositions = true;
    return view;
}

}  // namespace atbx::kernels::cpu
