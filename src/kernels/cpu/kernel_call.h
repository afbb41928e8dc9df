// KernelCall: an AttentionPlan resolved once per call into what the vectorised CPU kernels read: typed K/V
// views, per-call constants, and the schedule of tasks, all in plain structs and raw pointers. The kernels
// are compiled once per instruction set; they call no inline function of the plan's headers, so that no
// inline function is compiled under two instruction sets with one name.
//
// Schedule: a work item's query rows are cut into row blocks of at most kMaxLanes (head, row) lanes (up to
// kMaxWideLanes where the keys do not stay in L2: RowBlockWidth), and its keys into chunks of whole kKvChunk
// keys when the plan has fewer than kUnchunkedRowBlocks row blocks of kMaxLanes, about that many tasks in
// all; each (row block, chunk) is a task. A row block with one chunk writes the output; otherwise each chunk
// writes a partial softmax state and a merge step combines them in key order. The cut depends on the plan
// alone, so results are bitwise identical for every thread count.
//
// Decode items of one sequence (the kv heads of a batch entry: same rows, same keys) of at most kMaxLanes / 2
// lanes each are grouped into one task while their lanes fit kMaxGroupLanes: the task then walks each cache
// block once over all its kv heads, in memory order, instead of one kv head's rows a few hundred bytes apart.
// How many items a task groups may depend on the thread count (enough tasks to keep every thread busy): a
// lane's arithmetic does not depend on its neighbours, so the results stay bitwise identical. Where a
// sequence's kv heads take several such tasks (more lanes than kMaxGroupLanes, or fewer items per task for
// more threads), the threads take them side by side (KernelCall::order): each key chunk of every group in
// turn, so that the parts of the same cache slots are read at once.
#ifndef ATBX_KERNELS_CPU_KERNEL_CALL_H
#define ATBX_KERNELS_CPU_KERNEL_CALL_H

#include <cstdint>
#include <optional>
#include <string>

#include "plan/attention_plan.h"
#include "plan/mask_segment.h"

namespace atbx::kernels::cpu {

inline constexpr int kMaxLanes = 64;  // (head, row) pairs of a row block
// The most lanes of a wide row block (RowBlockWidth::kWide): Q^T and acc^T of 256 lanes at head size 128
// take a quarter of a 1 MiB L2.
inline constexpr int kMaxWideLanes = 256;
// Lanes of the items one task groups (several only where each has at most kMaxLanes / 2): 4-token steps of a
// GQA 4 group over 8 kv heads, 8 x 16 lanes, read each cache slot whole in one task (halves of slots in two
// tasks took cpu:avx2 4-token steps 1.06x the time and cpu:avx512 bf16 ones 1.07-1.24x, on the Zen 4 host).
inline constexpr int kMaxGroupLanes = 2 * kMaxLanes;
// Items of this many lanes or more run in the column runner (attention_columns.inl); a path lowers it to
// kMinColumnItemLanes where its columns pay from there (KernelCall::columnItemLanes).
inline constexpr int kColumnItemLanes = kMaxLanes / 2 + 1;
inline constexpr int kMinColumnItemLanes = 16;
inline constexpr int kKvChunk = 512;             // keys per task (a multiple of every tile)
inline constexpr int kUnchunkedRowBlocks = 256;  // row blocks from which a plan's keys are not cut
inline constexpr int kTileKeys = 128;            // most keys converted and scored at once (int8 QKV's tile)
inline constexpr int kL1TileKeys = 32;           // keys converted and scored at once otherwise
inline constexpr int kChannelPad = 16;           // rows of the fp32 tiles are padded to a multiple of this

// One K or V cache: element (sequence, position j, head h, channel c) as plan::KvSource describes it.
struct KvView {
    const void* data = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    int elementBytes = 0;
    int headDim = 0;
    int64_t slotStride = 0, headStride = 0, blockStride = 0, sequenceStride = 0, tableStride = 0;
    int blockSize = 0;
    const int32_t* blockTable = nullptr;  // null: not paged
    int channelTile = 0;                  // 0: channels contiguous; else FRACTAL_NZ tiles
    int64_t channelTileStride = 0;
    const float* scale = nullptr;   // dequantisation, fp32 [kvHeads * headDim], or null
    const float* offset = nullptr;  // the same for the offsets (zeros when the call has none)
    // Converted values are multiplied by this (values only): 2^-64 where fp32 sums of weighted values near
    // the dtype's maximum could overflow (bf16, fp32, dequantised caches), 1 otherwise.
    float shrink = 1.0f;
};

struct Task {
    int32_t item = 0;
    int32_t itemCount =
        1;  // items [item, item + itemCount): same rows, keys and head count; lanes item-major
    int32_t rowBegin = 0, rowEnd = 0;
    int32_t kvBegin = 0, kvEnd = 0;
    int32_t partial = -1;  // partial-state slot, or -1: the task writes the output
};

// The tasks [firstTask, firstTask + chunks) of one row block, merged in this order.
struct MergeStep {
    int32_t firstTask = 0;
    int32_t chunks = 0;
};

// Offsets (in floats) of a thread's scratch arrays inside its block; L = lanes, T = kTileKeys.
struct ScratchLayout {
    int64_t query = 0;   // [L, dimPad] queries times their per-lane factor
    int64_t scores = 0;  // [L, T] logits, then weights
    int64_t keys = 0;    // [T, dimPad] fp32 keys of the tile
    int64_t values = 0;  // [T, dimVPad] fp32 values of the tile
    int64_t razor = 0;   // [T] razor offsets of the tile's keys
    int64_t acc = 0;     // [L, dimVPad]
    int64_t lane = 0;    // [kLaneFields, L]: the LaneField arrays
    // The column runner's transposed arrays (attention_columns.inl), P = L rounded up to kChannelPad, or the
    // sum of the task's items' lanes each rounded up so where its items run in columns; the query, acc and
    // lane columns hold each item's arrays in turn, the score and pair columns one item's:
    int64_t queryColumns = 0;  // [dimPad, P] Q^T, then [dimPad / 2, P] bf16 pairs of the raw query (bf16Dots)
    int64_t scoreColumns = 0;  // [T, P] S^T: logits, then weights
    int64_t accColumns = 0;    // [dimVPad, P] acc^T
    int64_t laneColumns = 0;   // [kLaneColumnFields, P] per-lane factors and softmax state
    // bf16PV, int8Pairs: [T1 / 2, dimVPad] value pairs, then [T1 / 2, P] weight pairs (T1 = the call's
    // tileKeys: kL1TileKeys, or kTileKeys for int8 QKV)
    int64_t pairColumns = 0;
    int64_t keyNorms = 0;       // skipsBoundedTiles: a KeyNormTag, then [tiles] (KeyNormTag says what)
    int64_t queryElements = 0;  // !queryDirect: a QueryTag, then [L, dimPad] (QueryTag says what)
    int64_t int16Query = 0;     // [L, dimPad] int16 queries in kQueryStep steps (int8Dots), or raw bf16
    // [L, T] 16-bit weights of the tile: int8PV, int16 in steps of kWeightStep; bf16PV, the row runner's bf16
    // weights of the sub-tile (kBf16Weights)
    int64_t roundedWeights = 0;
    // cachesKvTiles: a KvTileTag, then a KvTileState byte per tile, then [K, dimPad] keys and [K, dimVPad]
    // values (K: the longest item's keys rounded up to whole tiles)
    int64_t kvTiles = 0, kvTileKeys = 0, kvTileValues = 0;
    int64_t total = 0;
};

// The thread's cache of key norms for WeighsNothing (attention_kernel.inl): the largest key norm of each
// tileKeys-key tile (a task's tile) of one item's keys [begin, end) of kv head kvHead of sequence `sequence`,
// counted from `begin`, or kUnknownNorm. The row blocks of an item that run on one thread in turn then take
// each tile's norms once, not once per row block. PrepareCall empties every thread's cache, as keys change
// between calls.
struct KeyNormTag {
    int64_t sequence, kvHead, begin, end, tileKeys;
    bool operator==(const KeyNormTag&) const = default;
};
inline constexpr KeyNormTag kNoKeyNorms{-1, -1, -1, -1, -1};  // an empty cache
inline constexpr int64_t kKeyNormTagFloats = sizeof(KeyNormTag) / sizeof(float);
inline constexpr float kUnknownNorm = -1.0f;

// The thread's cache of the query elements of one task's lanes as QueryElements gives them (qScale applied
// and rounded, or an int8 QKV query), for calls whose kernels do not convert the query themselves: the tasks
// of one row block (its key chunks) that run on one thread take them once, not once per chunk (the
// out-of-line element at a time took PagedAttention decode with a qScale to 1.8x the time of the call
// without). PrepareCall empties every thread's cache, as queries change between calls.
struct QueryTag {
    int64_t item, itemCount, rowBegin, rowEnd;  // the task's
    bool operator==(const QueryTag&) const = default;
};
inline constexpr QueryTag kNoQuery{-1, -1, -1, -1};
inline constexpr int64_t kQueryTagFloats = sizeof(QueryTag) / sizeof(float);

// The thread's copy of one item's keys and values as the column runner converts them for its fp32 products
// (attention_columns.inl), tile by tile as its tasks first need them, counted from the item's kvBegin: the
// row blocks of an item that run on one thread in turn then convert each tile once, not once per row block
// (KernelCall::cachesKvTiles). A tile of values that is not all finite is marked and converted afresh by each
// task (which zeroes its non-finite rows in place). PrepareCall empties every thread's copy, as keys and
// values change between calls.
struct KvTileTag {
    int64_t sequence, kvHead, logicalKvHead, begin, end;
    bool operator==(const KvTileTag&) const = default;
};
inline constexpr KvTileTag kNoKvTiles{-1, -1, -1, -1, -1};
inline constexpr int64_t kKvTileTagFloats = sizeof(KvTileTag) / sizeof(float);
enum KvTileState : uint8_t { kKeysConverted = 1, kValuesConverted = 2, kValuesNotFinite = 4 };

// Per-lane arrays of ScratchLayout::lane: logit = ((dot + kDotBias) * kDotMul + razor * kRazorMul) *
// kPostMul, the dot taken with the query times kQueryMul; kZeroWeight is 1 where the lane has a weight of 0
// in the current tile, else 0; kBf16Weights is 1 where the lane's weights of the current tile are finite, so
// that the row runner's bf16 P.V may round them (bf16PV), else 0; kWeightStep is the first of kWeightGroups
// fields, the steps of the lane's int16 weights (int8PV) in each group of kL1TileKeys keys of the current
// tile, 0 where it keeps fp32 weights.
inline constexpr int kWeightGroups = kTileKeys / kL1TileKeys;
enum LaneField {
    kMax,
    kSum,
    kWeightMax,
    kDotBias,
    kDotMul,
    kRazorMul,
    kPostMul,
    kZeroWeight,
    kQueryMul,
    kQueryStep,
    kBf16Weights,
    kWeightStep,
    kLaneFields = kWeightStep + kWeightGroups
};
inline constexpr int kLaneColumnFields = 12;  // the column runner's per-lane arrays (attention_columns.inl)

// The dequantisation of an int8 cache (DEQUANT_FUSION), kept out of the inner loops: scale s and offset o per
// (kv head, channel), fp32 [kvHeads * headDim], or null. Keys: the query is multiplied by s and each dot gets
// q.(s o) added (kDotBias); values are accumulated as they are stored and become (acc + o l) s at the end of
// a task, l being the lane's softmax sum. So the cache is converted with no arithmetic per element.
struct FoldedDequant {
    const float* scale = nullptr;
    const float* offset = nullptr;
};

struct KernelCall {
    const plan::AttentionPlan* plan = nullptr;  // for the out-of-line helpers below
    const plan::WorkItem* items = nullptr;
    int headDim = 0, headDimV = 0;
    int dimPad = 0, dimVPad = 0;  // multiples of kChannelPad

    const void* query = nullptr;
    aclDataType queryType = ACL_DT_UNDEFINED;
    bool queryDirect = false;  // a floating query without qScale: kernels convert it themselves
    int64_t queryRowStride = 0, queryHeadStride = 0;
    void* output = nullptr;
    aclDataType outputType = ACL_DT_UNDEFINED;
    int64_t outputRowStride = 0, outputHeadStride = 0;

    KvView key, value;
    FoldedDequant keyDequant, valueDequant;
    float outputGrow = 1.0f;  // outputs are acc / l times this: the inverse of the values' shrink
    plan::MaskKind mask = plan::MaskKind::kNone;
    plan::CausalMask causal;  // the rule where mask is kCausal
    // A tensor mask the kernels add row by row in vectors (fp16, bf16 or fp32; no flag scaling): element
    // (batch, head, row, key) at batch * batchStride + head * headStride + row * rowStride + key (ND), or +
    // (key / columnTile) * columnTileStride + key % columnTile (FRACTAL_NZ). maskRows holds an ND mask, which
    // every runner reads so; maskTiles an NZ one, which the row runner reads tile by tile. maskRows also
    // holds a compressed ALiBi mask's term table (alibi_term_table.h) and the ND [H, rows, 128] ALiBi tile
    // (shiftedTileKeys, which the row and column runners read). data is null for every other mask, whose
    // terms AddMaskTerms adds.
    struct MaskRows {
        const void* data = nullptr;
        aclDataType dtype = ACL_DT_UNDEFINED;
        int64_t batchStride = 0, headStride = 0, rowStride = 0;
        int columnTile = 0;
        int64_t columnTileStride = 0;
        // Rows are the queries' absolute positions (item.prefix + i), not the mask's rows (item.maskRow0 +
        // i): the term table's and the ALiBi tile's.
        bool rowsAtPositions = false;
        // The ALiBi tile (plan::AlibiTileMask), 128 here, else 0: key j reads column j - t of the row t rows
        // before the query's, t = j rounded down to a multiple of shiftedTileKeys; keys of tiles that start
        // after the query's position are hidden (-inf).
        int shiftedTileKeys = 0;

        // The element where the row of query row i of `item`, head h, starts.
        int64_t RowStart(const plan::WorkItem& item, int64_t h, int64_t i) const {
            const int64_t row = (rowsAtPositions ? item.prefix : item.maskRow0) + i;
            return item.maskBatch * batchStride + h * headStride + row * rowStride;
        }
    };
    MaskRows maskRows, maskTiles;
    bool clamp = false;
    float clampMin = 0, clampMax = 0;
    // The most two clamped logits can differ by (clampMax - clampMin, or 0), +inf without clamp: with the
    // norm bound, the largest a hidden key's logit can exceed a row's own key's before the mask term.
    float logitSpan = __builtin_inff();
    // The mask hides keys above each row's diagonal (and, causal, behind its window) with terms at most
    // hiddenTermGap above the term of the row's own key: a causal mask's one finite hidden value, or a tensor
    // mask's TensorMask::diagonalGap. In a call without razor offsets whose keys are float, or int8 QKV
    // without a window (SkipsBoundedTiles), tiles so hidden from every row of a task are skipped where the
    // norm bound proves their weights exactly 0 (docs/decisions.md, numeric semantics).
    bool skipsBoundedTiles = false;
    float hiddenTermGap = __builtin_inff();
    const float* razorOffset = nullptr;
    int64_t razorBlockStride = 0;
    plan::QuantPolicy::Mode quant = plan::QuantPolicy::Mode::kNone;
    const float* kDescale = nullptr;  // int8 QKV: [headNum] each
    const float* vDescale = nullptr;
    const float* pScale = nullptr;
    int tileKeys = kTileKeys;
    bool cachesKvTiles = false;  // the threads keep converted tiles of an item's keys and values (KvTileTag)

    const Task* tasks = nullptr;
    int64_t taskCount = 0;
    const int32_t* order = nullptr;     // [taskCount]: the tasks in the order the threads take them
    const MergeStep* merges = nullptr;  // row blocks split into several chunks
    int64_t mergeCount = 0;
    float* partials = nullptr;  // partial states, partialFloats each: m[lanes], l[lanes], acc[lanes, dimVPad]
    int64_t partialFloats = 0;
    int lanes = 0;             // most lanes of any task
    float* scratch = nullptr;  // per thread, layout.total floats each
    ScratchLayout layout;
    int threads = 1;
    bool longTasks = false;  // LongTasks(plan)
    // The column runner may take Q.K by bf16 dot products (AVX512-BF16): the CPU has them, the query is bf16
    // and read directly, the keys bf16 rows of contiguous channels (an even number) without dequantisation.
    bool bf16Dots = false;
    // The column runner, and the row runner for bf16 values read in place, may take P.V by bf16 dot products
    // (AVX512-BF16) in tiles whose values are finite and at most 2 in magnitude, the weights rounded to bf16
    // (docs/decisions.md): the CPU has them, the values are bf16 rows of contiguous channels (a whole number
    // of vectors) without dequantisation, and the outputs fp16 or bf16.
    bool bf16PV = false;
    // The largest |value| whose weights cpu:amx may round to bf16 (Bf16WeightReach in kernel_call.cpp): 0 for
    // fp32 outputs.
    float bf16WeightReach = 0.0f;
    // The row runner may take Q.K by bf16 dot products too where bf16Dots holds and the keys are whole
    // 512-bit loads (a multiple of 32 channels, no padding).
    bool bf16RowDots = false;
    // The row runner may take Q.K of int8 keys by int16 dot products: the keys are int8 rows of contiguous
    // channels, a multiple of 32 and below 4096 (the int32 sums stay exact), without unfolded scales (read in
    // place). cpu:avx2 runs them on VPMADDWD; cpu:avx512 clears the flag where the CPU lacks AVX512-VNNI.
    bool int8Dots = false;
    // The row runner may take P.V of int8 values by int16 dot products, each lane's weights of a group of
    // kL1TileKeys keys rounded to int16 steps of the group's largest / 32767 (docs/decisions.md): the values
    // are int8 rows of contiguous channels, a multiple of 32, without unfolded scales (read in place), and
    // nothing quantises the weights otherwise (QKV quant). cpu:avx512 only (Simd::kInt16Values), which clears
    // the flag where the CPU lacks AVX512-VNNI.
    bool int8PV = false;
    // The column runner may take int8 QKV items by int16 pair products, both Q.K and P.V (its weights as
    // their integer steps): int8Dots' keys and int8 values of contiguous channels without a scale. cpu:avx2
    // (VPMADDWD) and cpu:avx512 (Simd::kInt16Pairs), which clears the flag where the CPU lacks AVX512-VNNI.
    bool int8Pairs = false;
    // Items of this many lanes or more run in the column runner: kColumnItemLanes, or kMinColumnItemLanes
    // where the path sets it: cpu:avx512 where bf16Dots holds (its dot products pay for the columns from one
    // vector of lanes) or the caches are fp16 (see columnLaneMultiple), and cpu:avx2 (its row runner's blocks
    // of 4 lanes x 2 keys convert each key row once per 4 lanes; fp32 columns convert it once).
    int columnItemLanes = kColumnItemLanes;
    // Items of fewer than kColumnItemLanes lanes run in columns only where their lanes are a multiple of
    // this: cpu:avx512 fp16 caches take 16 and 32 lanes (4-token steps over GQA groups of 4: 0.93-0.98x the
    // time of rows) but not 28, whose padding to 32 lanes cost more than the columns save (1.02-1.09x).
    int columnLaneMultiple = 1;
};

// Why the vectorised kernels cannot run the plan (plan features only), or nothing.
std::optional<std::string> CallRefusal(const plan::AttentionPlan& plan);

// How many lanes the row blocks of a long item may take. Every row block of an item reads all of its keys:
// where those, converted to fp32, take twice L2 or more, each row block reads them from L3 or memory again
// (and converts them again), so kWide gives such items' row blocks as many lanes as keep their Q^T and acc^T
// within a quarter of L2, up to kMaxWideLanes, and each key is read once per that many lanes (a 512-token
// prefill after a 4k prefix, GQA 32/8, head 128, ran 0.83-0.97x the time with 256 lanes as with 64 on the
// Zen 4 host, fp16 and bf16; an 8k causal one 0.74-0.76x: BENCHMARKS.md). A lane's arithmetic does not depend
// on its neighbours, so the width changes no lane's bits where the same runner takes it. cpu:amx keeps
// kNarrow: its tile tasks take at most 128 lanes and pack each key block once per thread and chunk
// (attention_amx.cpp).
enum class RowBlockWidth { kNarrow, kWide };

// One core's L2 (sysconf), or 512 KiB where Linux does not say: what the schedule sizes its copies of
// converted tiles (KvTileTag) and its wide row blocks by.
int64_t Level2CacheBytes();

// Bytes of workspace a call with this plan needs on `threads` threads (0: every hardware thread).
uint64_t CallWorkspaceBytes(const plan::AttentionPlan& plan, int threads, RowBlockWidth width);

// Whether the schedule's tasks may hold more than kKvChunk keys (row blocks' keys whole, or cut into chunks
// of several kKvChunk).
bool LongTasks(const plan::AttentionPlan& plan);

// Resolves the plan and lays the schedule out in `workspace` (CallWorkspaceBytes(plan, threads, width)
// bytes).
KernelCall PrepareCall(const plan::AttentionPlan& plan, int threads, RowBlockWidth width, void* workspace);

// Out-of-line helpers the kernels call per task or per tile.
double RowScale(const KernelCall& call, const plan::WorkItem& item, int64_t row);
// out[0, n) = the query elements from `offset` on, qScale applied and rounded to the query dtype where the
// call has it (plan::AttentionPlan::qPreScale), for queries the kernels do not convert themselves.
void QueryElements(const KernelCall& call, int64_t offset, int64_t n, float* out);
void StoreOutput(const KernelCall& call, int64_t offset, float value);
float RoundToHalf(float value);  // fp16 rounding of int8 P quantisation
void AddMaskTerms(const KernelCall& call, const plan::WorkItem& item, int64_t head, int64_t row, int64_t j0,
                  int32_t n, float* scores);
plan::TileClass ClassifyTile(const KernelCall& call, const plan::WorkItem& item, int64_t rowBegin,
                             int64_t rowEnd, int64_t j0, int64_t j1);

}  // namespace atbx::kernels::cpu

#endif  // ATBX_KERNELS_CPU_KERNEL_CALL_H
