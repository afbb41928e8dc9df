// The pieces of a PagedAttention plan, one concern per file (docs/spec/paged_attention.md 3,
// docs/spec/DECISIONS.md):
//   pa_plan_sources.cpp  paged K/V addressing (BSND, BNSD, FRACTAL_NZ, MLA, compression) and dequantisation
//   pa_plan_scale.cpp    qkScale, logN, razor offset, qScale
//   pa_plan_quant.cpp    int8 QKV quantisation
//   pa_plan_mask.cpp     every mask type and layout, decoded to a MaskPolicy
//   pa_plan_items.cpp    work items: skipped batches, row packing, SPEC rows, KV-head compression
// The subject must have passed every rule; its pack holds the data.
#ifndef ATBX_OPS_PAGED_ATTENTION_PA_PLAN_PARTS_H
#define ATBX_OPS_PAGED_ATTENTION_PA_PLAN_PARTS_H

#include <optional>
#include <vector>

#include "ops/paged_attention/pa_subject.h"
#include "plan/attention_plan.h"

namespace atbx::ops::pa {

plan::KvSource KeySource(const PaSubject& s);
plan::KvSource ValueSource(const PaSubject& s);  // MLA: the first mlaVHeadSize channels of the key cache

plan::ScalePolicy ScalePolicyFor(const PaSubject& s);
std::optional<double> QueryPreScale(const PaSubject& s);  // qScale when it is not 0 or 1

plan::QuantPolicy QuantPolicyFor(const PaSubject& s);

// Which mask row query row 0 of a work item reads (row i reads that row + i).
enum class MaskFirstRow {
    kZero,       // row 0 (decode) or row i of the batch's plane (SPEC)
    kPackedRow,  // the item's packed query row cu_b (SPEC mask [T, S])
    kPrefix,     // L_b - q_b: the square NORM mask's causal prefix shift
};

struct PaMask {
    plan::MaskPolicy policy;
    MaskFirstRow firstRow = MaskFirstRow::kZero;
};

PaMask MaskFor(const PaSubject& s);

std::vector<plan::WorkItem> MakeItems(const PaSubject& s, MaskFirstRow firstRow);

}  // namespace atbx::ops::pa

#endif  // ATBX_OPS_PAGED_ATTENTION_PA_PLAN_PARTS_H
