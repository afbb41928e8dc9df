// The CPU attention kernel, written once over the operations of `Simd` and compiled per instruction set: each
// translation unit defines ATBX_KERNEL_NAMESPACE, includes its Simd (simd/*.inl) and the softmax core inside
// that namespace, then this file. No include guard for that reason.
//
// A task (kernel_call.h) holds the softmax state of its lanes (head, query row) and walks its keys in tiles
// of kTileKeys: each K and V tile is converted to fp32 once (any dtype, layout and dequantisation) and read
// by every lane, so the whole GQA group and every query token of a speculative step share one read of the
// cache. Scores, exp and accumulation are fp32. The tasks read their rows through kv_rows.inl and compute in
// the register blocks of register_blocks.inl; tasks of many lanes run in columns (attention_columns.inl).

namespace ATBX_KERNEL_NAMESPACE {
namespace {

using V = Simd::V;
constexpr int kW = Simd::kWidth;
constexpr float kNegInf = -__builtin_inff();
// Simd, named through a template parameter: the bf16 dot products and the int16 P.V exist on the AVX-512 path
// only, the int16 Q.K on the AVX-512 and AVX2 paths, and a name that depends on the parameter is looked up
// only where the `if constexpr (Simd::kBf16Dots)` (or kInt16Dots, kInt16Values) branch is kept.
template <bool>
struct DependentSimd {
    using Type = Simd;
};
// The inner loops are inlined into their callers, so that no call boundary (and its vzeroupper) sits between
// a converted row and the arithmetic that reads it.
#define ATBX_INLINE __attribute__((always_inline)) inline
// Keys of a sub-tile: K and V are read kv head by kv head for the keys of a sub-tile, between 8 and 32 keys
// (a multiple of 4: the dot products' blocks, so that which keys take the one-key tail does not depend on the
// grouping), so that the rows of the task's kv heads make about kSubTileBytes of each cache: larger sub-tiles
// load and store the accumulators less often; smaller ones keep more kv heads in memory order (a slot holds
// them side by side). Against 8 keys always, on the AMD EPYC measured: warm decode rows 0.72-0.93x the time,
// fp16 4-token steps 0.82-1.0x, cold 1-token rows within the host's noise (geometric means 0.91-1.01x over
// three sets of rows); 32 KiB did better than 64 and 128 KiB. cpu:avx2 (register blocks of 2 lanes) keeps 8
// keys: it showed no gain beyond the host's noise, where the same code measured 0.87-1.0x of itself.
constexpr int32_t kMinSubKeys = 8;
constexpr int32_t kMaxSubKeys = kW == 16 ? 32 : kMinSubKeys;
constexpr int64_t kSubTileBytes = 32 * 1024;

inline int32_t SubTileKeys(const KvView& key, int32_t itemCount) {
    const int64_t perKey = int64_t{itemCount} * key.headDim * key.elementBytes;
    const int64_t keys = kSubTileBytes / perKey / 4 * 4;
    return static_cast<int32_t>(keys < kMinSubKeys ? kMinSubKeys : (keys > kMaxSubKeys ? kMaxSubKeys : keys));
}

#include "kernels/cpu/kv_rows.inl"
#include "kernels/cpu/register_blocks.inl"

// Items of at most this many lanes read cache rows in place; more register blocks (prefill row blocks of the
// row runner, 64 lanes) would convert each row once per block, where staging converts it once: fp16 prefills
// of 512 tokens ran 1.06-1.15x slower in place. On AVX-512 a block's 4 conversions per 16 FMAs cost little,
// while staging a tile's rows waits on its stores (a third of a cold fp16 4-token step's samples), so items
// of up to 32 lanes (4-token steps of GQA 4-8) read in place there: 0.81-0.95x the time (BENCHMARKS.md). (int8
// keys on int16 dots are read in place by items of any width: TaskRunner's QuantiseQueries.)
constexpr int kDirectLanes = kW == 16 ? 8 * kBlockLanes : 2 * kBlockLanes;
// Items of at least this many lanes whose K and V rows are read in place take tiles of kTileKeys keys instead
// of kL1TileKeys: each lane's softmax step (a pass for the maximum, one for the exp, their two horizontal
// reductions, the acc rescale) is per tile, and a tile's row addresses and mask checks too, so 4 to 32 lanes
// (GQA 4-8 decode, 4-token steps of GQA 4-7) spend a quarter as often on them: on the Zen 4 host of
// BENCHMARKS.md fp16 4-token steps 0.90-0.96x the time, GQA 28/4 one-token steps 0.95-1.01x, GQA 32/8 ones
// 0.94-1.00x (with kRequestDistance). int8 P.V on int16 weights rounds each group of kL1TileKeys keys to its
// own step (RoundedWeights), so it takes such tiles where its sub-tiles cannot straddle two groups: int8 GQA
// rows 0.92-0.99x the time.
constexpr int kWideTileLanes = 4;
// How many keys ahead of the tile's first one its requests start (TileRows): a whole tile for tiles of
// kL1TileKeys, half of one for those of kTileKeys. GQA 32/8 one-token steps (4 lanes) took 1.00-1.09x the
// time in 64-key tiles asking a tile ahead, about 1.0x in 128-key tiles asking 32 keys ahead, 0.94-1.00x
// asking 64 ahead; GQA 28/4 ones (7 lanes) 0.95-1.00x asking 64 ahead rather than a tile.
constexpr int32_t kRequestDistance = 64;
// How many keys ahead of a tile the lanes' rows of an ND tensor mask are requested (MaskRow): a mask with a
// head dim (ALiBi [H, S, S]) gives each lane a row of its own, more streams than the hardware prefetcher
// follows.
constexpr int32_t kMaskRequestDistance = 128;
// Items of at least this many lanes take the P.V of int8 values by int16 dot products (KernelCall::int8PV):
// GQA 4 and 7 decode 0.91-0.93x the time of the fp32 FMAs; one lane (MHA) 1.02-1.05x and two (GQA 2)
// 1.07x, where each lane's chain of dot products waits on the one before (BENCHMARKS.md).
constexpr int kMinInt16ValueLanes = 3;
// Items of at least this many lanes read in place take the P.V of bf16 values by bf16 dot products
// (KernelCall::bf16PV, Bf16Accumulate) in tiles whose values are all finite and at most 2 in magnitude, with
// the weights rounded to bf16, where the item has at least kMinBf16ValueKeys keys: the call's longest context
// is then long enough that the precision standard's bound holds P's rounding at half of it or less
// (docs/decisions.md, "P's bf16 rounding, worst case"; as the column runner's). One or two lanes keep the fp32
// product, for the reason kMinInt16ValueLanes gives.
constexpr int kMinBf16ValueLanes = 3;
constexpr int64_t kMinBf16ValueKeys = 256;
// int16 weights (RoundedWeights) of a group whose largest is below this, relative to the lane's largest weight
// so far (1, which its sum holds), are zeros: they add at most 2^-95 of the sum (32 keys), where the group's step
// would be subnormal and its inverse overflow.
constexpr float kNegligibleWeight = 0x1p-100f;

// n values to out (of dtype Out, converted by store) in whole vectors; the last partial vector goes through a
// copy, so nothing past the row is written.
template <class Out, class S, class Store>
void StoreValues(const float* values, int n, Out* out, Store store) {
    int c = 0;
    for (; c + kW <= n; c += kW)
        store(out + c, S::Load(values + c));
    if (c == n) return;
    Out tail[kW];
    store(tail, S::Load(values + c));
    for (int i = 0; c + i < n; ++i)
        out[c + i] = tail[i];
}

// Stores one lane's output acc / sum (acc padded to dimVPad); a NaN anywhere in the row makes the whole row NaN
// (docs/decisions.md). Values were scaled by 1 / outputGrow while they were accumulated (kernel_call.h).
template <class S = Simd>
void StoreRow(const KernelCall& call, int64_t base, float* acc, float sum) {
    bool nan = sum != sum;
    int checked = 0;  // a vector at a time: element by element, small decode steps spent 14 % of their time here
    for (; checked + kW <= call.headDimV && !nan; checked += kW)
        nan = S::AnyNaN(S::Load(acc + checked));
    for (; checked < call.headDimV && !nan; ++checked)
        nan = acc[checked] != acc[checked];
    const float grow = call.outputGrow;
    const typename S::V divisor = S::Set(sum), factor = S::Set(grow), nanValue = S::Set(__builtin_nanf(""));
    for (int c = 0; c < call.dimVPad; c += kW)
        S::Store(acc + c, nan ? nanValue : S::Mul(S::Div(S::Load(acc + c), divisor), factor));
    if constexpr (S::kStoresHalf) {
        if (call.outputType == ACL_FLOAT16) {
            return StoreValues<uint16_t, S>(acc, call.headDimV, static_cast<uint16_t*>(call.output) + base,
                                            [](uint16_t* p, typename S::V v) { S::StoreHalf(p, v); });
        }
        if (call.outputType == ACL_BF16) {
            return StoreValues<uint16_t, S>(acc, call.headDimV, static_cast<uint16_t*>(call.output) + base,
                                            [](uint16_t* p, typename S::V v) { S::StoreBf16(p, v); });
        }
        if (call.outputType == ACL_FLOAT) {
            return StoreValues<float, S>(acc, call.headDimV, static_cast<float*>(call.output) + base,
                                         [](float* p, typename S::V v) { S::Store(p, v); });
        }
    }
    for (int c = 0; c < call.headDimV; ++c)
        StoreOutput(call, base + c, acc[c]);
}

// Addresses of kv head 0's rows of a tile's keys (RowAddresses), K and V, and of the keys to ask for while
// the tile is computed: as many as a tile holds, from kRequestDistance keys past the tile's first key (or
// from its end, in tiles shorter than that), continued into the thread's next task.
struct TileRows {
    const char* key[kTileKeys];
    const char* value[kTileKeys];
    const char* nextKey[kTileKeys];
    const char* nextValue[kTileKeys];
    int32_t n = 0;     // keys of the tile
    int32_t next = 0;  // keys to ask for (0: none)
};

template <bool kMasked>
class TaskRunner {
  public:
    // rowTiles: the task runs here, in tiles of its own size (tileKeys_); false under the column runner,
    // whose tiles are call.tileKeys keys.
    TaskRunner(const KernelCall& call, const Task& task, float* scratch, core::NextTask* next, bool rowTiles)
        : call_(call),
          task_(task),
          items_(call.items + task.item),
          rows_(task.rowEnd - task.rowBegin),
          itemLanes_(items_[0].headCount * rows_),
          lanes_(itemLanes_ * task.itemCount),
          query_(scratch + call.layout.query),
          scores_(scratch + call.layout.scores),
          keys_(scratch + call.layout.keys),
          values_(scratch + call.layout.values),
          razor_(scratch + call.layout.razor),
          acc_(scratch + call.layout.acc),
          lane_(scratch + call.layout.lane),
          keyNormCache_(scratch + call.layout.keyNorms),
          queryCache_(scratch + call.layout.queryElements),
          directKeys_((itemLanes_ <= kDirectLanes || (Simd::kInt16Dots && call.int8Dots)) &&
                      DirectRows(call.key, call.headDim, call.dimPad, false)),
          directValues_(itemLanes_ <= kDirectLanes && DirectRows(call.value, call.headDimV, call.dimVPad, true)),
          int16Weights_(Simd::kInt16Values && call.int8PV && directValues_ && itemLanes_ >= kMinInt16ValueLanes
                            ? reinterpret_cast<int16_t*>(scratch + call.layout.roundedWeights)
                            : nullptr),
          bf16Weights_(Simd::kBf16Dots && call.bf16PV && directValues_ && itemLanes_ >= kMinBf16ValueLanes &&
                               call.headDimV % 32 == 0 && items_[0].kvEnd - items_[0].kvBegin >= kMinBf16ValueKeys
                           ? reinterpret_cast<uint16_t*>(scratch + call.layout.roundedWeights)
                           : nullptr),
          subKeys_(int16Weights_ != nullptr || bf16Weights_ != nullptr ? kMaxSubKeys
                                                                       : SubTileKeys(call.key, task.itemCount)),
          int16Rows_(reinterpret_cast<int16_t*>(scratch + call.layout.int16Query)),
          tileKeys_(rowTiles && call.tileKeys == kL1TileKeys && itemLanes_ >= kWideTileLanes && directKeys_ &&
                            directValues_ && (int16Weights_ == nullptr || kL1TileKeys % subKeys_ == 0)
                        ? kTileKeys
                        : call.tileKeys),
          next_(next) {}

    void Run() {
        if (items_[0].zeroOutput) return StoreZeros();
        Init();
        for (int32_t j0 = task_.kvBegin; j0 < task_.kvEnd; j0 += tileKeys_) {
            const int32_t n = task_.kvEnd - j0 < tileKeys_ ? task_.kvEnd - j0 : tileKeys_;
            Tile(j0, n);
        }
        UnfoldValueDequant();
        if (task_.partial < 0) return StoreOutput();
        StorePartial();
    }

  protected:
    float* Field(LaneField field) const { return lane_ + int64_t{field} * call_.lanes; }
    const plan::WorkItem& ItemOf(int lane) const { return items_[lane / itemLanes_]; }
    int64_t HeadOf(int lane) const { return ItemOf(lane).headBegin + lane % itemLanes_ / rows_; }
    int64_t RowOf(int lane) const { return task_.rowBegin + lane % rows_; }
    int64_t OutputOffset(int lane) const {
        return ItemOf(lane).outOffset + RowOf(lane) * call_.outputRowStride + HeadOf(lane) * call_.outputHeadStride;
    }

    void Init() {
        if (!call_.queryDirect) OpenQueryElements();
        for (int lane = 0; lane < lanes_; ++lane) {
            Field(kMax)[lane] = kNegInf;
            Field(kSum)[lane] = 0.0f;
            Field(kWeightMax)[lane] = 0.0f;
            Field(kQueryMul)[lane] = InitScales(lane);
            LoadQuery(lane, Field(kQueryMul)[lane]);
            FoldKeyDequant(lane);
        }
        for (int64_t i = 0; i < int64_t{lanes_} * call_.dimVPad; ++i)
            acc_[i] = 0.0f;
        // Padded channels of the tiles stay zero: the conversions write channels [0, headDim) only.
        for (int t = 0; t < kTileKeys; ++t) {
            for (int c = call_.headDim; c < call_.dimPad; ++c)
                keys_[t * call_.dimPad + c] = 0.0f;
            for (int c = call_.headDimV; c < call_.dimVPad; ++c)
                values_[t * call_.dimVPad + c] = 0.0f;
        }
        if (kMasked && call_.skipsBoundedTiles && task_.itemCount == 1) PrepareSkipping();
        // One lane per kv head (MHA) is bound by memory, where the int16 dots gained nothing: 1.03-1.10x the
        // time of the fp32 dots on the Zen 4 host of BENCHMARKS.md. Items wider than kDirectLanes read int8 keys
        // in place too: widening a row to int16 again for each register block costs less than staging it in
        // fp32 (GQA 32/2 decode 0.85-0.87x the time).
        if constexpr (Simd::kInt16Dots) {
            if (call_.int8Dots && directKeys_ && itemLanes_ > 1) QuantiseQueries();
        }
        if constexpr (Simd::kBf16Dots) {
            if (call_.bf16RowDots && directKeys_ && itemLanes_ > 1) CopyBf16Queries();
        }
    }

    // bf16Query_: each lane's raw bf16 query, for Q.K by bf16 dot products with bf16 keys read in place (the
    // dots then times the lane's kQueryMul).
    void CopyBf16Queries() {
        auto* rows = reinterpret_cast<uint16_t*>(int16Rows_);
        const auto* query = static_cast<const uint16_t*>(call_.query);
        for (int lane = 0; lane < lanes_; ++lane)
            __builtin_memcpy(rows + int64_t{lane} * call_.dimPad, query + QueryOffset(lane), call_.headDim * 2);
        bf16Query_ = rows;
    }

    // int16Query_: each lane's query as int16 multiples of its kQueryStep (its largest |q| / 32767), for Q.K by
    // int16 dot products with int8 keys; stays null (fp32 dots) where a query element is not finite.
    void QuantiseQueries() {
        using S = typename DependentSimd<kMasked>::Type;
        // int8 QKV queries are integers of at most 128 in magnitude: as they are, so the dots stay exact.
        const bool integers = call_.quant != plan::QuantPolicy::Mode::kNone;
        for (int lane = 0; lane < lanes_; ++lane) {
            const float* q = query_ + int64_t{lane} * call_.dimPad;
            V top = Simd::Zero();
            for (int c = 0; c < call_.headDim; c += kW) {
                const V x = Simd::Load(q + c);
                if (Simd::AnyNaN(x)) return;
                top = Simd::Max(top, Simd::Max(x, Simd::Sub(Simd::Zero(), x)));
            }
            const float largest = Simd::ReduceMax(top);
            if (!(largest <= 3e38f)) return;
            Field(kQueryStep)[lane] = integers ? 1.0f : largest / 32767.0f;
            const float factor = integers ? 1.0f : (largest > 0.0f ? 32767.0f / largest : 0.0f);
            S::ToInt16(q, factor, call_.headDim, int16Rows_ + int64_t{lane} * call_.dimPad);
        }
        int16Query_ = int16Rows_;
    }

    // WeighsNothing's bound: the lanes' largest |q| times their scale (queryReach_) and the largest norm of
    // the rows' own keys, each row's last visible one (ownKeyNorm_); left at -1 (no tile skipped) when one is
    // not finite or an own key lies outside the item's keys.
    void PrepareSkipping() {
        const plan::WorkItem& item = items_[0];
        const int64_t first = item.prefix + task_.rowBegin, last = item.prefix + task_.rowEnd - 1;
        if (first < item.kvBegin || last >= item.kvEnd) return;
        float reach = 0.0f;
        for (int lane = 0; lane < lanes_; ++lane) {
            const float* q = query_ + int64_t{lane} * call_.dimPad;
            const float scale = Field(kPostMul)[lane] * Field(kDotMul)[lane];
            const float norm = __builtin_sqrtf(Dot(q, q, call_.dimPad)) * (scale < 0.0f ? -scale : scale);
            if (!(norm <= 3e38f)) return;
            reach = norm > reach ? norm : reach;
        }
        float own = 0.0f;
        for (int64_t j = first; j <= last; j += kTileKeys) {
            const float norm = KeyNorm(j, static_cast<int32_t>(last + 1 - j < kTileKeys ? last + 1 - j : kTileKeys));
            if (!(norm <= 3e38f)) return;
            own = norm > own ? norm : own;
        }
        queryReach_ = reach;
        ownKeyNorm_ = own;
        OpenKeyNorms();
    }

    // tileNorms_: the thread's cache of the item's tile norms (KeyNormTag), emptied when it held another's.
    void OpenKeyNorms() {
        const plan::WorkItem& item = items_[0];
        const KeyNormTag tag{item.kvSequence, item.kvHead, item.kvBegin, item.kvEnd, tileKeys_};
        KeyNormTag held;
        __builtin_memcpy(&held, keyNormCache_, sizeof(held));
        tileNorms_ = keyNormCache_ + kKeyNormTagFloats;
        if (held == tag) return;
        __builtin_memcpy(keyNormCache_, &tag, sizeof(tag));
        const int64_t tiles = (item.kvEnd - item.kvBegin + tileKeys_ - 1) / tileKeys_;
        for (int64_t t = 0; t < tiles; ++t)
            tileNorms_[t] = kUnknownNorm;
    }

    // KeyNorm of the tile at j0 (tileKeys_ keys from a multiple of them past the item's kvBegin, or to its
    // end), through the thread's cache.
    float TileKeyNorm(int32_t j0, int32_t n) {
        float& norm = tileNorms_[(j0 - items_[0].kvBegin) / tileKeys_];
        if (norm == kUnknownNorm) norm = KeyNorm(j0, n);
        return norm;
    }

    // The largest norm of the item's keys [j0, j0 + n), n <= kTileKeys, converted into keys_ (NaN or inf when
    // one of them is not finite).
    float KeyNorm(int64_t j0, int32_t n) {
        const char* rows[kTileKeys];
        RowAddresses(call_.key, items_[0], j0, n, rows);
        ConvertRows(call_.key, items_[0], rows, n, keys_, call_.dimPad);
        float largest = 0.0f;
        for (int32_t t = 0; t < n; ++t) {
            const float* k = keys_ + int64_t{t} * call_.dimPad;
            const float norm = __builtin_sqrtf(Dot(k, k, call_.dimPad));
            if (!(norm <= 3e38f)) return norm;
            largest = norm > largest ? norm : largest;
        }
        return largest;
    }

    // True when keys [j0, j0 + n) lie above every row's diagonal (or behind a causal window) and provably weigh
    // exactly 0: each row sees its own key, whose logit is at least -queryReach_ |k_own|, while these keys'
    // logits are at most queryReach_ |k|, and their terms at most hiddenTermGap above the own key's
    // (Cauchy-Schwarz; 2^-10 of slack for the fp32 norms).
    // Clamp (applied before the mask) is monotone and moves no two scores further apart, so the same bound
    // holds under it, and so does clampMax - clampMin (KernelCall::logitSpan), the lesser of the two taken.
    // When the difference is below -104, e^difference is 0 in fp32 whatever the order of the online softmax
    // and merges, so computing the keys would only add zeros (as cpu:amx, docs/decisions.md). The norms must
    // be finite either way: a key or query that is not could make a hidden logit NaN, which the mask keeps.
    bool WeighsNothing(int32_t j0, int32_t n) {
        if (ownKeyNorm_ < 0.0f) return false;
        const plan::WorkItem& item = items_[0];
        const int64_t firstPos = item.prefix + task_.rowBegin, lastPos = item.prefix + task_.rowEnd - 1;
        const int64_t window = call_.causal.window;
        const bool above = j0 > lastPos;
        const bool behind = window > 0 && j0 + n - 1 <= firstPos - window;
        if (!above && !behind) return false;
        const float reach = queryReach_ * (TileKeyNorm(j0, n) + ownKeyNorm_) * (1.0f + 0x1p-10f);
        if (!(reach < 3e38f)) return false;  // a key or query not finite
        const float span = reach < call_.logitSpan ? reach : call_.logitSpan;
        return span + call_.hiddenTermGap < -104.0f;
    }

    // logit = (dot * dotMul + razor * razorMul) * postMul. The row scale s multiplies the query first when
    // |s| <= 1 (so no product of the dot can overflow where the scaled score does not), else the dot; int8
    // QKV scores are exact integer dots times kDescale.
    float InitScales(int lane) {
        const auto scale = static_cast<float>(RowScale(call_, ItemOf(lane), RowOf(lane)));
        float queryMul = 1.0f;
        if (call_.quant != plan::QuantPolicy::Mode::kNone) {
            Field(kDotMul)[lane] = call_.kDescale[HeadOf(lane)];
            Field(kRazorMul)[lane] = 1.0f;
            Field(kPostMul)[lane] = scale;
        } else if (scale <= 1.0f && scale >= -1.0f) {
            queryMul = scale;
            Field(kDotMul)[lane] = 1.0f;
            Field(kRazorMul)[lane] = scale;
            Field(kPostMul)[lane] = 1.0f;
        } else {
            Field(kDotMul)[lane] = 1.0f;
            Field(kRazorMul)[lane] = 1.0f;
            Field(kPostMul)[lane] = scale;
        }
        return queryMul;
    }

    // q *= s and kDotBias = q . o for the lane's kv head (FoldedDequant), so that q . ((k + o) s) is the dot of
    // the raw key plus the bias.
    void FoldKeyDequant(int lane) {
        Field(kDotBias)[lane] = 0.0f;
        if (call_.keyDequant.scale == nullptr) return;
        const int64_t at = int64_t{ItemOf(lane).logicalKvHead} * call_.headDim;
        const float* scale = call_.keyDequant.scale + at;
        const float* offset = call_.keyDequant.offset + at;
        float* q = query_ + int64_t{lane} * call_.dimPad;
        // Two vector sums: one sum in channel order chained each channel's product on the one before (a
        // decode task's setup took 4-5 % of an int8 step so).
        V sums[2] = {Simd::Zero(), Simd::Zero()};
        int c = 0;
        for (; c + kW <= call_.headDim; c += kW) {
            const V x = Simd::Mul(Simd::Load(q + c), Simd::Load(scale + c));
            Simd::Store(q + c, x);
            sums[c / kW % 2] = Simd::MulAdd(x, Simd::Load(offset + c), sums[c / kW % 2]);
        }
        float bias = Simd::ReduceAdd(Simd::Add(sums[0], sums[1]));
        for (; c < call_.headDim; ++c) {
            q[c] *= scale[c];
            bias += q[c] * offset[c];
        }
        Field(kDotBias)[lane] = bias;
    }

    // acc = (acc + o l) s / outputGrow for every lane (FoldedDequant): the raw sums in value units.
    void UnfoldValueDequant() {
        if (call_.valueDequant.scale == nullptr) return;
        const float shrink = 1.0f / call_.outputGrow;
        for (int lane = 0; lane < lanes_; ++lane) {
            const int64_t at = int64_t{ItemOf(lane).logicalKvHead} * call_.headDimV;
            const float sum = Field(kSum)[lane];
            float* acc = acc_ + int64_t{lane} * call_.dimVPad;
            for (int c = 0; c < call_.headDimV; ++c)
                acc[c] = (acc[c] + call_.valueDequant.offset[at + c] * sum) * (call_.valueDequant.scale[at + c] * shrink);
        }
    }

    int64_t QueryOffset(int lane) const {
        return ItemOf(lane).qOffset + RowOf(lane) * call_.queryRowStride + HeadOf(lane) * call_.queryHeadStride;
    }

    void LoadQuery(int lane, float queryMul) {
        const int64_t base = QueryOffset(lane);
        float* q = query_ + int64_t{lane} * call_.dimPad;
        for (int c = call_.headDim; c < call_.dimPad; ++c)
            q[c] = 0.0f;
        const float* none = nullptr;
        switch (call_.queryDirect ? call_.queryType : ACL_DT_UNDEFINED) {
            case ACL_FLOAT16:
                return ConvertSpanAs<uint16_t>(static_cast<const uint16_t*>(call_.query) + base, call_.headDim, none,
                                               none, queryMul, q, [](const uint16_t* p) { return Simd::LoadHalf(p); });
            case ACL_BF16:
                return ConvertSpanAs<uint16_t>(static_cast<const uint16_t*>(call_.query) + base, call_.headDim, none,
                                               none, queryMul, q, [](const uint16_t* p) { return Simd::LoadBf16(p); });
            case ACL_FLOAT:
                return ConvertSpanAs<float>(static_cast<const float*>(call_.query) + base, call_.headDim, none, none,
                                            queryMul, q, [](const float* p) { return Simd::Load(p); });
            default: {
                const float* elements = queryElements_ + int64_t{lane} * call_.dimPad;
                for (int c = 0; c < call_.headDim; ++c)
                    q[c] = elements[c] * queryMul;
            }
        }
    }

    // queryElements_: the lanes' query elements through the thread's cache (QueryTag), taken anew when it held
    // another task's.
    void OpenQueryElements() {
        const QueryTag tag{task_.item, task_.itemCount, task_.rowBegin, task_.rowEnd};
        QueryTag held;
        __builtin_memcpy(&held, queryCache_, sizeof(held));
        float* cached = queryCache_ + kQueryTagFloats;
        queryElements_ = cached;
        if (held == tag) return;
        __builtin_memcpy(queryCache_, &tag, sizeof(tag));
        for (int lane = 0; lane < lanes_; ++lane)
            QueryElements(call_, QueryOffset(lane), call_.headDim, cached + int64_t{lane} * call_.dimPad);
    }

    // Keys [j0, j0 + n): the dots of every lane, each lane's softmax step, then the weighted values. K and V
    // are converted subKeys_ keys at a time for every item of the task in turn, so the cache is read in
    // memory order (a slot holds the items' kv heads side by side) and the converted rows stay in L1.
    void Tile(int32_t j0, int32_t n) {
        const plan::TileClass tile = ClassOf(j0, n);
        if (tile == plan::TileClass::kHidden) return;
        LoadRazor(j0, n);
        const TileRows rows = RowsOf(j0, n);
        Dots(rows);
        bool accumulate = false;
        for (int lane = 0; lane < lanes_; ++lane) {
            FinishScores(lane, j0, n, tile == plan::TileClass::kPartial);
            accumulate = Update(lane, n) || accumulate;
        }
        if (accumulate) Accumulate(rows);
    }

    // The class of keys [j0, j0 + n) for the task's rows; kHidden also where the finite causal term provably
    // gives them weight 0 (WeighsNothing).
    plan::TileClass ClassOf(int32_t j0, int32_t n) {
        plan::TileClass tile = plan::TileClass::kVisible;
        if constexpr (kMasked) {
            tile = ClassifyTile(call_, items_[0], task_.rowBegin, task_.rowEnd, j0, j0 + n);
            if (tile != plan::TileClass::kHidden && WeighsNothing(j0, n)) tile = plan::TileClass::kHidden;
        }
        return tile;
    }

    // razor_[t]: the razor offset of key j0 + t, where the call has them.
    void LoadRazor(int32_t j0, int32_t n) {
        if (call_.razorOffset == nullptr) return;
        const plan::WorkItem& first = items_[0];
        for (int32_t t = 0; t < n; ++t) {
            const int64_t j = j0 + t;
            const int64_t block = call_.key.blockTable[first.kvSequence * call_.key.tableStride + j / call_.key.blockSize];
            razor_[t] = call_.razorOffset[block * call_.razorBlockStride + j % call_.key.blockSize];
        }
    }

    // The rows of keys [j0, j0 + n) and those to ask for meanwhile (TileRows): the task's next keys, and in its
    // last tile the first keys of the thread's next task where that task reads the same kv heads
    // (NextTaskOfSameHeads).
    TileRows RowsOf(int32_t j0, int32_t n) const {
        const plan::WorkItem& first = items_[0];
        TileRows rows;
        rows.n = n;
        RowAddresses(call_.key, first, j0, n, rows.key);
        RowAddresses(call_.value, first, j0, n, rows.value);
        const int32_t ahead = j0 + (n < kRequestDistance ? n : kRequestDistance);
        const int32_t left = task_.kvEnd - ahead;
        rows.next = left < tileKeys_ ? left : tileKeys_;
        RowAddresses(call_.key, first, ahead, rows.next, rows.nextKey);
        RowAddresses(call_.value, first, ahead, rows.next, rows.nextValue);
        if (j0 + n < task_.kvEnd || rows.next == tileKeys_) return rows;
        if (const Task* next = NextTaskOfSameHeads()) {
            const plan::WorkItem& nextFirst = call_.items[next->item];
            const int32_t more = std::min(next->kvEnd - next->kvBegin, tileKeys_ - rows.next);
            RowAddresses(call_.key, nextFirst, next->kvBegin, more, rows.nextKey + rows.next);
            RowAddresses(call_.value, nextFirst, next->kvBegin, more, rows.nextValue + rows.next);
            rows.next += more;
        }
        return rows;
    }

    // Claims the thread's next task and returns it where its items read the same kv heads as this task's, one
    // for one: the same items, or the same heads of another sequence (a batch's decode steps, one task per
    // sequence); else null. The rows asked for are kv head 0's, which each item offsets by its own head, so
    // that the rows requested for an item are those of the next task's item in its place. Never a skipped
    // batch's items, whose block ids validation does not check. Requested through this task's last tile, the
    // next task's first tile arrives as this one ends, where otherwise it waits on memory: decode 0.92x the
    // time on the quick grid; batches of 32 1k-token sequences 0.89-0.96x (BENCHMARKS.md).
    const Task* NextTaskOfSameHeads() const {
        const int64_t index = next_ != nullptr ? next_->Claim() : -1;
        if (index < 0) return nullptr;
        const Task& next = call_.tasks[call_.order[index]];
        if (next.itemCount != task_.itemCount || next.kvEnd <= next.kvBegin) return nullptr;
        for (int32_t i = 0; i < task_.itemCount; ++i) {
            const plan::WorkItem& item = call_.items[next.item + i];
            if (item.kvHead != items_[i].kvHead || item.zeroOutput) return nullptr;
        }
        return &next;
    }

    // scores[lane][t] = q_lane . k_t for the tile's keys, subKeys_ keys of one item at a time, read in place
    // where the cache allows (DirectRows), else converted into keys_ first. Each step asks for the same keys
    // of the next tile into L2, so that the memory stays busy while the lanes compute.
    void Dots(const TileRows& rows) {
        for (int32_t t0 = 0; t0 < rows.n; t0 += subKeys_) {
            const int32_t m = rows.n - t0 < subKeys_ ? rows.n - t0 : subKeys_;
            const RowsAhead ahead{rows.nextKey + t0, rows.next - t0};
            for (int32_t i = 0; i < task_.itemCount; ++i) {
                const int first = i * itemLanes_;
                if (directKeys_) {
                    WithCacheRows<false>(call_.key, items_[i], rows.key + t0, ahead,
                                         [&](const auto& keys) { ItemDots(first, m, t0, keys); });
                    continue;
                }
                ConvertRows(call_.key, items_[i], rows.key + t0, m, keys_, call_.dimPad, ahead);
                ItemDots(first, m, t0, ScratchRows{keys_, call_.dimPad});
            }
        }
    }

    // Scores of keys [t0, t0 + m) of the tile (rows [0, m) of `keys`) for the lanes [first, first + itemLanes_).
    template <class Rows>
    void ItemDots(int first, int32_t m, int32_t t0, const Rows& keys) {
        for (int l0 = 0; l0 < itemLanes_; l0 += kBlockLanes) {
            const int lane = first + l0;
            float* out = scores_ + int64_t{lane} * kTileKeys + t0;
            const Rows rows = l0 == 0 ? keys : keys.Quiet();  // the first block asks for the next tile's rows
            switch (itemLanes_ - l0 < kBlockLanes ? itemLanes_ - l0 : kBlockLanes) {
                case 1:
                    BlockDots<1>(lane, rows, m, out);
                    break;
                case 2:
                    BlockDots<2>(lane, rows, m, out);
                    break;
                case 3:
                    BlockDots<3>(lane, rows, m, out);
                    break;
                default:
                    BlockDots<kBlockLanes>(lane, rows, m, out);
            }
        }
    }

    // out[l * kTileKeys + t] = q_l . k_t for NL lanes from `lane` and keys [0, m) of `keys`.
    template <int NL, class Rows>
    ATBX_INLINE void BlockDots(int lane, const Rows& keys, int32_t m, float* out) const {
        if constexpr (Simd::kInt16Dots && std::is_same_v<Rows, CacheRows<int8_t, Int8Load, false>>) {
            if (int16Query_ != nullptr) return Int16BlockDots<NL>(lane, keys, m, out);
        }
        if constexpr (Simd::kBf16Dots && std::is_same_v<Rows, CacheRows<uint16_t, Bf16Load, false>>) {
            if (bf16Query_ != nullptr && Bf16BlockDots<NL>(lane, keys, m, out)) return;
        }
        FloatBlockDots<NL>(lane, keys, m, out);
    }

    template <int NL, class Rows>
    ATBX_INLINE void FloatBlockDots(int lane, const Rows& keys, int32_t m, float* out) const {
        const float* q = query_ + int64_t{lane} * call_.dimPad;
        constexpr int NK = BlockKeys(NL);
        const int64_t ld = call_.dimPad;
        int32_t t = 0;
        for (; t + NK <= m; t += NK)
            DotBlock<NL, NK>(q, ld, keys, t, call_.dimPad, out + t, kTileKeys);
        for (; t < m; ++t) {
            for (int l = 0; l < NL; ++l)
                out[l * kTileKeys + t] = Dot(q + l * ld, l == 0 ? keys : keys.Quiet(), t, call_.dimPad);
        }
    }

    // BlockDots of bf16 keys by bf16 dot products with the raw bf16 queries of the same lanes (CopyBf16Queries),
    // each dot times its lane's kQueryMul. False where a raw dot is not finite (a key or query that is not, or a
    // dot beyond fp32 whose scaled one may not be): the fp32 dots then take the block, with the numeric
    // semantics of every path (docs/decisions.md, bf16 dot products).
    template <int NL, class Rows>
    ATBX_INLINE bool Bf16BlockDots(int lane, const Rows& keys, int32_t m, float* out) const {
        DependentSimd<kMasked>::Type::template Bf16Dots<NL>(
            bf16Query_ + int64_t{lane} * call_.dimPad, call_.dimPad, keys, m, call_.headDim, out, kTileKeys,
            [](const auto& a, float* sums, int64_t ld) { ReduceDots(a, sums, ld); });
        const float* queryMul = Field(kQueryMul) + lane;
        V check = Simd::Zero();  // dot * 0 + check: NaN once a dot is not finite
        float tailCheck = 0.0f;
        for (int l = 0; l < NL; ++l) {
            float* row = out + l * kTileKeys;
            int32_t i = 0;
            for (; i + kW <= m; i += kW) {
                const V dot = Simd::Load(row + i);
                check = Simd::MulAdd(dot, Simd::Zero(), check);
                Simd::Store(row + i, Simd::Mul(dot, Simd::Set(queryMul[l])));
            }
            for (; i < m; ++i) {
                tailCheck += row[i] * 0.0f;
                row[i] *= queryMul[l];
            }
        }
        return !Simd::AnyNaN(check) && tailCheck == 0.0f;
    }

    // BlockDots of int8 keys by int16 dot products with the int16 queries of the same lanes (QuantiseQueries):
    // each integer dot times its lane's kQueryStep.
    template <int NL, class Rows>
    ATBX_INLINE void Int16BlockDots(int lane, const Rows& keys, int32_t m, float* out) const {
        DependentSimd<kMasked>::Type::template Int16Dots<NL>(
            int16Query_ + int64_t{lane} * call_.dimPad, call_.dimPad, keys, m, call_.headDim, out, kTileKeys,
            [](const auto& a, float* sums, int64_t ld) { ReduceDots(a, sums, ld); });
        const float* step = Field(kQueryStep) + lane;
        for (int l = 0; l < NL; ++l) {
            for (int32_t i = 0; i < m; ++i)
                out[l * kTileKeys + i] *= step[l];
        }
    }

    // acc[lane] += sum_t weight[lane][t] * v_t over the tile's keys, the values read as Dots reads the keys.
    void Accumulate(const TileRows& rows) {
        for (int32_t t0 = 0; t0 < rows.n; t0 += subKeys_) {
            const int32_t m = rows.n - t0 < subKeys_ ? rows.n - t0 : subKeys_;
            const RowsAhead ahead{rows.nextValue + t0, rows.next - t0};
            for (int32_t i = 0; i < task_.itemCount; ++i) {
                const int first = i * itemLanes_;
                if (directValues_) {
                    // Inlined, as ItemAccumulate is: GCC otherwise called it once per sub-tile and item (fp16
                    // GQA 32/8 decode 1.02-1.04x the time).
                    WithCacheRows<true>(call_.value, items_[i], rows.value + t0, ahead,
                                        [&](const auto& values) __attribute__((always_inline)) {
                                            ItemAccumulate(first, m, t0, values);
                                        });
                    continue;
                }
                ConvertRows(call_.value, items_[i], rows.value + t0, m, values_, call_.dimVPad, ahead);
                ItemAccumulate(first, m, t0, ScratchRows{values_, call_.dimVPad});
            }
        }
    }

    // acc += weights * values of keys [t0, t0 + m) of the tile (rows [0, m) of `values`) for the lanes [first,
    // first + itemLanes_). Lanes holding a zero weight in the tile go one by one, skipping those keys, so that a
    // key of weight 0 takes no part even with a non-finite value (docs/decisions.md).
    template <class Rows>
    ATBX_INLINE void ItemAccumulate(int first, int32_t m, int32_t t0, const Rows& values) {
        for (int l0 = 0; l0 < itemLanes_; l0 += kBlockLanes) {
            const int count = itemLanes_ - l0 < kBlockLanes ? itemLanes_ - l0 : kBlockLanes;
            const Rows rows = l0 == 0 ? values : values.Quiet();  // the first block asks for the next tile's rows
            if (Bf16Accumulate(first + l0, count, m, t0, rows)) continue;
            if constexpr (Simd::kInt16Values && std::is_same_v<Rows, CacheRows<int8_t, Int8Load, false>>) {
                if (Int16Accumulate(first + l0, count, m, t0, rows)) continue;
            }
            bool dense = true;
            for (int l = 0; l < count; ++l)
                dense = dense && Field(kZeroWeight)[first + l0 + l] == 0.0f;
            if (!dense) {
                for (int l = 0; l < count; ++l) {
                    LaneAccumulate(first + l0 + l, scores_ + int64_t{first + l0 + l} * kTileKeys + t0, m,
                                   l == 0 ? rows : rows.Quiet());
                }
                continue;
            }
            if (WeightedKeysAccumulate(first + l0, count, m, t0, rows)) continue;
            BlockAccumulate(count, scores_ + int64_t{first + l0} * kTileKeys + t0, m,
                            acc_ + int64_t{first + l0} * call_.dimVPad, rows);
        }
    }

    // acc += weights * values for a block of `count` lanes over m keys (weight rows kTileKeys apart).
    template <class Rows>
    ATBX_INLINE void BlockAccumulate(int count, const float* w, int32_t m, float* acc, const Rows& values) {
        switch (count) {
            case 1:
                return AccumulateLanes<1>(w, m, acc, values);
            case 2:
                return AccumulateLanes<2>(w, m, acc, values);
            case 3:
                return AccumulateLanes<3>(w, m, acc, values);
            default:
                return AccumulateLanes<kBlockLanes>(w, m, acc, values);
        }
    }

    // ItemAccumulate's block of `count` lanes from `lane` over only the keys of the sub-tile [t0, t0 + m) that
    // one of them weighs, for int8 QKV: its P quantisation rounds each weight below 1/254 of the tile's or the
    // row's largest to 0, most of a long row's, and its int8 values are finite, so the keys every lane of the
    // block weighs 0 add exactly nothing. The weights of the keys kept are gathered, the value rows read by
    // key (KeyListRows). False, with nothing done, where fewer than a quarter of the keys would be left out:
    // the block's plain product then costs less than the gather.
    template <class Rows>
    bool WeightedKeysAccumulate(int lane, int count, int32_t m, int32_t t0, const Rows& values) {
        if (call_.quant == plan::QuantPolicy::Mode::kNone || !FiniteValues()) return false;
        uint32_t bits[kTileKeys / kW];
        const int32_t kept = WeightedKeyBits(lane, count, m, t0, bits);
        if (4 * kept > 3 * m) return false;
        int32_t keys[kTileKeys];
        for (int32_t k0 = 0, i = 0; k0 < m; k0 += kW) {
            for (uint32_t b = bits[k0 / kW]; b != 0; b &= b - 1)
                keys[i++] = k0 + __builtin_ctz(b);
        }
        float weights[kBlockLanes * kTileKeys];
        for (int l = 0; l < count; ++l) {
            const float* w = scores_ + int64_t{lane + l} * kTileKeys + t0;
            for (int32_t i = 0; i < kept; ++i)
                weights[l * kTileKeys + i] = w[keys[i]];
        }
        BlockAccumulate(count, weights, kept, acc_ + int64_t{lane} * call_.dimVPad, KeyListRows<Rows>{values, keys});
        return true;
    }

    // The keys of the sub-tile [t0, t0 + m) where one of `count` lanes from `lane` has a weight that is not 0
    // (NaN included), as bits: bit i of bits[k] for key k * kW + i, counted from t0. Returns how many.
    int32_t WeightedKeyBits(int lane, int count, int32_t m, int32_t t0, uint32_t* bits) const {
        int32_t kept = 0;
        for (int32_t k0 = 0; k0 < m; k0 += kW) {
            uint32_t b = 0;
            for (int l = 0; l < count; ++l)
                b |= Simd::NonZeroBits(Simd::Load(scores_ + int64_t{lane + l} * kTileKeys + t0 + k0));
            if (m - k0 < kW) b &= (1u << (m - k0)) - 1;
            bits[k0 / kW] = b;
            kept += __builtin_popcount(b);
        }
        return kept;
    }

    // ItemAccumulate's block of `count` lanes from `lane` by int16 dot products where each of them holds int16
    // weights (RoundedWeights): int8 values are finite, so a zero weight adds exactly nothing here. Keys go in
    // pairs; sub-tiles hold an even number of keys, so only a tile's last key is ever alone, beside the zero
    // weight of the padding. False where the task has no int16 weights, or a lane keeps fp32 weights (its logits
    // hold a NaN): the block then takes its lanes' fp32 weights, which differ from those the other lanes' l
    // summed by at most 2^-11 of l.
    template <class Rows>
    bool Int16Accumulate(int lane, int count, int32_t m, int32_t t0, const Rows& values) {
        using S = typename DependentSimd<kMasked>::Type;
        if (int16Weights_ == nullptr) return false;
        const float* step = Field(static_cast<LaneField>(kWeightStep + t0 / kL1TileKeys)) + lane;
        for (int l = 0; l < count; ++l) {
            if (step[l] == 0.0f) return false;
        }
        const int16_t* w = int16Weights_ + int64_t{lane} * kTileKeys + t0;
        float* acc = acc_ + int64_t{lane} * call_.dimVPad;
        switch (count) {
            case 1:
                S::template Int16Accumulate<1>(w, kTileKeys, m, values, call_.headDimV, step, acc, call_.dimVPad);
                break;
            case 2:
                S::template Int16Accumulate<2>(w, kTileKeys, m, values, call_.headDimV, step, acc, call_.dimVPad);
                break;
            case 3:
                S::template Int16Accumulate<3>(w, kTileKeys, m, values, call_.headDimV, step, acc, call_.dimVPad);
                break;
            default:
                S::template Int16Accumulate<kBlockLanes>(w, kTileKeys, m, values, call_.headDimV, step, acc,
                                                         call_.dimVPad);
        }
        return true;
    }

    // Rows of bf16 values read in place, which the bf16 P.V takes (AVX-512 with AVX512-BF16).
    template <class Rows>
    static constexpr bool kBf16ValueRows =
        Simd::kBf16Dots && std::is_same_v<Rows, CacheRows<uint16_t, Bf16Load, true>>;

    // ItemAccumulate's block of `count` lanes from `lane` by bf16 dot products (bf16Weights_), where each lane's
    // weights in the tile are finite (kBf16Weights) and the sub-tile's values finite and at most 2 in magnitude
    // (checked as the product reads them): the lanes' weights of the sub-tile rounded to bf16, their sums
    // (into values_, which rows read in place leave free) added to acc, and each lane's l moved by what the
    // rounding changed, so that acc / l weighs the values by exactly the weights the product uses
    // (docs/decisions.md, "bf16 P.V on dot products"). The values are finite, so a zero weight adds exactly
    // nothing. False, with acc and l untouched, where a lane keeps fp32 weights (its logits hold a NaN or +inf)
    // or a value is larger: the block then takes the fp32 product, and so do the item's later sub-tiles in the
    // task (largeValues_), whose values are likely as large. (A separate pass over each sub-tile's values
    // before its product took the time of its first reads from memory: GQA 32/8 bf16 decode 1.03-1.28x.)
    template <class Rows>
    __attribute__((noinline)) bool Bf16Accumulate(int lane, int count, int32_t m, int32_t t0, const Rows& values) {
        if constexpr (kBf16ValueRows<Rows>) {
            using S = typename DependentSimd<kMasked>::Type;
            bool& large = largeValues_[lane / itemLanes_];
            if (bf16Weights_ == nullptr || large) return false;
            for (int l = 0; l < count; ++l) {
                if (Field(kBf16Weights)[lane + l] == 0.0f) return false;
            }
            float moved[kBlockLanes];
            for (int l = 0; l < count; ++l) {
                const int64_t at = int64_t{lane + l} * kTileKeys + t0;
                moved[l] = S::RoundWeightsToBf16(scores_ + at, m, call_.value.shrink, bf16Weights_ + at);
            }
            const uint16_t* w = bf16Weights_ + int64_t{lane} * kTileKeys + t0;
            const int64_t ld = call_.dimVPad;
            const int dim = call_.headDimV;
            bool small = false;
            switch (count) {
                case 1:
                    small = S::template Bf16Accumulate<1>(w, kTileKeys, m, values, dim, values_, ld);
                    break;
                case 2:
                    small = S::template Bf16Accumulate<2>(w, kTileKeys, m, values, dim, values_, ld);
                    break;
                case 3:
                    small = S::template Bf16Accumulate<3>(w, kTileKeys, m, values, dim, values_, ld);
                    break;
                default:
                    small = S::template Bf16Accumulate<kBlockLanes>(w, kTileKeys, m, values, dim, values_, ld);
            }
            if (!small) {
                large = true;
                return false;
            }
            for (int l = 0; l < count; ++l) {
                float* acc = acc_ + int64_t{lane + l} * ld;
                const float* sums = values_ + l * ld;
                for (int c = 0; c < dim; c += kW)
                    Simd::Store(acc + c, Simd::Add(Simd::Load(acc + c), Simd::Load(sums + c)));
                Field(kSum)[lane + l] += moved[l];
            }
            return true;
        }
        return false;
    }

    template <int NL, class Rows>
    ATBX_INLINE void AccumulateLanes(const float* w, int32_t m, float* acc, const Rows& values) {
        const int64_t ld = call_.dimVPad;
        int c = 0;
        for (; c + kBlockChannels * kW <= ld; c += kBlockChannels * kW)
            AccumulateBlock<NL, kBlockChannels>(w, kTileKeys, m, values, c, acc + c, ld);
        for (; c < ld; c += kW)
            AccumulateBlock<NL, 1>(w, kTileKeys, m, values, c, acc + c, ld);
    }

    template <class Rows>
    void LaneAccumulate(int lane, const float* weights, int32_t m, const Rows& values) {
        float* acc = acc_ + int64_t{lane} * call_.dimVPad;
        int c = 0;
        for (; c + 8 * kW <= call_.dimVPad; c += 8 * kW)
            AccumulateChunk<8>(weights, m, values, c, acc + c);
        for (; c + 4 * kW <= call_.dimVPad; c += 4 * kW)
            AccumulateChunk<4>(weights, m, values, c, acc + c);
        for (; c < call_.dimVPad; c += kW)
            AccumulateChunk<1>(weights, m, values, c, acc + c);
    }

    // The lane's dots become logits: factors, razor offsets, clamp and mask terms.
    void FinishScores(int lane, int32_t j0, int32_t n, bool addMask) {
        float* s = scores_ + int64_t{lane} * kTileKeys;
        const int32_t padded = (n + kW - 1) / kW * kW;
        const bool razor = call_.razorOffset != nullptr;
        if (call_.clamp) {
            razor ? ScaleScores<true, true>(lane, s, padded) : ScaleScores<true, false>(lane, s, padded);
        } else {
            razor ? ScaleScores<false, true>(lane, s, padded) : ScaleScores<false, false>(lane, s, padded);
        }
        if (addMask) AddMask(lane, j0, n, s);
        for (int32_t i = n; i < padded; ++i)
            s[i] = kNegInf;
    }

    // logit = ((dot + bias) * dotMul + razor * razorMul) * postMul, clamped: one loop per combination of the
    // features, so that no vector pays for a feature the call lacks.
    template <bool kClamp, bool kRazor>
    void ScaleScores(int lane, float* s, int32_t padded) const {
        const V dotMul = Simd::Set(Field(kDotMul)[lane]);
        const V razorMul = Simd::Set(Field(kRazorMul)[lane]);
        const V postMul = Simd::Set(Field(kPostMul)[lane]);
        const V bias = Simd::Set(Field(kDotBias)[lane]);
        for (int32_t i = 0; i < padded; i += kW) {
            V x = Simd::Add(Simd::Load(s + i), bias);
            if constexpr (kRazor) {
                x = Simd::MulAdd(x, dotMul, Simd::Mul(Simd::Load(razor_ + i), razorMul));
            } else {
                x = Simd::Mul(x, dotMul);
            }
            x = Simd::Mul(x, postMul);
            // Operand order keeps a NaN logit NaN (the instructions return the second operand on NaN).
            if constexpr (kClamp) x = Simd::Min(Simd::Set(call_.clampMax), Simd::Max(Simd::Set(call_.clampMin), x));
            Simd::Store(s + i, x);
        }
    }

    // Adds the mask terms of keys [j0, j0 + n) of the lane's row to its scores (nothing where an ND mask's
    // terms there are all zero).
    void AddMask(int lane, int32_t j0, int32_t n, float* s) const {
        const KernelCall::MaskRows& m = call_.maskRows.data != nullptr ? call_.maskRows : call_.maskTiles;
        if (m.data == nullptr) return AddMaskTerms(call_, ItemOf(lane), HeadOf(lane), RowOf(lane), j0, n, s);
        if (m.columnTile == 0 && MaskRowZero(lane, j0, n)) return;
        float terms[kTileKeys];
        MaskRow(m, lane, j0, n, terms);
        int32_t t = 0;
        for (; t + kW <= n; t += kW)
            Simd::Store(s + t, Simd::AddMaskTerm(Simd::Load(s + t), Simd::Load(terms + t)));
        for (; t < n; ++t)
            s[t] = terms[t] == kNegInf ? kNegInf : s[t] + terms[t];
    }

    // Whether the terms of keys [j0, j0 + n) of the lane's row of an ND tensor mask (KernelCall::maskRows) are
    // all +0 or -0: adding them leaves every logit as it is (up to the sign of a zero, which no exp, maximum or
    // sum downstream tells apart), so a tile they all leave visible skips the terms. Bits are ORed without the
    // sign, so NaN, inf and every other value count as terms.
    bool MaskRowZero(int lane, int32_t j0, int32_t n) const {
        const KernelCall::MaskRows& m = call_.maskRows;
        if (m.shiftedTileKeys != 0) return false;  // ALiBi terms: zero on the diagonal only
        const int64_t at = MaskRowStart(m, lane) + j0;
        if (m.dtype == ACL_FLOAT) return BitsZero(static_cast<const uint32_t*>(m.data) + at, n, 0x7FFFFFFFu);
        return BitsZero(static_cast<const uint16_t*>(m.data) + at, n, uint16_t{0x7FFF});
    }

    template <class Bits>
    static bool BitsZero(const Bits* p, int32_t n, Bits magnitude) {
        Bits any = 0;
        for (int32_t t = 0; t < n; ++t)
            any |= p[t];
        return (any & magnitude) == 0;
    }

    // The terms of keys [j0, j0 + n) of the lane's row of a tensor mask read by rows (KernelCall::maskRows or
    // maskTiles), in fp32: a FRACTAL_NZ mask's a column tile at a time (16 keys side by side).
    void MaskRow(const KernelCall::MaskRows& m, int lane, int32_t j0, int32_t n, float* terms) const {
        const int64_t row = MaskRowStart(m, lane);
        if (m.shiftedTileKeys != 0) return ShiftedMaskRow(m, lane, row, j0, n, terms);
        if (m.columnTile == 0) {
            RequestMaskElement(m, row + j0 + kMaskRequestDistance);
            return MaskSpan(m, row + j0, n, terms);
        }
        for (int32_t j = j0; j < j0 + n;) {
            const int32_t within = j % m.columnTile;
            const int32_t count = m.columnTile - within < j0 + n - j ? m.columnTile - within : j0 + n - j;
            MaskSpan(m, row + (j / m.columnTile) * m.columnTileStride + within, count, terms + (j - j0));
            j += count;
        }
    }

    // MaskRow of the ALiBi tile (MaskRows::shiftedTileKeys), `row` the element where the query's row starts: a
    // tile of keys at a time, from the row t rows before, or -inf where the tile starts after the query.
    void ShiftedMaskRow(const KernelCall::MaskRows& m, int lane, int64_t row, int32_t j0, int32_t n,
                        float* terms) const {
        const int64_t position = ItemOf(lane).prefix + RowOf(lane);
        const int32_t ahead = j0 + kMaskRequestDistance, aheadTile = ahead / m.shiftedTileKeys * m.shiftedTileKeys;
        if (aheadTile <= position) RequestMaskElement(m, row - aheadTile * m.rowStride + (ahead - aheadTile));
        for (int32_t j = j0; j < j0 + n;) {
            const int32_t t = j / m.shiftedTileKeys * m.shiftedTileKeys;
            const int32_t count = t + m.shiftedTileKeys - j < j0 + n - j ? t + m.shiftedTileKeys - j : j0 + n - j;
            if (t > position) {
                for (int32_t k = 0; k < count; ++k)
                    terms[j - j0 + k] = kNegInf;
            } else {
                MaskSpan(m, row - t * m.rowStride + (j - t), count, terms + (j - j0));
            }
            j += count;
        }
    }

    // Asks for the cache line of mask element `at` (past the mask's end only near its last row: a request
    // never faults).
    static void RequestMaskElement(const KernelCall::MaskRows& m, int64_t at) {
        const int64_t bytes = m.dtype == ACL_FLOAT ? 4 : 2;
        __builtin_prefetch(static_cast<const char*>(m.data) + at * bytes);
    }

    // The element of the lane's mask row where key 0 (ND) or key 0's column tile (FRACTAL_NZ) starts.
    int64_t MaskRowStart(const KernelCall::MaskRows& m, int lane) const {
        return m.RowStart(ItemOf(lane), HeadOf(lane), RowOf(lane));
    }

    // n mask elements from element `at` of the mask, in fp32.
    static void MaskSpan(const KernelCall::MaskRows& m, int64_t at, int32_t n, float* terms) {
        const float* none = nullptr;
        switch (m.dtype) {
            case ACL_FLOAT16:
                return ConvertSpanAs<uint16_t>(static_cast<const uint16_t*>(m.data) + at, n, none, none, 1.0f, terms,
                                               [](const uint16_t* p) { return Simd::LoadHalf(p); });
            case ACL_BF16:
                return ConvertSpanAs<uint16_t>(static_cast<const uint16_t*>(m.data) + at, n, none, none, 1.0f, terms,
                                               [](const uint16_t* p) { return Simd::LoadBf16(p); });
            default:
                return ConvertSpanAs<float>(static_cast<const float*>(m.data) + at, n, none, none, 1.0f, terms,
                                            [](const float* p) { return Simd::Load(p); });
        }
    }

    // The lane's online-softmax step over the tile: its logits become weights (zeros where the tile adds
    // nothing to the lane). False when every weight is zero.
    bool Update(int lane, int32_t n) {
        float* s = scores_ + int64_t{lane} * kTileKeys;
        const int32_t padded = (n + kW - 1) / kW * kW;
        V top = Simd::Set(kNegInf);
        bool nan = false;
        float groupMax[kWeightGroups];  // of each group of kL1TileKeys keys, for int16 weights (RoundedWeights)
        for (int32_t g0 = 0; g0 < padded; g0 += kL1TileKeys) {
            V groupTop = Simd::Set(kNegInf);
            for (int32_t i = g0; i < padded && i < g0 + kL1TileKeys; i += kW) {
                const V x = Simd::Load(s + i);
                nan = nan || Simd::AnyNaN(x);
                groupTop = Simd::Max(groupTop, x);
            }
            top = Simd::Max(top, groupTop);
            if (int16Weights_ != nullptr) groupMax[g0 / kL1TileKeys] = Simd::ReduceMax(groupTop);
        }
        const float tileMax = nan ? __builtin_nanf("") : Simd::ReduceMax(top);
        const SoftmaxStep<float> step = StepSoftmax(Field(kMax)[lane], tileMax);
        Field(kZeroWeight)[lane] = 1.0f;
        if (bf16Weights_ != nullptr) Field(kBf16Weights)[lane] = 0.0f;
        if (!step.visible) {
            if (int16Weights_ != nullptr) ZeroInt16Weights(lane, padded);
            return ZeroWeights(s, padded);
        }
        if (step.rescale != 1.0f) {
            float* acc = acc_ + int64_t{lane} * call_.dimVPad;
            const V r = Simd::Set(step.rescale);
            for (int c = 0; c < call_.dimVPad; c += kW)
                Simd::Store(acc + c, Simd::Mul(Simd::Load(acc + c), r));
        }
        float tileSum = 0.0f;
        if (int16Weights_ != nullptr) ClearWeightSteps(lane);
        const bool rounded =
            int16Weights_ != nullptr && !nan && RoundedWeights(lane, n, groupMax, step.newMax, tileSum);
        if (!rounded) {
            const V shift = Simd::Set(step.newMax);
            V sum = Simd::Zero();
            for (int32_t i = 0; i < padded; i += kW) {
                const V w = Simd::ExpWeight(Simd::Sub(Simd::Load(s + i), shift));
                sum = Simd::Add(sum, w);
                Simd::Store(s + i, w);
            }
            tileSum = Simd::ReduceAdd(sum);
        }
        Field(kSum)[lane] = Field(kSum)[lane] * step.rescale + tileSum;
        Field(kMax)[lane] = step.newMax;
        // int8 values are finite: a zero weight adds exactly nothing, so a rounded lane's keys need no skipping
        // (ItemAccumulate) even where its block falls back to the fp32 weights.
        if (rounded) {
            Field(kZeroWeight)[lane] = 0.0f;
            return true;
        }
        if (bf16Weights_ != nullptr && !nan && step.newMax >= -3e38f && step.newMax <= 3e38f)
            Field(kBf16Weights)[lane] = 1.0f;
        if (call_.quant != plan::QuantPolicy::Mode::kNone && !QuantiseWeights(lane, n, tileMax, step.newMax)) {
            return ZeroWeights(s, padded);
        }
        Field(kZeroWeight)[lane] = !FiniteValues() && AnyZeroWeight(s, n) ? 1.0f : 0.0f;
        return true;
    }

    // Whether every value the tile's products read is finite: int8 values converted without a scale (a
    // dequantisation's is folded into acc, FoldedDequant), so that a zero weight adds exactly nothing and no
    // lane need go on its own for its zero weights (ItemAccumulate).
    bool FiniteValues() const { return call_.value.dtype == ACL_INT8 && call_.value.scale == nullptr; }

    static bool AnyZeroWeight(const float* s, int32_t n) {
        bool zero = false;
        int32_t t = 0;
        for (; t + kW <= n; t += kW)
            zero = zero || Simd::AnyZero(Simd::Load(s + t));
        for (; t < n; ++t)
            zero = zero || s[t] == 0.0f;
        return zero;
    }

    // Update's exp pass for a lane of int16 weights (int8 P.V, KernelCall::int8PV), per group of kL1TileKeys
    // keys of the tile (groupMax: the group's largest logit): the group's weights, their int16 multiples of its
    // step (kWeightStep + group) = the largest / 32767 and the sum of those, in one pass, the largest being the
    // weight of the group's largest logit, e^(groupMax - newMax), the same bits the pass gives that key, known
    // before it (a pass for the largest weight and two horizontal sums per lane and group cost about a third
    // of the dot instructions' count). The groups' largest weights come from one vector exp, and tileSum adds
    // the groups' per-lane sums times their steps in one horizontal sum per tile (one per group, with its
    // scalar chain, took 2 % more of an int8 one-token step). l sums the rounded weights, exactly those the
    // product uses. A weight is off by at most half a step, 2^-16 of its group's largest: over a group of at
    // most 32 keys at most 2^-11 of the group's sum, so at most 2^-11 of the tile's, the bound of ATB's own
    // fp16 P (docs/decisions.md). A group whose largest weight is below kNegligibleWeight (2^-100 of the
    // lane's largest so far, which the sum holds) takes zeros: its step would be subnormal, its inverse inf.
    // False, with every step 0, where a group's largest is not finite (a +inf logit): the lane then keeps its
    // fp32 weights and their sum.
    bool RoundedWeights(int lane, int32_t n, const float* groupMax, float newMax, float& tileSum) {
        const int groups = (n + kL1TileKeys - 1) / kL1TileKeys;
        if constexpr (Simd::kInt16Values) {
            using S = typename DependentSimd<kMasked>::Type;
            float largest[kWeightGroups];
            S::ExpsOf(groupMax, groups, newMax, largest);
            for (int g = 0; g < groups; ++g) {
                if (!(largest[g] >= 0.0f && largest[g] <= 3e38f)) return false;
            }
            float* s = scores_ + int64_t{lane} * kTileKeys;
            int16_t* w = int16Weights_ + int64_t{lane} * kTileKeys;
            V sum = S::Zero();
            for (int g = 0, g0 = 0; g < groups; ++g, g0 += kL1TileKeys) {
                const int32_t padded = ((n - g0 < kL1TileKeys ? n - g0 : kL1TileKeys) + kW - 1) / kW * kW;
                float& step = Field(static_cast<LaneField>(kWeightStep + g))[lane];
                if (largest[g] < kNegligibleWeight) {
                    ZeroGroup(s + g0, w + g0, padded);
                    step = 1.0f;
                    continue;
                }
                step = largest[g] * (1.0f / 32767.0f);
                sum = S::MulAdd(S::ExpToInt16(s + g0, padded, newMax, 1.0f / step, w + g0), S::Set(step), sum);
            }
            tileSum = S::ReduceAdd(sum);
            return true;
        }
        return false;
    }

    // Every step of the lane's int16 weights 0: the lane's tile goes by its fp32 weights unless RoundedWeights
    // sets them (ItemAccumulate reads them to choose).
    void ClearWeightSteps(int lane) {
        for (int g = 0; g < kWeightGroups; ++g)
            Field(static_cast<LaneField>(kWeightStep + g))[lane] = 0.0f;
    }

    // Weights 0 (fp32 and int16) for `padded` keys.
    static void ZeroGroup(float* s, int16_t* w, int32_t padded) {
        for (int32_t i = 0; i < padded; ++i) {
            s[i] = 0.0f;
            w[i] = 0;
        }
    }

    void ZeroInt16Weights(int lane, int32_t padded) {
        int16_t* w = int16Weights_ + int64_t{lane} * kTileKeys;
        for (int32_t i = 0; i < padded; ++i)
            w[i] = 0;
        for (int g = 0; g < kWeightGroups; ++g)
            Field(static_cast<LaneField>(kWeightStep + g))[lane] = 1.0f;
    }

    static bool ZeroWeights(float* s, int32_t padded) {
        for (int32_t i = 0; i < padded; i += kW)
            Simd::Store(s + i, Simd::Zero());
        return false;
    }

    // int8 P.V as the reference defines it (kernels/ref/attention_ref.cpp): the weights become int8 steps
    // times the output factor. False when the tile adds nothing.
    bool QuantiseWeights(int lane, int32_t n, float tileMax, float newMax) {
        float pFactor = 1.0f, outFactor = 1.0f;
        if (!WeightFactors(lane, tileMax, newMax, pFactor, outFactor)) return false;
        QuantiseRow(scores_ + int64_t{lane} * kTileKeys, n, pFactor, outFactor);
        return true;
    }

    // The lane's int8 P quantisation of the tile whose largest logit is tileMax, newMax the lane's maximum
    // with it: a weight w becomes clamp(round(fp16(w * pFactor)), -128, 127) * outFactor (the online modes
    // step by the tile's or the row's largest weight, kWeightMax). False, factors untouched, when the tile
    // adds nothing (every key hidden, online modes).
    bool WeightFactors(int lane, float tileMax, float newMax, float& pFactor, float& outFactor) {
        const int64_t head = HeadOf(lane);
        switch (call_.quant) {
            case plan::QuantPolicy::Mode::kPagedOnline: {
                if (tileMax == kNegInf) return false;
                const float sigma = SoftmaxExp(tileMax - newMax) / 127.0f;
                pFactor = 1.0f / sigma;
                outFactor = call_.vDescale[head] * sigma;
                break;
            }
            case plan::QuantPolicy::Mode::kPagedOffline:
                pFactor = call_.pScale[head];
                outFactor = call_.vDescale[head];
                break;
            case plan::QuantPolicy::Mode::kSelfOnline: {
                if (tileMax == kNegInf) return false;
                float& weightMax = Field(kWeightMax)[lane];
                const float tileWeight = SoftmaxExp(tileMax - newMax);
                weightMax = weightMax > tileWeight ? weightMax : tileWeight;
                const float stepSize = weightMax / 127.0f;
                pFactor = 1.0f / stepSize;
                outFactor = call_.vDescale[head] * stepSize;
                break;
            }
            case plan::QuantPolicy::Mode::kSelfOffline:
                pFactor = 1.0f / call_.pScale[head];
                outFactor = call_.vDescale[head] * call_.pScale[head];
                break;
            case plan::QuantPolicy::Mode::kNone:
                break;
        }
        return true;
    }

    // s[t] = clamp(round(fp16(s[t] * pFactor)), -128, 127) * outFactor for t < n, in vectors where the path
    // rounds to fp16 in registers (Steps). Element by element through the out-of-line fp16 rounding, int8
    // QKV decode took 3-4x the time of fp16 decode.
    template <class S = Simd>
    static void QuantiseRow(float* s, int32_t n, float pFactor, float outFactor) {
        int32_t t = 0;
        if constexpr (S::kStoresHalf) {
            const typename S::V p = S::Set(pFactor), out = S::Set(outFactor);
            for (; t + kW <= n; t += kW)
                S::Store(s + t, S::Mul(Steps<S>(S::Load(s + t), p), out));
        }
        for (; t < n; ++t) {
            float q = __builtin_nearbyintf(RoundToHalf(s[t] * pFactor));
            q = q < -128.0f ? -128.0f : (q > 127.0f ? 127.0f : q);
            s[t] = q * outFactor;
        }
    }

    // clamp(round(fp16(w * p)), -128, 127), on a path that rounds to fp16 in registers: the same bits as the
    // element at a time (one fp16 rounding of an fp32 value, then to the nearest integer, ties to even).
    template <class S>
    static typename S::V Steps(typename S::V w, typename S::V p) {
        // Max and Min return their second operand on NaN, so a NaN weight stays NaN.
        return S::Min(S::Set(127.0f), S::Max(S::Set(-128.0f), S::RoundToInteger(S::RoundToHalf(S::Mul(w, p)))));
    }

    void StoreOutput() {
        for (int lane = 0; lane < lanes_; ++lane)
            StoreRow(call_, OutputOffset(lane), acc_ + int64_t{lane} * call_.dimVPad, Field(kSum)[lane]);
    }

    void StoreZeros() {
        for (int lane = 0; lane < lanes_; ++lane) {
            const int64_t base = OutputOffset(lane);
            for (int c = 0; c < call_.headDimV; ++c)
                cpu::StoreOutput(call_, base + c, 0.0f);
        }
    }

    void StorePartial() {
        float* partial = call_.partials + task_.partial * call_.partialFloats;
        for (int lane = 0; lane < lanes_; ++lane) {
            partial[lane] = Field(kMax)[lane];
            partial[call_.lanes + lane] = Field(kSum)[lane];
        }
        float* acc = partial + 2 * call_.lanes;
        for (int64_t i = 0; i < int64_t{lanes_} * call_.dimVPad; ++i)
            acc[i] = acc_[i];
    }

    const KernelCall& call_;
    const Task& task_;
    const plan::WorkItem* items_;
    const int32_t rows_;
    const int itemLanes_;  // lanes of one item: headCount * rows, head-major
    const int lanes_;
    float* query_;
    float* scores_;
    float* keys_;
    float* values_;
    float* razor_;
    float* acc_;
    float* lane_;
    float* keyNormCache_;  // KeyNormTag
    float* queryCache_;    // QueryTag
    const float* queryElements_ = nullptr;
    const bool directKeys_, directValues_;  // the tiles' rows read in place (DirectRows)
    int16_t* const int16Weights_;   // int8PV: the lanes' int16 weights of the tile [L, kTileKeys], or null
    uint16_t* const bf16Weights_;   // bf16PV (kMinBf16ValueLanes): the lanes' bf16 weights of the sub-tile, or null
    // SubTileKeys; kMaxSubKeys where the P.V is taken by int16 or bf16 dot products, which sum each sub-tile's
    // keys apart and add the sums to acc (and in bf16 check its values and round its weights), so that the
    // sub-tiles depend on the plan alone, not on how many items a task groups (which depends on the thread
    // count): results stay bitwise identical for every thread count.
    const int32_t subKeys_;
    int16_t* const int16Rows_;              // the thread's int16 query rows (QuantiseQueries)
    const int16_t* int16Query_ = nullptr;   // int16Rows_ once they hold the lanes' queries, else null
    const uint16_t* bf16Query_ = nullptr;   // int16Rows_ once they hold the lanes' raw bf16 queries, else null
    bool largeValues_[kMaxGroupLanes] = {};  // bf16Weights_: a sub-tile of item i held a value beyond 2
    const int32_t tileKeys_;                // keys of a tile: call_.tileKeys, or kTileKeys (kWideTileLanes)
    core::NextTask* const next_;            // the claim of the thread's next task, or null
    float queryReach_ = -1.0f, ownKeyNorm_ = -1.0f;  // PrepareSkipping; -1: no tile is skipped
    float* tileNorms_ = nullptr;                      // PrepareSkipping: the thread's tile norms of the item
};

#include "kernels/cpu/attention_columns.inl"

template <bool kMasked>
void RunTaskOf(const KernelCall& call, const Task& task, float* scratch, core::NextTask* next) {
    if (ColumnRunner<kMasked>::Takes(call, task)) return ColumnRunner<kMasked>(call, task, scratch, next).Run();
    TaskRunner<kMasked>(call, task, scratch, next, true).Run();
}

}  // namespace

// The task runners are instantiated with and without a mask; clamp and razor offsets are policies of the one
// loop they change (ScaleScores), so the large loops are compiled twice, not eight times.
void RunTask(const KernelCall& call, int64_t task, float* scratch, core::NextTask* next) {
    if (call.mask != plan::MaskKind::kNone) return RunTaskOf<true>(call, call.tasks[task], scratch, next);
    RunTaskOf<false>(call, call.tasks[task], scratch, next);
}

// Combines the partial states of a row block's chunks in key order and stores the output.
void MergeRowBlock(const KernelCall& call, int64_t step) {
    const MergeStep& merge = call.merges[step];
    const Task& first = call.tasks[merge.firstTask];
    const plan::WorkItem* items = call.items + first.item;
    const int32_t rows = first.rowEnd - first.rowBegin;
    const int itemLanes = items[0].headCount * rows;
    const int lanes = itemLanes * first.itemCount;
    float* into = call.partials + first.partial * call.partialFloats;
    for (int32_t chunk = 1; chunk < merge.chunks; ++chunk) {
        const float* from = call.partials + call.tasks[merge.firstTask + chunk].partial * call.partialFloats;
        for (int lane = 0; lane < lanes; ++lane) {
            MergeSoftmax(into[lane], into[call.lanes + lane], into + 2 * call.lanes + int64_t{lane} * call.dimVPad,
                         from[lane], from[call.lanes + lane], from + 2 * call.lanes + int64_t{lane} * call.dimVPad,
                         int64_t{call.dimVPad});
        }
    }
    for (int lane = 0; lane < lanes; ++lane) {
        const plan::WorkItem& item = items[lane / itemLanes];
        const int64_t head = item.headBegin + lane % itemLanes / rows, row = first.rowBegin + lane % rows;
        const int64_t base = item.outOffset + row * call.outputRowStride + head * call.outputHeadStride;
        StoreRow(call, base, into + 2 * call.lanes + int64_t{lane} * call.dimVPad, into[call.lanes + lane]);
    }
}

void SoftmaxExp(const float* x, float* y, int64_t n) {
    int64_t i = 0;
    for (; i + kW <= n; i += kW)
        Simd::Store(y + i, Simd::Exp(Simd::Load(x + i)));
    if (i == n) return;
    float in[kW] = {}, out[kW];
    for (int64_t k = i; k < n; ++k)
        in[k - i] = x[k];
    Simd::Store(out, Simd::Exp(Simd::Load(in)));
    for (int64_t k = i; k < n; ++k)
        y[k] = out[k - i];
}

void RunAttention(const KernelCall& call) {
    auto task = [&call](int64_t index, int thread, core::NextTask& next) {
        RunTask(call, call.order[index], call.scratch + thread * call.layout.total, &next);
    };
    core::ParallelForAhead(call.taskCount, call.threads, task);
    auto merge = [&call](int64_t step, int) { MergeRowBlock(call, step); };
    core::ParallelFor(call.mergeCount, call.threads, merge);
}

}  // namespace ATBX_KERNEL_NAMESPACE
