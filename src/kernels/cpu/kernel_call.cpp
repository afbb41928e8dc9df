#include "kernels/cpu/kernel_call.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

#include <unistd.h>

#include "core/cpu_features.h"
#include "core/float16.h"
#include "core/parallel.h"
#include "kernels/cpu/alibi_term_table.h"
#include "kernels/cpu/query_prescale.h"
#include "plan/element.h"

namespace atbx::kernels::cpu {
namespace {

using plan::AttentionPlan;
using plan::WorkItem;

constexpr int64_t kAlign = 64;

int64_t AlignUp(int64_t bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
}

int PadChannels(int channels) {
    return (channels + kChannelPad - 1) / kChannelPad * kChannelPad;
}

// Bytes of a key and its value converted to fp32 rows of padded channels.
int64_t ConvertedKeyBytes(const AttentionPlan& plan) {
    return int64_t{PadChannels(plan.headDim) + PadChannels(plan.headDimV)} * 4;
}

// Lanes of the item's row blocks (RowBlockWidth): kMaxLanes, or for an item whose keys, converted, take twice
// L2 or more, as many as keep Q^T and acc^T within a quarter of L2 (multiples of kChannelPad), up to
// kMaxWideLanes. int8 QKV quantisation keeps kMaxLanes: its row runner takes each lane's weights in turn.
int32_t RowBlockLanes(const AttentionPlan& plan, const WorkItem& item, RowBlockWidth width) {
    const int64_t keyBytes = ConvertedKeyBytes(plan);
    const bool longKeys = int64_t{item.kvEnd - item.kvBegin} * keyBytes >= 2 * Level2CacheBytes();
    if (width == RowBlockWidth::kNarrow || plan.quant.enabled() || !longKeys) return kMaxLanes;
    const int64_t fit = Level2CacheBytes() / 4 / keyBytes / kChannelPad * kChannelPad;
    return static_cast<int32_t>(std::clamp<int64_t>(fit, kMaxLanes, kMaxWideLanes));
}

// Rows of a row block: as many as fit its lanes with every head of the item, at least one.
int32_t RowsPerBlock(const AttentionPlan& plan, const WorkItem& item, RowBlockWidth width) {
    const int32_t lanes = RowBlockLanes(plan, item, width);
    return std::max<int32_t>(1, std::min<int32_t>(item.qLen, lanes / std::max(1, item.headCount)));
}

// Row blocks of kMaxLanes, whatever the width: the measure of the plan's work that the key chunks follow.
int64_t RowBlocks(const AttentionPlan& plan) {
    int64_t blocks = 0;
    for (const WorkItem& item : plan.items) {
        const int32_t rows = RowsPerBlock(plan, item, RowBlockWidth::kNarrow);
        blocks += (item.qLen + rows - 1) / rows;
    }
    return blocks;
}

int64_t LongestItemKeys(const AttentionPlan& plan) {
    int64_t longest = 0;
    for (const WorkItem& item : plan.items)
        longest = std::max<int64_t>(longest, item.kvEnd - item.kvBegin);
    return longest;
}

// Keys are cut into chunks only where the plan has too few row blocks (counted in kMaxLanes lanes, whatever
// the width) to spread over the threads (decode steps, short batches), and then into about
// kUnchunkedRowBlocks / row blocks chunks, each rounded up to whole kKvChunk keys: a chunk's partial state,
// lanes x head size, costs as much memory traffic per key as the dots (a GQA 28/4 prefill of 512 tokens after
// a 4k prefix, 228 row blocks, ran 1.06-1.10x the time in 512-key chunks than whole). int8 P quantisation
// follows the softmax tile by tile from kvBegin: such items are never split.
int32_t ChunkKeys(const AttentionPlan& plan) {
    const int64_t rowBlocks = RowBlocks(plan);
    if (plan.quant.enabled() || rowBlocks >= kUnchunkedRowBlocks) return INT32_MAX;
    const int64_t longest = LongestItemKeys(plan);
    const int64_t chunksWanted = (kUnchunkedRowBlocks + rowBlocks - 1) / std::max<int64_t>(1, rowBlocks);
    const int64_t keys = (longest + chunksWanted - 1) / chunksWanted;
    return static_cast<int32_t>(std::max<int64_t>(1, (keys + kKvChunk - 1) / kKvChunk) * kKvChunk);
}

int32_t ChunksOf(int32_t chunkKeys, const WorkItem& item) {
    if (item.zeroOutput || item.kvEnd <= item.kvBegin) return 1;
    const int64_t keys = item.kvEnd - item.kvBegin;
    return static_cast<int32_t>((keys + chunkKeys - 1) / chunkKeys);
}

// Whether `next` can share a task with the items of `first`: the same sequence, rows and keys.
bool Groupable(const WorkItem& first, const WorkItem& next) {
    return !first.zeroOutput && !next.zeroOutput && first.batch == next.batch &&
           first.kvSequence == next.kvSequence && first.qLen == next.qLen && first.kvBegin == next.kvBegin &&
           first.kvEnd == next.kvEnd && first.headCount == next.headCount && first.qOffset == next.qOffset;
}

// Items each task groups: as many as fit kMaxGroupLanes where each has at most kMaxLanes / 2 lanes (else
// one), fewer only when that would leave threads without work (a task reading part of each slot leaves the
// rest of its cache lines to another task).
int32_t GroupSize(const AttentionPlan& plan, int threads, RowBlockWidth width) {
    int32_t most = kMaxGroupLanes;
    int64_t ungroupedTasks = 0;
    const int32_t chunkKeys = ChunkKeys(plan);
    for (const WorkItem& item : plan.items) {
        const int32_t rows = RowsPerBlock(plan, item, width);
        const int32_t lanes = std::max(1, item.headCount) * rows;
        most = std::min(most, lanes <= kMaxLanes / 2 ? kMaxGroupLanes / lanes : 1);
        ungroupedTasks += (item.qLen + rows - 1) / rows * ChunksOf(chunkKeys, item);
    }
    const int64_t wanted = core::ResolveThreads(threads);
    int32_t size = most;
    while (size > 1 && ungroupedTasks / size < wanted)
        size /= 2;
    return size;
}

// Visits the schedule's groups of items: visit(first item, item count), in plan order.
template <class Visit>
void ForEachGroup(const AttentionPlan& plan, int threads, RowBlockWidth width, Visit visit) {
    const int32_t size = GroupSize(plan, threads, width);
    const auto count = static_cast<int32_t>(plan.items.size());
    for (int32_t first = 0; first < count;) {
        int32_t n = 1;
        while (n < size && first + n < count && Groupable(plan.items[first], plan.items[first + n]))
            ++n;
        visit(first, n);
        first += n;
    }
}

struct Counts {
    int64_t tasks = 0, merges = 0, partials = 0;
    int lanes = 1;
    int64_t columnWidth = 0;  // the column runner's lanes per task, each item's rounded up to kChannelPad
};

Counts Count(const AttentionPlan& plan, int threads, RowBlockWidth width) {
    Counts counts;
    const int32_t chunkKeys = ChunkKeys(plan);
    ForEachGroup(plan, threads, width, [&](int32_t first, int32_t n) {
        const WorkItem& item = plan.items[first];
        const int32_t rows = RowsPerBlock(plan, item, width);
        const int64_t blocks = (item.qLen + rows - 1) / rows;
        const int32_t chunks = ChunksOf(chunkKeys, item);
        const int itemLanes = item.headCount * rows;
        counts.lanes = std::max(counts.lanes, n * itemLanes);
        const int64_t columnLanes =
            itemLanes >= kMinColumnItemLanes ? int64_t{n} * PadChannels(itemLanes) : 0;
        counts.columnWidth = std::max({counts.columnWidth, int64_t{PadChannels(n * itemLanes)}, columnLanes});
        counts.tasks += blocks * chunks;
        if (chunks > 1) {
            counts.merges += blocks;
            counts.partials += blocks * chunks;
        }
    });
    return counts;
}

// The most bytes a thread's copy of an item's converted keys and values (KvTileTag) may take: half of L2, so
// that the tiles of the task and its products stay there beside it.
int64_t KvTileCacheBytes() {
    return Level2CacheBytes() / 2;
}

// Whether an item has several row blocks (prefills).
bool SeveralRowBlocks(const AttentionPlan& plan) {
    return std::any_of(plan.items.begin(), plan.items.end(), [&plan](const WorkItem& item) {
        return item.qLen > RowsPerBlock(plan, item, RowBlockWidth::kNarrow);
    });
}

// Whether the threads keep converted tiles of an item's keys and values (KvTileTag): where an item has
// several row blocks (prefills), whose tasks read the same keys, and the longest item's keys fit
// KvTileCacheBytes.
bool CachesKvTiles(const AttentionPlan& plan) {
    if (plan.quant.enabled()) return false;
    return SeveralRowBlocks(plan) && LongestItemKeys(plan) * ConvertedKeyBytes(plan) <= KvTileCacheBytes();
}

ScratchLayout LayoutFor(const AttentionPlan& plan, int lanes, int64_t width) {
    const int64_t dimPad = PadChannels(plan.headDim), dimVPad = PadChannels(plan.headDimV);
    ScratchLayout layout;
    // Each array starts 5 cache lines further into a 4 KiB page than the one before, whatever the sizes of
    // the arrays before it (each is rounded up to whole pages): a load whose address matches an earlier
    // store's in its low 12 bits waits for that store (4K aliasing), which the kernel's convert-then-read
    // pattern would hit on every row. When arrays of lanes x 128 channels were not whole pages (28 lanes: GQA
    // 28/4), the offsets depended on the sizes, and such decode steps ran 1.5-1.9x slower.
    constexpr int64_t kPageFloats = 4096 / sizeof(float);
    int64_t at = 0;
    int64_t shift = 0;
    const auto take = [&at, &shift](int64_t floats) {
        const int64_t start = at + shift;
        at += (floats + shift + kPageFloats - 1) / kPageFloats * kPageFloats;
        shift = (shift + 5 * kChannelPad) % kPageFloats;
        return start;
    };
    layout.query = take(lanes * dimPad);
    layout.scores = take(int64_t{lanes} * kTileKeys);
    layout.keys = take(kTileKeys * dimPad);
    layout.values = take(kTileKeys * dimVPad);
    layout.razor = take(kTileKeys);
    layout.acc = take(lanes * dimVPad);
    layout.lane = take(int64_t{kLaneFields} * lanes);
    layout.queryColumns = take(dimPad * width + dimPad / 2 * width);
    layout.scoreColumns = take(kTileKeys * width);
    layout.accColumns = take(dimVPad * width);
    layout.laneColumns = take(kLaneColumnFields * width);
    const int64_t pairKeys = plan.quant.enabled() ? kTileKeys : kL1TileKeys;
    layout.pairColumns = take((pairKeys + 1) / 2 * (dimVPad + width));
    const int64_t tiles = (LongestItemKeys(plan) + kL1TileKeys - 1) / kL1TileKeys;
    layout.keyNorms = take(kKeyNormTagFloats + tiles);
    layout.queryElements = take(kQueryTagFloats + lanes * dimPad);
    layout.int16Query = take((lanes * dimPad + 1) / 2);
    layout.roundedWeights = take(int64_t{lanes} * kTileKeys / 2);
    if (CachesKvTiles(plan)) {
        layout.kvTiles = take(kKvTileTagFloats + (tiles + 3) / 4);
        layout.kvTileKeys = take(tiles * kL1TileKeys * dimPad);
        layout.kvTileValues = take(tiles * kL1TileKeys * dimVPad);
    }
    layout.total = at;
    return layout;
}

int64_t PartialFloats(const AttentionPlan& plan, int lanes) {
    return int64_t{lanes} * (2 + PadChannels(plan.headDimV));
}

struct Regions {
    int64_t tasks, order, merges, partials, termTable, scratch, total;
};

Regions RegionsFor(const AttentionPlan& plan, int threads, RowBlockWidth width) {
    const Counts counts = Count(plan, threads, width);
    const ScratchLayout layout = LayoutFor(plan, counts.lanes, counts.columnWidth);
    Regions r;
    r.tasks = 0;
    r.order = r.tasks + AlignUp(counts.tasks * static_cast<int64_t>(sizeof(Task)));
    r.merges = r.order + AlignUp(counts.tasks * static_cast<int64_t>(sizeof(int32_t)));
    r.partials = r.merges + AlignUp(counts.merges * static_cast<int64_t>(sizeof(MergeStep)));
    r.termTable = r.partials + AlignUp(counts.partials * PartialFloats(plan, counts.lanes) * 4);
    r.scratch = r.termTable + AlignUp(AlibiTermTableFloats(plan) * 4);
    r.total = r.scratch + AlignUp(layout.total * 4) * core::ResolveThreads(threads) + kAlign;
    return r;
}

bool Floating(aclDataType dtype) {
    return dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_FLOAT;
}

int ElementBytes(aclDataType dtype) {
    switch (dtype) {
        case ACL_FLOAT16:
        case ACL_BF16:
            return 2;
        case ACL_FLOAT:
            return 4;
        default:
            return 1;
    }
}

KvView ViewOf(const plan::KvSource& source) {
    KvView view;
    view.data = source.data;
    view.dtype = source.dtype;
    view.elementBytes = ElementBytes(source.dtype);
    view.headDim = source.headDim;
    view.slotStride = source.slotStride;
    view.headStride = source.headStride;
    view.blockStride = source.blockStride;
    view.sequenceStride = source.sequenceStride;
    view.tableStride = source.tableStride;
    view.blockSize = source.blockSize;
    view.blockTable = source.blockTable;
    view.channelTile = source.channelTile;
    view.channelTileStride = source.channelTileStride;
    if (source.dequantised()) {
        view.scale = source.dequantScaleF32.data();
        view.offset = source.dequantOffsetF32.data();
    }
    return view;
}

// int8 caches are converted without their scales and offsets; the kernels apply them to the query and to the
// accumulated values instead (FoldedDequant).
void FoldDequantisation(KvView& view, FoldedDequant& folded) {
    if (view.dtype != ACL_INT8 || view.scale == nullptr) return;
    folded.scale = view.scale;
    folded.offset = view.offset;
    view.scale = nullptr;
    view.offset = nullptr;
}

// The masks the kernels read by rows (KernelCall::maskRows, maskTiles): an unflagged float tensor mask, the
// ND [H, rows, 128] ALiBi tile (rows shifted per 128-key tile), a compressed ALiBi mask's term table (filled
// here, on `threads` threads).
void SetMaskRows(const AttentionPlan& plan, float* termTable, int threads, KernelCall& call) {
    if (const auto* mask = std::get_if<plan::TensorMask>(&plan.mask);
        mask != nullptr && !mask->flags && Floating(mask->dtype)) {
        const KernelCall::MaskRows rows{
            mask->data,      mask->dtype,      mask->batchStride,     mask->headStride,
            mask->rowStride, mask->columnTile, mask->columnTileStride};
        (mask->columnTile == 0 ? call.maskRows : call.maskTiles) = rows;
    } else if (const auto* tile = std::get_if<plan::AlibiTileMask>(&plan.mask);
               tile != nullptr && tile->columnTile == 0 && Floating(tile->dtype)) {
        call.maskRows.data = tile->data;
        call.maskRows.dtype = tile->dtype;
        call.maskRows.headStride = tile->headStride;
        call.maskRows.rowStride = tile->rowStride;
        call.maskRows.rowsAtPositions = true;
        call.maskRows.shiftedTileKeys = static_cast<int>(plan::AlibiTileMask::kTileKeys);
    } else if (AlibiTermTableFloats(plan) > 0) {
        call.maskRows = FillAlibiTermTable(plan, termTable, threads);
    }
}

// The most a key the mask hides above a row's diagonal (or behind its window) by a finite term can gain on
// the row's own key through the terms: a causal mask's hidden value, a tensor mask's diagonal gap (-inf where
// every such term is -inf); empty where the mask gives no such bound.
std::optional<double> HiddenTermGap(const AttentionPlan& plan) {
    if (const auto* causal = std::get_if<plan::CausalMask>(&plan.mask))
        return std::isfinite(causal->maskedValue) ? std::optional(causal->maskedValue) : std::nullopt;
    if (const auto* tensor = std::get_if<plan::TensorMask>(&plan.mask)) return tensor->diagonalGap;
    return std::nullopt;
}

// The least float not below `value`.
float RoundedUp(double value) {
    const auto rounded = static_cast<float>(value);
    return rounded < value ? std::nextafter(rounded, __builtin_inff()) : rounded;
}

// Whether int8 QKV's P quantisation leaves a weight of 0 exactly 0 for every head: its factors finite (0
// times an infinite one is NaN, which the reference keeps: an OFFLINE pScale of 0, a vDescale of inf).
bool QuantKeepsZeroWeights(const AttentionPlan& plan) {
    const plan::QuantPolicy& quant = plan.quant;
    int64_t heads = 0;
    for (const WorkItem& item : plan.items)
        heads = std::max<int64_t>(heads, item.headBegin + item.headCount);
    const auto finite = [](float x) { return x - x == 0.0f; };
    for (int64_t h = 0; h < heads; ++h) {
        if (!finite(quant.vDescale[h])) return false;
        if (quant.mode == plan::QuantPolicy::Mode::kSelfOffline &&
            !(finite(1.0f / quant.pScale[h]) && finite(quant.vDescale[h] * quant.pScale[h]))) {
            return false;
        }
        if (quant.mode == plan::QuantPolicy::Mode::kPagedOffline && !finite(quant.pScale[h])) return false;
    }
    return true;
}

// Int8 QKV keys are bounded like float ones (their logits are exact integer dots times the head's descale,
// which the lanes' scale holds); but their online P quantisation keeps the largest weight of the tiles
// before, which a tile behind a window (computed before the row's own key) can set: only the upper
// triangle, whose tiles come after the own keys and weigh exactly 0, is skipped there.
bool SkipsBoundedTiles(const AttentionPlan& plan) {
    const auto* causal = std::get_if<plan::CausalMask>(&plan.mask);
    const bool windowed = causal != nullptr && causal->window > 0;
    const bool rawKeys = !plan.key.dequantised();
    const bool keys = plan.quant.enabled()
                          ? plan.key.dtype == ACL_INT8 && rawKeys && !windowed && QuantKeepsZeroWeights(plan)
                          : Floating(plan.key.dtype) && rawKeys;
    return HiddenTermGap(plan).has_value() && plan.scale.razorOffset == nullptr && keys;
}

void BuildSchedule(const AttentionPlan& plan, int threads, RowBlockWidth width, Task* tasks,
                   MergeStep* merges) {
    int32_t task = 0, merge = 0, partial = 0;
    const int32_t chunkKeys = ChunkKeys(plan);
    ForEachGroup(plan, threads, width, [&](int32_t first, int32_t n) {
        const WorkItem& item = plan.items[first];
        const int32_t rows = RowsPerBlock(plan, item, width);
        const int32_t chunks = ChunksOf(chunkKeys, item);
        for (int32_t r0 = 0; r0 < item.qLen; r0 += rows) {
            if (chunks > 1) merges[merge++] = {task, chunks};
            for (int32_t c = 0; c < chunks; ++c) {
                Task& t = tasks[task++];
                t.item = first;
                t.itemCount = n;
                t.rowBegin = r0;
                t.rowEnd = std::min(item.qLen, r0 + rows);
                t.kvBegin = chunks > 1 ? item.kvBegin + c * chunkKeys : item.kvBegin;
                t.kvEnd = chunks > 1 ? std::min(item.kvEnd, t.kvBegin + chunkKeys) : item.kvEnd;
                t.partial = chunks > 1 ? partial++ : -1;
            }
        }
    });
}

// The end of the group of tasks from `begin` (tasks of the same items, laid out row block by row block, each
// row block's chunks in key order).
int32_t GroupEnd(const Task* tasks, int32_t count, int32_t begin) {
    int32_t end = begin + 1;
    while (end < count && tasks[end].item == tasks[begin].item)
        ++end;
    return end;
}

// Whether the threads take the tasks in the schedule's order, an item's row blocks one after another: in
// prefills whose threads keep what they computed for the item they last ran, its converted K and V tiles
// (CachesKvTiles) or, where the mask's terms bound the keys it hides (SkipsBoundedTiles), its tiles' key
// norms (KeyNormTag). A thread holds one item's; taken side by side with the other kv heads' tasks
// (OrderTasks), every task found another item's and computed its own again (on the Zen 4 host: fp16
// 512-token prefills 1.08-1.10x the time, 4k windows over 16k tokens 1.18x in fp16 and 1.37x in bf16, causal
// 2k and 8k prefills up to 1.1x).
bool KeepsItemOrder(const AttentionPlan& plan) {
    return CachesKvTiles(plan) || (SeveralRowBlocks(plan) && SkipsBoundedTiles(plan));
}

// The order in which the threads take the tasks: the schedule's, but where a sequence's kv heads were cut
// into several groups (the same rows and keys, so the same row blocks and chunks each), the groups' tasks
// interleaved, each (row block, chunk) of every group in turn, unless KeepsItemOrder. The groups read their
// kv heads' parts of the same cache slots; taken side by side, those parts are read at once, not a whole pass
// over the context apart (4-token steps on the Zen 4 host: cpu:avx2 0.92x the time in geometric mean,
// cpu:avx512 0.96x; BENCHMARKS.md).
void OrderTasks(const AttentionPlan& plan, const Task* tasks, int32_t count, int32_t* order) {
    if (KeepsItemOrder(plan)) {
        std::iota(order, order + count, 0);
        return;
    }
    int32_t next = 0;
    for (int32_t begin = 0; begin < count;) {
        const int32_t size = GroupEnd(tasks, count, begin) - begin;
        int32_t end = begin + size;
        while (end < count && GroupEnd(tasks, count, end) - end == size &&
               Groupable(plan.items[tasks[begin].item], plan.items[tasks[end].item]))
            end += size;
        const int32_t groups = (end - begin) / size;
        for (int32_t k = 0; k < size; ++k) {
            for (int32_t g = 0; g < groups; ++g)
                order[next++] = begin + g * size + k;
        }
        begin = end;
    }
}

// The largest |value| for which weights rounded to bf16 keep an output within half the precision standard's
// bound (docs/spec/DECISIONS.md, "Precision standard": eps 2^-8 for fp16 and 2^-7 for bf16 outputs, twice
// that once head_dim * max_kv_len + 4 >= 2048). Rounding moves a weight by up to 2^-8 of itself, so an output
// by up to 2^-8 of the weights' mean |value - output|, which is at most the largest |value|: 2^7 eps. 0 for
// fp32 outputs, held to 2^-11.
float Bf16WeightReach(const AttentionPlan& plan) {
    const aclDataType out = plan.output.dtype;
    if (out != ACL_FLOAT16 && out != ACL_BF16) return 0.0f;
    int64_t longest = 0;
    for (const WorkItem& item : plan.items)
        longest = std::max<int64_t>(longest, item.kvEnd);
    const bool shortCall = int64_t{plan.headDim} * longest + 4 < 2048;
    const int epsExponent = (out == ACL_FLOAT16 ? -8 : -7) + (shortCall ? 0 : 1);
    return std::ldexp(1.0f, epsExponent + 7);
}

}  // namespace

std::optional<std::string> CallRefusal(const AttentionPlan& plan) {
    const bool quant = plan.quant.enabled();
    if (!quant && (!Floating(plan.query.dtype) || !Floating(plan.output.dtype))) {
        return "only float16, bfloat16 and float32 queries and outputs are implemented";
    }
    for (const plan::KvSource* source : {&plan.key, &plan.value}) {
        if (!Floating(source->dtype) && source->dtype != ACL_INT8) {
            return "only float16, bfloat16, float32 and int8 caches are implemented";
        }
        if (source->dequantised() && source->dequantScaleF32.empty()) {
            return "the plan's dequantisation scales are not decoded (plan::DecodeDequantisation)";
        }
        if (source->channelTile != 0 && source->channelTile % 16 != 0) {
            return "FRACTAL_NZ tiles must be a multiple of 16 channels";
        }
    }
    if (plan.scale.razorOffset != nullptr && !plan.key.paged()) {
        return "razor offsets are implemented for paged caches only";
    }
    return std::nullopt;
}

int64_t Level2CacheBytes() {
    static const int64_t bytes = [] {
        const long level2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        return level2 > 0 ? int64_t{level2} : int64_t{512} << 10;
    }();
    return bytes;
}

uint64_t CallWorkspaceBytes(const AttentionPlan& plan, int threads, RowBlockWidth width) {
    return static_cast<uint64_t>(RegionsFor(plan, threads, width).total);
}

bool LongTasks(const AttentionPlan& plan) {
    return ChunkKeys(plan) > kKvChunk;
}

KernelCall PrepareCall(const AttentionPlan& plan, int threads, RowBlockWidth width, void* workspace) {
    const Counts counts = Count(plan, threads, width);
    const Regions regions = RegionsFor(plan, threads, width);
    auto* base = static_cast<char*>(workspace);
    base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;

    KernelCall call;
    call.plan = &plan;
    call.items = plan.items.data();
    call.headDim = plan.headDim;
    call.headDimV = plan.headDimV;
    call.dimPad = PadChannels(plan.headDim);
    call.dimVPad = PadChannels(plan.headDimV);
    call.query = plan.query.data;
    call.queryType = plan.query.dtype;
    call.queryDirect = Floating(plan.query.dtype) && !plan.qPreScale;
    call.queryRowStride = plan.query.rowStride;
    call.queryHeadStride = plan.query.headStride;
    call.output = plan.output.out;
    call.outputType = plan.output.dtype;
    call.outputRowStride = plan.output.rowStride;
    call.outputHeadStride = plan.output.headStride;
    call.key = ViewOf(plan.key);
    call.value = ViewOf(plan.value);
    // fp16 and int8 values sum to at most 65504 per unit of weight; wider ones are scaled down by 2^-64 while
    // they are accumulated and back up at the end, so the fp32 sums cannot overflow where float64 does not.
    const bool narrow =
        !plan.value.dequantised() && (plan.value.dtype == ACL_FLOAT16 || plan.value.dtype == ACL_INT8);
    call.value.shrink = narrow ? 1.0f : 0x1p-64f;
    call.outputGrow = 1.0f / call.value.shrink;
    FoldDequantisation(call.key, call.keyDequant);
    FoldDequantisation(call.value, call.valueDequant);
    if (call.valueDequant.scale != nullptr)
        call.value.shrink = 1.0f;  // raw int8 sums; the final scale shrinks
    call.mask = plan::KindOf(plan.mask);
    if (const auto* causal = std::get_if<plan::CausalMask>(&plan.mask)) call.causal = *causal;
    SetMaskRows(plan, reinterpret_cast<float*>(base + regions.termTable), threads, call);
    call.clamp = plan.scale.clamp;
    call.clampMin = static_cast<float>(plan.scale.clampMin);
    call.clampMax = static_cast<float>(plan.scale.clampMax);
    if (call.clamp) call.logitSpan = std::max(0.0f, call.clampMax - call.clampMin);
    call.razorOffset = plan.scale.razorOffset;
    call.skipsBoundedTiles = SkipsBoundedTiles(plan);
    if (call.skipsBoundedTiles) call.hiddenTermGap = RoundedUp(*HiddenTermGap(plan));
    call.razorBlockStride = plan.scale.razorBlockStride;
    call.quant = plan.quant.mode;
    call.kDescale = plan.quant.kDescale;
    call.vDescale = plan.quant.vDescale;
    call.pScale = plan.quant.pScale;
    // Small tiles keep the fp32 K and V tiles in L1 while every lane reads them; int8 QKV keeps ATB's 128-key
    // P-quantisation tile.
    call.tileKeys = plan.quant.enabled() ? plan::QuantPolicy::kTileKeys : kL1TileKeys;

    auto* tasks = reinterpret_cast<Task*>(base + regions.tasks);
    auto* merges = reinterpret_cast<MergeStep*>(base + regions.merges);
    BuildSchedule(plan, threads, width, tasks, merges);
    auto* order = reinterpret_cast<int32_t*>(base + regions.order);
    OrderTasks(plan, tasks, static_cast<int32_t>(counts.tasks), order);
    call.tasks = tasks;
    call.taskCount = counts.tasks;
    call.order = order;
    call.merges = merges;
    call.mergeCount = counts.merges;
    call.partials = reinterpret_cast<float*>(base + regions.partials);
    call.partialFloats = PartialFloats(plan, counts.lanes);
    call.lanes = counts.lanes;
    call.layout = LayoutFor(plan, counts.lanes, counts.columnWidth);
    call.scratch = reinterpret_cast<float*>(base + regions.scratch);
    call.cachesKvTiles = CachesKvTiles(plan);
    call.threads = core::ResolveThreads(threads);
    for (int thread = 0; thread < call.threads; ++thread) {
        float* scratch = call.scratch + thread * call.layout.total;
        std::memcpy(scratch + call.layout.keyNorms, &kNoKeyNorms, sizeof(KeyNormTag));
        std::memcpy(scratch + call.layout.queryElements, &kNoQuery, sizeof(QueryTag));
        if (call.cachesKvTiles) std::memcpy(scratch + call.layout.kvTiles, &kNoKvTiles, sizeof(KvTileTag));
    }
    call.longTasks = LongTasks(plan);
    call.bf16Dots = core::HostCpu().avx512bf16 && call.queryDirect && call.queryType == ACL_BF16 &&
                    call.key.dtype == ACL_BF16 && call.key.channelTile == 0 && call.key.scale == nullptr &&
                    call.keyDequant.scale == nullptr && call.headDim % 2 == 0;
    call.bf16RowDots = call.bf16Dots && call.headDim % 32 == 0 && call.headDim == call.dimPad;
    call.int8Dots = call.key.dtype == ACL_INT8 && call.key.channelTile == 0 && call.key.scale == nullptr &&
                    call.headDim % 32 == 0 && call.headDim == call.dimPad && call.headDim < 4096;
    call.int8PV = call.value.dtype == ACL_INT8 && call.value.channelTile == 0 &&
                  call.value.scale == nullptr && call.headDimV % 32 == 0 && call.headDimV == call.dimVPad &&
                  call.quant == plan::QuantPolicy::Mode::kNone;
    call.int8Pairs = call.quant != plan::QuantPolicy::Mode::kNone && call.int8Dots &&
                     call.value.dtype == ACL_INT8 && call.value.channelTile == 0 &&
                     call.value.scale == nullptr;
    call.bf16PV = core::HostCpu().avx512bf16 && call.value.dtype == ACL_BF16 && call.value.channelTile == 0 &&
                  call.value.scale == nullptr && call.valueDequant.scale == nullptr &&
                  call.headDimV == call.dimVPad && call.quant == plan::QuantPolicy::Mode::kNone &&
                  (call.outputType == ACL_FLOAT16 || call.outputType == ACL_BF16);
    call.bf16WeightReach = Bf16WeightReach(plan);
    return call;
}

double RowScale(const KernelCall& call, const WorkItem& item, int64_t row) {
    return call.plan->scale.RowScale(item, row);
}

void QueryElements(const KernelCall& call, int64_t offset, int64_t n, float* out) {
    const std::optional<double>& pre = call.plan->qPreScale;
    const auto scale = pre ? static_cast<float>(*pre) : 1.0f;
    if (pre && static_cast<double>(scale) == *pre && Floating(call.queryType)) {
        const int64_t bytes = offset * (call.queryType == ACL_FLOAT ? 4 : 2);
        return HostPrescaleQueries()(static_cast<const char*>(call.query) + bytes, call.queryType, n, scale,
                                     out);
    }
    if (!pre && call.queryType == ACL_INT8) {  // int8 QKV: the values themselves, in a loop that vectorises
        const int8_t* q = static_cast<const int8_t*>(call.query) + offset;
        for (int64_t i = 0; i < n; ++i)
            out[i] = static_cast<float>(q[i]);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        const double q = plan::LoadElement(call.query, call.queryType, offset + i);
        out[i] = static_cast<float>(pre ? plan::RoundToDtype(q * *pre, call.queryType) : q);
    }
}

void StoreOutput(const KernelCall& call, int64_t offset, float value) {
    plan::StoreElement(call.output, call.outputType, offset, value);
}

float RoundToHalf(float value) {
    return static_cast<float>(plan::RoundToDtype(value, ACL_FLOAT16));
}

void AddMaskTerms(const KernelCall& call, const WorkItem& item, int64_t head, int64_t row, int64_t j0,
                  int32_t n, float* scores) {
    plan::AddMaskTerms(call.plan->mask, item, head, row, j0, n, scores);
}

plan::TileClass ClassifyTile(const KernelCall& call, const WorkItem& item, int64_t rowBegin, int64_t rowEnd,
                             int64_t j0, int64_t j1) {
    return plan::ClassifyTile(call.plan->mask, item, rowBegin, rowEnd, j0, j1);
}

}  // namespace atbx::kernels::cpu
