#include "ops/paged_attention/pa_plan.h"

namespace atbx::ops::pa {
namespace {

using plan::AttentionPlan;
using plan::KvSource;
using plan::WorkItem;

// Paged cache addressing for BSND [NB, BS, Hk, D], BNSD [NB, Hk, BS, D] and FRACTAL_NZ [NB, Hk*D/16, BS, 16].
KvSource PagedSource(const PaSubject& s, Input cache, int64_t headDim) {
    const TensorDesc& desc = s.Desc(cache);
    const int64_t blockSize = s.BlockSize();
    const int64_t heads = s.CacheKvHeads();
    KvSource source;
    source.data = s.Data(cache);
    source.dtype = desc.dtype;
    source.headDim = static_cast<int>(headDim);
    source.blockTable = static_cast<const int32_t*>(s.Data(Input::kBlockTables));
    source.tableStride = s.MaxBlocksPerSeq();
    source.blockSize = static_cast<int>(blockSize);
    if (s.Nz()) {
        const int64_t cacheHeadDim = desc.shape.dims[1] * 16 / heads;
        source.blockStride = desc.shape.dims[1] * blockSize * 16;
        source.slotStride = 16;
        source.headStride = cacheHeadDim * blockSize;
        source.channelTile = 16;
        source.channelTileStride = blockSize * 16;
    } else if (s.Bnsd()) {
        const int64_t cacheHeadDim = desc.shape.dims[3];
        source.blockStride = heads * blockSize * cacheHeadDim;
        source.slotStride = cacheHeadDim;
        source.headStride = blockSize * cacheHeadDim;
    } else {
        const int64_t cacheHeadDim = desc.shape.dims[3];
        source.blockStride = blockSize * heads * cacheHeadDim;
        source.slotStride = heads * cacheHeadDim;
        source.headStride = cacheHeadDim;
    }
    return source;
}

bool BatchRuns(const PaSubject& s, size_t b) {
    if (s.contextLens[b] == 0) return false;
    if (s.param->batchRunStatusEnable && s.batchRunStatus[b] == 0) return false;
    return !s.Spec() || s.qSeqLen[b] > 0;
}

// One item per (batch, kv head); query and output rows are packed over the batches that run (DECISIONS 3).
std::vector<WorkItem> MakeItems(const PaSubject& s, int64_t headDim, int64_t headDimV) {
    const int64_t heads = s.HeadNum();
    const int64_t kvHeads = s.KvHeadNum();
    const int64_t group = heads / kvHeads;
    std::vector<WorkItem> items;
    int64_t row = 0;
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (!BatchRuns(s, b)) continue;
        const int32_t qLen = s.Spec() ? s.qSeqLen[b] : 1;
        for (int64_t k = 0; k < kvHeads; ++k) {
            WorkItem item;
            item.batch = static_cast<int32_t>(b);
            item.qOffset = row * heads * headDim;
            item.outOffset = row * heads * headDimV;
            item.qLen = qLen;
            item.kvEnd = s.contextLens[b];
            item.kvSequence = static_cast<int64_t>(b);
            item.prefix = s.contextLens[b] - qLen;
            item.headBegin = static_cast<int32_t>(k * group);
            item.headCount = static_cast<int32_t>(group);
            item.kvHead = static_cast<int32_t>(k);
            item.logicalKvHead = static_cast<int32_t>(k);
            item.maskBatch = static_cast<int32_t>(b);
            item.logNIndex = static_cast<int32_t>(b);
            items.push_back(item);
        }
        row += qLen;
    }
    return items;
}

}  // namespace

AttentionPlan BuildPlan(const PaSubject& s) {
    const int64_t headDim = s.HeadSizeK();
    const int64_t headDimV = s.HeadSizeV();
    const int64_t heads = s.HeadNum();
    AttentionPlan plan;
    plan.headDim = static_cast<int32_t>(headDim);
    plan.headDimV = static_cast<int32_t>(headDimV);
    plan.query = {s.Data(Input::kQuery), nullptr, s.Desc(Input::kQuery).dtype, heads * headDim, headDim};
    const Tensor& out = s.pack->outTensors[0];
    plan.output = {nullptr, out.deviceData, out.desc.dtype, heads * headDimV, headDimV};
    plan.outputElements = static_cast<int64_t>(ElementCount(out.desc));
    if (s.param->qScale != 0.0f && s.param->qScale != 1.0f) plan.qPreScale = s.param->qScale;
    plan.key = PagedSource(s, Input::kKeyCache, headDim);
    plan.value = PagedSource(s, s.Mla() ? Input::kKeyCache : Input::kValueCache, headDimV);
    plan.scale.qkScale = s.param->qkScale;
    plan.items = MakeItems(s, headDim, headDimV);
    return plan;
}

}  // namespace atbx::ops::pa
