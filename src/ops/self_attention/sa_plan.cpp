#include "ops/self_attention/sa_plan.h"

#include "ops/self_attention/sa_plan_internal.h"
#include "plan/mask_causal_form.h"
#include "plan/mask_diagonal_bound.h"

namespace atbx::ops::sa {
namespace {

using plan::AttentionPlan;
using plan::WorkItem;
using planning::BatchSpan;
using planning::Geometry;

// logit = clamp(q.k * qkScale [* logN], clampMin, clampMax) (docs/spec/self_attention.md 3.1 steps 4-6). logN
// is per batch for DECODER and per query row inside the batch otherwise.
plan::ScalePolicy ScalePolicyFor(const SaSubject& s) {
    const Param& p = *s.param;
    plan::ScalePolicy scale;
    scale.qkScale = p.qkScale;
    if (p.scaleType == Param::SCALE_TYPE_LOGN) {
        scale.logN = s.Data(Input::kLogN);
        scale.logNType = s.Desc(Input::kLogN).dtype;
        scale.logNPerRow = p.calcType != Param::DECODER;
    }
    if (p.clampType == Param::CLAMP_TYPE_MIN_MAX) {
        scale.clamp = true;
        scale.clampMin = p.clampMin;
        scale.clampMax = p.clampMax;
    }
    return scale;
}

// int8 q, k and v (PA_ENCODER): descales per query head, SelfAttention's P quantisation
// (docs/spec/self_attention.md 3.8).
plan::QuantPolicy QuantPolicyFor(const SaSubject& s) {
    plan::QuantPolicy quant;
    if (!s.QkvQuant()) return quant;
    const bool online = s.param->quantType == Param::TYPE_QUANT_QKV_ONLINE;
    quant.mode = online ? plan::QuantPolicy::Mode::kSelfOnline : plan::QuantPolicy::Mode::kSelfOffline;
    quant.kDescale = static_cast<const float*>(s.Data(Input::kQkDescale));
    quant.vDescale = static_cast<const float*>(s.Data(Input::kVpvDescale));
    if (!online) quant.pScale = static_cast<const float*>(s.Data(Input::kPScale));
    return quant;
}

// Rows [firstRow, firstRow + rows) of a span, every head, written as zeros.
WorkItem ZeroRows(const Geometry& g, const AttentionPlan& plan, const BatchSpan& span, int32_t firstRow,
                  int32_t rows) {
    WorkItem item;
    item.batch = span.batch;
    item.outOffset = planning::FirstElement(g, span, g.headDimV) + firstRow * plan.output.rowStride;
    item.qLen = rows;
    item.headCount = static_cast<int32_t>(g.heads);
    item.zeroOutput = true;
    return item;
}

// One item per (batch, kv head): the kv head's group of query heads (consecutive grouping), all query rows.
std::vector<WorkItem> MakeItems(const Geometry& g, const AttentionPlan& plan,
                                const std::vector<BatchSpan>& spans) {
    const int64_t group = g.heads / g.kvHeads;
    std::vector<WorkItem> items;
    for (const BatchSpan& span : spans) {
        if (span.rows == 0) continue;
        if (!span.runs) {
            items.push_back(ZeroRows(g, plan, span, 0, span.rows));
            continue;
        }
        for (int64_t k = 0; k < g.kvHeads; ++k) {
            WorkItem item;
            item.batch = span.batch;
            item.qOffset = planning::FirstElement(g, span, g.headDim);
            item.outOffset = planning::FirstElement(g, span, g.headDimV);
            item.qLen = span.qLen;
            item.kvBegin = span.kvBegin;
            item.kvEnd = span.kvEnd;
            item.kvSequence = span.kvSequence;
            item.prefix = span.prefix;
            item.headBegin = static_cast<int32_t>(k * group);
            item.headCount = static_cast<int32_t>(group);
            item.kvHead = static_cast<int32_t>(k);
            item.logicalKvHead = static_cast<int32_t>(k);
            item.maskBatch = span.batch;
            item.logNIndex = span.batch;
            items.push_back(item);
        }
        if (span.rows > span.qLen) items.push_back(ZeroRows(g, plan, span, span.qLen, span.rows - span.qLen));
    }
    return items;
}

}  // namespace

AttentionPlan BuildPlan(const SaSubject& s) {
    const Geometry g = planning::GeometryOf(s);
    const std::vector<BatchSpan> spans = planning::BatchSpans(s, g);
    AttentionPlan plan;
    plan.headDim = static_cast<int32_t>(g.headDim);
    plan.headDimV = static_cast<int32_t>(g.headDimV);
    plan.query = planning::RowsOf(g, g.headDim);
    plan.query.data = s.Data(Input::kQuery);
    plan.query.dtype = s.Desc(Input::kQuery).dtype;
    const Tensor& out = s.pack->outTensors[0];
    plan.output = planning::RowsOf(g, g.headDimV);
    plan.output.out = out.deviceData;
    plan.output.dtype = out.desc.dtype;
    plan.outputElements = static_cast<int64_t>(ElementCount(out.desc));
    // DECISIONS 14: qScale multiplies q whenever it is not 1 (0 zeroes q), except in PA_ENCODER.
    if (s.mode != Mode::kPaEncoder && s.param->qScale != 1.0f) plan.qPreScale = s.param->qScale;
    plan.key = planning::KeySource(s, g);
    plan.value = planning::ValueSource(s, g);
    plan.scale = ScalePolicyFor(s);
    plan.mask = planning::MaskPolicyFor(s);
    plan.quant = QuantPolicyFor(s);
    plan.preWrites = planning::CacheWrites(s, g, spans);
    plan.items = MakeItems(g, plan, spans);
    return plan;
}

void RebuildPlan(const SaSubject& s, AttentionPlan* plan, int threads) {
    plan->mask = plan::WithDiagonalBound(plan::CausalFormOf(planning::MaskPolicyFor(s), plan->items),
                                         plan->items, threads);
}

}  // namespace atbx::ops::sa
