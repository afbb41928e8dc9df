// Work items (docs/spec/paged_attention.md 3.1, 3.4, 3.6, 3.10; DECISIONS 3): one per (batch, kv head)
// holding the batch's query rows and the kv head's group of query heads.
#include <algorithm>

#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {
namespace {

using plan::WorkItem;

// Entry `index` of contextLens runs unless its length is 0 or batchRunStatus (sized like contextLens) is 0.
bool Runs(const PaSubject& s, size_t index) {
    if (s.contextLens[index] == 0) return false;
    return !s.param->batchRunStatusEnable || index >= s.batchRunStatus.size() || s.batchRunStatus[index] != 0;
}

int64_t MaskRow0(MaskFirstRow firstRow, int64_t packedRow, int64_t prefix) {
    switch (firstRow) {
        case MaskFirstRow::kPackedRow:
            return packedRow;
        case MaskFirstRow::kPrefix:
            return prefix;
        case MaskFirstRow::kZero:
            break;
    }
    return 0;
}

// Query row `row` (packed), query heads [k*g, (k+1)*g) against keys [0, length) of block-table row
// `sequence`.
WorkItem Item(const PaSubject& s, int64_t row, int32_t qLen, int64_t sequence, int64_t k) {
    const int64_t group = s.HeadNum() / s.KvHeadNum();
    WorkItem item;
    item.qOffset = row * s.HeadNum() * s.HeadSizeK();
    item.outOffset = row * s.HeadNum() * s.HeadSizeV();
    item.qLen = qLen;
    item.kvEnd = s.contextLens[sequence];
    item.kvSequence = sequence;
    item.prefix = std::max<int64_t>(0, item.kvEnd - qLen);  // query i sits at position prefix + i
    item.headBegin = static_cast<int32_t>(k * group);
    item.headCount = static_cast<int32_t>(group);
    item.kvHead = static_cast<int32_t>(k);
    item.logicalKvHead = static_cast<int32_t>(k);
    return item;
}

// Query and output rows are packed over the batches that run; masks and logN stay indexed by the original b.
std::vector<WorkItem> BatchItems(const PaSubject& s, MaskFirstRow firstRow) {
    std::vector<WorkItem> items;
    int64_t row = 0;
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        const int32_t qLen = s.Spec() ? s.qSeqLen[b] : 1;
        if (!Runs(s, b) || qLen == 0) continue;
        for (int64_t k = 0; k < s.KvHeadNum(); ++k) {
            WorkItem item = Item(s, row, qLen, static_cast<int64_t>(b), k);
            item.batch = static_cast<int32_t>(b);
            item.maskBatch = item.batch;
            item.logNIndex = item.batch;
            item.maskRow0 = MaskRow0(firstRow, row, item.prefix);
            items.push_back(item);
        }
        row += qLen;
    }
    return items;
}

// KV-head compression: contextLens and blockTables have a row b' = b*Hk + k per (batch, kv head); the cache
// holds one head per block. Query and output rows stay indexed by b (T*Hk == contextLens.dims[0], nothing is
// packed); an empty (b, k) pair leaves its heads of row b untouched. Masks read the original batch and head.
std::vector<WorkItem> CompressedItems(const PaSubject& s, MaskFirstRow firstRow) {
    const int64_t kvHeads = s.KvHeadNum();
    std::vector<WorkItem> items;
    for (size_t compressed = 0; compressed < s.contextLens.size(); ++compressed) {
        if (!Runs(s, compressed)) continue;
        const int64_t b = static_cast<int64_t>(compressed) / kvHeads;
        const int64_t k = static_cast<int64_t>(compressed) % kvHeads;
        WorkItem item = Item(s, b, 1, static_cast<int64_t>(compressed), k);
        item.kvHead = 0;
        item.batch = static_cast<int32_t>(b);
        item.maskBatch = item.batch;
        item.logNIndex = item.batch;
        item.maskRow0 = MaskRow0(firstRow, b, item.prefix);
        items.push_back(item);
    }
    return items;
}

}  // namespace

std::vector<WorkItem> MakeItems(const PaSubject& s, MaskFirstRow firstRow) {
    return s.Compressed() ? CompressedItems(s, firstRow) : BatchItems(s, firstRow);
}

}  // namespace atbx::ops::pa
