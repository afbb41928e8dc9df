// The cpu:amx path: flash attention on AMX bf16 tiles for the tasks whose row block has many lanes (prefill),
// the AVX-512 kernel for every other task. CMake compiles this file alone with the AVX-512, AVX512-BF16 and
// AMX flags; cpu_paths.cpp calls it only where the CPU has them (AMX aside in ATBX_AMX_MODEL builds, whose
// tile instructions run on a software model: amx_tile_ops.h).
//
// A task's lanes (head, query row) share one kv head, so they form the M dimension of both products. Keys are
// walked in blocks of kBlockKeys:
//   S [lanes, keys] = Q [lanes, d] K^T        (TDPBF16PS, fp32 S)
//   logits, mask terms, online softmax on S   (AVX-512, as the AVX-512 kernel does per lane)
//   acc [lanes, dV] = acc * rescale + P V      (TDPBF16PS accumulating into fp32 acc)
// bf16 operands are exact. fp16 ones are split into bf16 hi + lo (exact for every fp16 value): Q K^T is
// hi*hi + hi*lo + lo*hi, P V is P*hi + P*lo with P rounded to bf16 (docs/decisions.md, "cpu:amx"). Blocks
// holding a non-finite key or value are computed in fp32 from the same exact parts, since a split product of
// an infinity (inf * 0 in a lo part) would turn ±inf into NaN, and a key of weight 0 must not contribute even
// with a NaN value.
#include <immintrin.h>

#include <cstdint>
#include <optional>

#include "core/parallel.h"
#include "kernels/cpu/amx_kernel.h"
#include "kernels/cpu/amx_tile_ops.h"
#include "kernels/cpu/isa_kernels.h"

#define ATBX_KERNEL_NAMESPACE atbx::kernels::cpu::amx
namespace ATBX_KERNEL_NAMESPACE {
#include "kernels/cpu/simd/simd_avx512.inl"
}  // namespace ATBX_KERNEL_NAMESPACE
#include "kernels/common/online_softmax.inl"
#include "kernels/cpu/amx_tiles.inl"

namespace atbx::kernels::cpu::amx {
namespace {

using V = Simd::V;
constexpr float kNegInf = -__builtin_inff();
constexpr int kBlockKeys = 128;  // keys per block: S and P rows of 128, four tile products per acc tile
constexpr int kSubBlock = 32;    // keys classified against the mask at once (the AVX-512 kernel's tile)
constexpr int kVectors = kBlockKeys / 16;  // zmm registers of one lane's logits
// Most lanes of a tile task: kMaxLanes, or one row of every head of a group of up to 128 heads (MLA).
constexpr int kLanePad = 128;
// Fewest lanes a task needs for the tiles to pay (measured: docs/decisions.md, "cpu:amx").
constexpr int kMinLanes = 32;

// This file is compiled with AMX and AVX-512 flags: it instantiates no template of the standard library,
// whose instances the linker could pick for code that runs on any CPU (kernel_call.h).
int64_t Round(int64_t n, int64_t to) {
    return (n + to - 1) / to * to;
}

int64_t Min(int64_t a, int64_t b) {
    return a < b ? a : b;
}

int64_t Max(int64_t a, int64_t b) {
    return a > b ? a : b;
}

template <class T>
void Fill(T* at, int64_t n, T value) {
    for (int64_t i = 0; i < n; ++i)
        at[i] = value;
}

// The key chunk a thread's packed blocks belong to: consecutive tasks on one thread usually read the same
// chunk of the same work item (the row blocks of one chunk), so each block is converted and packed once per
// thread and chunk, on first use. What is packed depends on the keys alone, so results do not depend on
// which thread ran which task.
// A task spanning several items (the kv heads of a decode step) runs them side by side instead, up to
// kMaxItems at once, each with its lanes padded to whole pairs of tiles: the runner packs the current block
// of every item, reading each cache slot's rows of those heads in memory order, into two slots per item
// (the pipeline holds two blocks), and keeps no chunk.
constexpr int kChunkBlocks = kKvChunk / kBlockKeys;
constexpr int kRowBlocksPerUnit = 8;  // row blocks a thread runs over each chunk it packs (RunUnit)
// Bytes of the runners' slots (queries and acc) a thread keeps for interleaved row blocks: with the packed
// chunk they stay in L2.
constexpr int64_t kSlotBytes = int64_t{1} << 20;
constexpr float kLoLoReach = 64.0f;  // s |q| |k| up to which fp16 scores leave lo·lo out (ScoreProducts)
// s |q| |k| up to which a block's dots are tile products (WithinTileReach). A tile adds a dot's terms one
// after another into one fp32 sum, each rounding up to 2^-24 of the running sum, which moves a logit by some
// sqrt(d) 2^-25 s |q| |k|: 2^-10 at this reach for head size 128. The fp32 dots of ExactLaneScores sum
// sixteen lanes and then across them, some four times closer; keys 30000 times larger than the queries
// (s |q| |k| of 1e5) had moved a row by twice the precision standard's bound on the tiles.
constexpr float kTileReach = 2048.0f;
constexpr int kMaxItems = kLanePad / (2 * 16);
constexpr int kPackSlots = kChunkBlocks > 2 * kMaxItems ? kChunkBlocks : 2 * kMaxItems;
struct ChunkState {
    int32_t item, kvBegin, kvEnd;
    bool valid;
    bool packed[kPackSlots];
    bool normed[kPackSlots];  // keysNonFinite and keyNorm are known (packed, or staged for WeighsNothing)
    bool keysNonFinite[kPackSlots];  // such blocks are computed in fp32 (the file comment)
    bool valuesNonFinite[kPackSlots];
    float valueMagnitude[kPackSlots];  // the largest |value| of the block (WeightsFitBf16)
    float keyNorm[kPackSlots];         // the largest norm of the block's keys
};

// Byte offsets of one thread's arrays inside its AMX scratch; d32 / v32: head sizes rounded up to 32.
struct AmxLayout {
    int64_t d32, v32;
    int slots;                   // runners that keep their state at once (RunInterleaved)
    int64_t qHi, qLo;            // bf16 [slots][kLanePad, d32] each runner's queries in its slot
    int64_t querySlot;           // bytes of one slot of qHi (and of qLo)
    int64_t chunk;               // ChunkState: which keys chunkKeys / chunkValues hold
    int64_t chunkKeys;           // per packed slot, hi then lo: bf16 pairs [d32 / 2, kBlockKeys, 2]
    int64_t chunkValues;         // per packed slot, hi then lo: bf16 pairs [kBlockKeys / 2, v32, 2]
    int64_t keyPart, valuePart;  // bytes of one part (hi or lo) of one block
    int64_t stageRows;           // elements of one item's staged rows: kBlockKeys * max(d32, v32)
    int64_t stageHi, stageLo;    // bf16 [kMaxItems][kBlockKeys, max(d32, v32)] rows of the block being packed
    int64_t weights;             // bf16 [kLanePad, kBlockKeys] P
    int64_t scores;              // fp32 [2][kLanePad, kBlockKeys]: two blocks' scores (Run's pipeline)
    int64_t acc;                 // fp32 [slots][kLanePad, v32]: each runner's acc in its slot
    int64_t accSlot;             // bytes of one slot of acc
    int64_t razor;               // fp32 [kBlockKeys]
    int64_t total;
};

// longTasks: the schedule's tasks may hold more than kKvChunk keys (KernelCall::longTasks), so row blocks
// interleave, as many as kSlotBytes of slots hold (2 to kRowBlocksPerUnit); else one slot.
AmxLayout LayoutFor(int headDim, int headDimV, bool longTasks) {
    AmxLayout l{};
    l.d32 = Round(headDim, kPairSteps);
    l.v32 = Round(headDimV, kPairSteps);
    l.querySlot = kLanePad * l.d32 * 2;
    l.accSlot = kLanePad * l.v32 * 4;
    const int64_t fit = kSlotBytes / (2 * l.querySlot + l.accSlot);
    l.slots = longTasks ? static_cast<int>(Min(kRowBlocksPerUnit, Max(2, fit))) : 1;
    int64_t at = 0;
    const auto take = [&at](int64_t bytes) {
        const int64_t start = at;
        at += Round(bytes, 64);
        return start;
    };
    l.qHi = take(l.slots * l.querySlot);
    l.qLo = take(l.slots * l.querySlot);
    l.keyPart = kBlockKeys * l.d32 * 2;
    l.valuePart = kBlockKeys * l.v32 * 2;
    l.chunk = take(sizeof(ChunkState));
    l.chunkKeys = take(kPackSlots * 2 * l.keyPart);
    l.chunkValues = take(kPackSlots * 2 * l.valuePart);
    l.stageRows = kBlockKeys * Max(l.d32, l.v32);
    l.stageHi = take(kMaxItems * l.stageRows * 2);
    l.stageLo = take(kMaxItems * l.stageRows * 2);
    l.weights = take(kLanePad * kBlockKeys * 2);
    l.scores = take(2 * kLanePad * kBlockKeys * 4);
    l.acc = take(l.slots * l.accSlot);
    l.razor = take(kBlockKeys * 4);
    l.total = at;
    return l;
}

#include "kernels/cpu/amx_rows.inl"
#include "kernels/cpu/amx_task_runner.inl"
// The column runner takes the row-block runner's helpers (StepState, StoreRow, TilesTake ...).
#include "kernels/cpu/amx_columns.inl"

// The order the runner takes the schedule in. kernel_call.cpp lays each work item's tasks out row block by
// row block, each row block's key chunks in order; running them so, consecutive tasks on a thread would
// alternate between chunks and pack every block again. A unit is instead up to kRowBlocksPerUnit row blocks
// of one chunk: the thread packs the chunk's K/V blocks once and runs them all. A range is one work item's
// tasks (first, then rowBlocks x chunks); tasks that do not follow that pattern form a range of chunks 1
// whose units are single tasks. The results do not depend on the order.
struct TaskRange {
    int64_t first;
    int32_t chunks, rowBlocks, rowBlocksPerUnit;
    int64_t units, firstUnit;
};

bool RowBlockMajor(const KernelCall& call, int64_t first, int32_t chunks, int32_t rowBlocks) {
    for (int32_t r = 0; r < rowBlocks; ++r) {
        for (int32_t c = 0; c < chunks; ++c) {
            const Task& t = call.tasks[first + int64_t{r} * chunks + c];
            if (t.rowBegin != call.tasks[first + int64_t{r} * chunks].rowBegin ||
                t.kvBegin != call.tasks[first + c].kvBegin || SpansItems(t)) {
                return false;
            }
        }
    }
    return true;
}

// The ranges of the schedule, or -1 when there are more than `capacity`.
int64_t BuildRanges(const KernelCall& call, TaskRange* ranges, int64_t capacity) {
    int64_t count = 0, units = 0;
    for (int64_t first = 0; first < call.taskCount;) {
        int64_t end = first + 1;
        while (end < call.taskCount && call.tasks[end].item == call.tasks[first].item)
            ++end;
        int32_t chunks = 1;
        while (first + chunks < end && call.tasks[first + chunks].rowBegin == call.tasks[first].rowBegin)
            ++chunks;
        TaskRange range{first, chunks, static_cast<int32_t>((end - first) / chunks), kRowBlocksPerUnit,
                        0,     units};
        if ((end - first) % chunks != 0 || !RowBlockMajor(call, first, chunks, range.rowBlocks)) {
            range.chunks = 1;
            range.rowBlocks = static_cast<int32_t>(end - first);
            range.rowBlocksPerUnit = 1;
        }
        range.units =
            range.chunks * ((range.rowBlocks + range.rowBlocksPerUnit - 1) / range.rowBlocksPerUnit);
        if (count == capacity) return -1;
        ranges[count++] = range;
        units += range.units;
        first = end;
    }
    return count;
}

// Whether the runner of `task` can keep its state in a slot while other tasks' runners run on the thread: a
// row runner's task of one item, with more keys than a chunk.
bool Interleaves(const KernelCall& call, const Task& task) {
    return task.itemCount == 1 && task.kvEnd - task.kvBegin > kKvChunk &&
           !AmxColumnRunner::Takes(call, task) && Takes(call, task);
}

// Runs tasks `tasks` (row blocks of one item, all its keys each) chunk by chunk: every runner continues over
// a chunk before the next, so that the thread packs each chunk's K/V blocks once for all of them.
void RunInterleaved(const KernelCall& call, const int64_t* tasks, int count, char* scratch,
                    const AmxLayout& layout, const AmxOptions& options) {
    std::optional<AmxTaskRunner> runners[kRowBlocksPerUnit];
    for (int r = 0; r < count; ++r) {
        runners[r].emplace(call, call.tasks[tasks[r]], 0, 1, scratch, layout, options, r);
        runners[r]->Start();
    }
    const Task& first = call.tasks[tasks[0]];
    for (int32_t j0 = first.kvBegin; j0 < first.kvEnd; j0 += kKvChunk) {
        for (int r = 0; r < count; ++r)
            runners[r]->RunKeys(j0, static_cast<int32_t>(Min(first.kvEnd, j0 + kKvChunk)));
    }
    for (int r = 0; r < count; ++r)
        runners[r]->Finish();
}

// Runs unit `unit`: its row blocks of one chunk, in order, interleaved where their tasks read every chunk.
template <class RunTask>
void RunUnit(const KernelCall& call, const TaskRange* ranges, int64_t count, int64_t unit, int thread,
             char* scratch, const AmxLayout& layout, const AmxOptions& options, RunTask& runTask) {
    int64_t lo = 0, hi = count - 1;  // the last range whose firstUnit <= unit
    while (lo < hi) {
        const int64_t mid = (lo + hi + 1) / 2;
        if (ranges[mid].firstUnit <= unit) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    const TaskRange& range = ranges[lo];
    const int64_t local = unit - range.firstUnit;
    const int64_t chunk = local % range.chunks, group = local / range.chunks;
    const int64_t begin = group * range.rowBlocksPerUnit;
    const int64_t end = Min(range.rowBlocks, begin + range.rowBlocksPerUnit);
    int64_t tasks[kRowBlocksPerUnit];
    int interleaved = 0;
    for (int64_t r = begin; r < end; ++r) {
        const int64_t task = range.first + r * range.chunks + chunk;
        if (Interleaves(call, call.tasks[task])) {
            tasks[interleaved++] = task;
        } else {
            runTask(task, thread);
        }
    }
    for (int first = 0; first < interleaved; first += layout.slots) {
        RunInterleaved(call, tasks + first, static_cast<int>(Min(layout.slots, interleaved - first)), scratch,
                       layout, options);
    }
}

}  // namespace

int64_t ThreadScratchBytes(int headDim, int headDimV, bool longTasks) {
    return LayoutFor(headDim, headDimV, longTasks).total;
}

int64_t OrderScratchBytes(int64_t items) {
    return Round(items * static_cast<int64_t>(sizeof(TaskRange)), 64);
}

void RunAttention(const KernelCall& call, char* threadScratch, char* orderScratch, int64_t items,
                  const AmxOptions& options) {
    const AmxLayout layout = LayoutFor(call.headDim, call.headDimV, call.longTasks);
    for (int thread = 0; thread < call.threads; ++thread)
        reinterpret_cast<ChunkState*>(threadScratch + thread * layout.total + layout.chunk)->valid = false;
    auto runTask = [&](int64_t index, int thread) {
        const Task& t = call.tasks[index];
        char* scratch = threadScratch + thread * layout.total;
        if (AmxColumnRunner::Takes(call, t)) {
            for (int first = 0; first < t.itemCount; first += kMaxItems)
                AmxColumnRunner(call, t, first, static_cast<int>(Min(kMaxItems, t.itemCount - first)),
                                scratch, layout, options)
                    .Run();
            return;
        }
        if (!Takes(call, t)) return avx512::RunTask(call, index, call.scratch + thread * call.layout.total);
        const int most = AmxTaskRunner::MostItems(static_cast<int>(Lanes(call.items[t.item], t)));
        for (int first = 0; first < t.itemCount; first += most) {
            AmxTaskRunner(call, t, first, static_cast<int>(Min(most, t.itemCount - first)), scratch, layout,
                          options)
                .Run();
        }
    };
    auto* ranges = reinterpret_cast<TaskRange*>(orderScratch);
    const int64_t rangeCount = BuildRanges(call, ranges, items);
    if (rangeCount < 0) {
        core::ParallelFor(call.taskCount, call.threads, runTask);
    } else {
        const int64_t units =
            rangeCount == 0 ? 0 : ranges[rangeCount - 1].firstUnit + ranges[rangeCount - 1].units;
        auto runUnit = [&](int64_t unit, int thread) {
            RunUnit(call, ranges, rangeCount, unit, thread, threadScratch + thread * layout.total, layout,
                    options, runTask);
        };
        core::ParallelFor(units, call.threads, runUnit);
    }
    auto merge = [&call](int64_t step, int) { avx512::MergeRowBlock(call, step); };
    core::ParallelFor(call.mergeCount, call.threads, merge);
}

}  // namespace atbx::kernels::cpu::amx
