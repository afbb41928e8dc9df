// The column runner of the CPU attention kernel: tasks of many lanes of one kv head (prefill row blocks, wide
// GQA and speculative decode steps) in transposed form. A lane is a column of every array: Q^T [dimPad][P],
// the scores S^T [keys][P] and acc^T [dimVPad][P], P being the lanes rounded up to whole vectors. Both
// products are then blocks of outer products of whole vectors (no horizontal sum), and the online softmax
// runs down the columns, kW lanes per instruction. The lanes' setup, the skipped tiles and the stores are the
// TaskRunner's (attention_kernel.inl, which includes this file inside its namespaces).

// C[i][vectors] (=, or += with kLoadC) sum_k A(i, k) B[k][vectors] for NI rows of C: A(i, k) at
// a[i * aRow + k * aCol], broadcast; B and C rows of NV vectors, `ldb` and `ldc` floats apart.
template <int NI, int NV, bool kLoadC>
ATBX_INLINE void OuterBlock(const float* a, int64_t aRow, int64_t aCol, const float* b, int64_t ldb, int32_t depth,
                            float* c, int64_t ldc) {
    V acc[NI][NV];
    for (int i = 0; i < NI; ++i) {
        for (int v = 0; v < NV; ++v)
            acc[i][v] = kLoadC ? Simd::Load(c + i * ldc + v * kW) : Simd::Zero();
    }
    for (int32_t k = 0; k < depth; ++k) {
        V row[NV];
        for (int v = 0; v < NV; ++v)
            row[v] = Simd::Load(b + k * ldb + v * kW);
        for (int i = 0; i < NI; ++i) {
            const V x = Simd::Set(a[i * aRow + k * aCol]);
            for (int v = 0; v < NV; ++v)
                acc[i][v] = Simd::MulAdd(x, row[v], acc[i][v]);
        }
    }
    for (int i = 0; i < NI; ++i) {
        for (int v = 0; v < NV; ++v)
            Simd::Store(c + i * ldc + v * kW, acc[i][v]);
    }
}

// The register block: rows of C by up to kOuterVectors vectors (AVX-512: 16 accumulators of its 32 registers;
// AVX2: 12 of 16). A block's sums are chains of FMAs, one per row of B: a core that starts two FMAs a cycle,
// each 4 cycles long, needs 8 of them in flight, so AVX2's blocks of 2 vectors take 6 rows (8 left its FMAs
// waiting on their latency; Zen 4 runs AVX-512's as two halves, one a cycle).
constexpr int kOuterVectors = kW == 16 ? 4 : 2;
template <int NV>
constexpr int kOuterRows = kW == 16 ? (NV == 1 ? 8 : 4) : (NV == 1 ? 12 : 6);

// One block of exactly `rows` (<= NI) rows.
template <int NI, int NV, bool kLoadC>
ATBX_INLINE void OuterBlockOf(int32_t rows, const float* a, int64_t aRow, int64_t aCol, const float* b, int64_t ldb,
                              int32_t depth, float* c, int64_t ldc) {
    if constexpr (NI > 1) {
        if (rows < NI) return OuterBlockOf<NI - 1, NV, kLoadC>(rows, a, aRow, aCol, b, ldb, depth, c, ldc);
    }
    OuterBlock<NI, NV, kLoadC>(a, aRow, aCol, b, ldb, depth, c, ldc);
}

// Rows [0, rows) of C over NV vectors in blocks of NI rows; rows left past the last whole block above NI take
// two blocks of about half as many, so that no block is much shorter (and so fewer sums in flight) than NI / 2.
template <int NI, int NV, bool kLoadC>
void OuterRows(const float* a, int64_t aRow, int64_t aCol, int32_t rows, const float* b, int64_t ldb, int32_t depth,
               float* c, int64_t ldc) {
    int32_t i = 0;
    for (; rows - i >= 2 * NI || rows - i == NI; i += NI)
        OuterBlock<NI, NV, kLoadC>(a + i * aRow, aRow, aCol, b, ldb, depth, c + i * ldc, ldc);
    int32_t rest = rows - i;
    if (rest > NI) {
        const int32_t half = rest / 2;
        OuterBlockOf<NI, NV, kLoadC>(half, a + i * aRow, aRow, aCol, b, ldb, depth, c + i * ldc, ldc);
        i += half;
        rest -= half;
    }
    if (rest > 0) OuterBlockOf<NI, NV, kLoadC>(rest, a + i * aRow, aRow, aCol, b, ldb, depth, c + i * ldc, ldc);
}

template <int NV, bool kLoadC>
void OuterColumns(int vectors, const float* a, int64_t aRow, int64_t aCol, int32_t rows, const float* b, int64_t ldb,
                  int32_t depth, float* c, int64_t ldc) {
    if constexpr (NV > 1) {
        if (vectors < NV) return OuterColumns<NV - 1, kLoadC>(vectors, a, aRow, aCol, rows, b, ldb, depth, c, ldc);
    }
    OuterRows<kOuterRows<NV>, NV, kLoadC>(a, aRow, aCol, rows, b, ldb, depth, c, ldc);
}

// C[rows][vectors * kW] (=, or +=) A B, the columns in groups of at most kOuterVectors vectors.
template <bool kLoadC>
void OuterProduct(const float* a, int64_t aRow, int64_t aCol, int32_t rows, const float* b, int64_t ldb,
                  int32_t depth, float* c, int64_t ldc, int vectors) {
    for (int v0 = 0; v0 < vectors; v0 += kOuterVectors) {
        const int group = vectors - v0 < kOuterVectors ? vectors - v0 : kOuterVectors;
        OuterColumns<kOuterVectors, kLoadC>(group, a, aRow, aCol, rows, b + v0 * kW, ldb, depth, c + v0 * kW, ldc);
    }
}

// Per-lane arrays of the column runner, P floats each: the logit factors of LaneField, the softmax state,
// and per tile the lanes' maxima, shifts and rescale factors, and int8 QKV's factors of its weights
// (TaskRunner::WeightFactors).
enum ColumnField { kColDotMul, kColRazorMul, kColPostMul, kColBias, kColQueryMul, kColMax, kColSum, kColTileMax,
                   kColShift, kColRescale, kColWeightMul, kColOutMul, kColumnFields };
static_assert(kColumnFields == kLaneColumnFields, "kernel_call.h sizes the column runner's lane arrays");

// What a tile's softmax step found: a real lane sees a key, a lane's factor is not 1.
struct LaneSteps {
    bool visible = false;
    bool rescaled = false;
};

template <bool kMasked>
class ColumnRunner : TaskRunner<kMasked> {
    using Base = TaskRunner<kMasked>;
    using Base::acc_;
    using Base::call_;
    using Base::Field;
    using Base::itemLanes_;
    using Base::items_;
    using Base::keys_;
    using Base::query_;
    using Base::razor_;
    using Base::int16Rows_;
    using Base::scores_;
    using Base::task_;
    using Base::values_;

  public:
    // Whether the task runs here: vectors of at least 8 lanes, int8 QKV only by int16 pair products
    // (KernelCall::int8Pairs: in columns on fp32 products it measured 1.0-1.3x the row runner's time), items
    // of KernelCall::columnItemLanes lanes or more (prefill row blocks, wide GQA and speculative steps; from
    // 16 lanes on cpu:avx2 and for bf16 dot products, and for cpu:avx512's fp16 caches where the
    // lanes fill whole vectors: KernelCall::columnLaneMultiple), over kColumnMinKeys keys or more, or fewer
    // where the row runner's staged key tile would not fit L1 (heads wider than kRowMaxDim: MLA's 576, whose
    // 128 lanes would read each staged tile from L2 32 times). The choice depends on the item alone, not on how
    // many items the schedule groups (which may depend on the thread count), and a lane's arithmetic not on its
    // neighbours, so results stay bitwise identical for any thread count. The items of a task (several only
    // where each has at most kMaxLanes / 2 lanes) take each tile in turn, so that the cache is read in memory
    // order.
    static bool Takes(const KernelCall& call, const Task& task) {
        const int itemLanes = call.items[task.item].headCount * (task.rowEnd - task.rowBegin);
        const bool wide = itemLanes >= call.columnItemLanes &&
                          (itemLanes >= kColumnItemLanes || itemLanes % call.columnLaneMultiple == 0);
        const bool quant = call.quant != plan::QuantPolicy::Mode::kNone;
        return kW >= 8 && (!quant || (Simd::kInt16Pairs && call.int8Pairs)) && wide &&
               (task.kvEnd - task.kvBegin >= kColumnMinKeys || call.dimPad > kRowMaxDim);
    }

    ColumnRunner(const KernelCall& call, const Task& task, float* scratch, core::NextTask* next)
        : Base(call, task, scratch, next, false),
          vectors_((itemLanes_ + kW - 1) / kW),
          width_(vectors_ * kW),
          shrinkExponent_(static_cast<float>(__builtin_ilogbf(call.value.shrink))),
          queryColumns_(scratch + call.layout.queryColumns),
          accColumns_(scratch + call.layout.accColumns),
          laneColumns_(scratch + call.layout.laneColumns),
          scoresT_(scratch + call.layout.scoreColumns),
          valuePairs_(reinterpret_cast<uint32_t*>(scratch + call.layout.pairColumns)),
          weightPairs_(valuePairs_ + int64_t{(call.tileKeys + 1) / 2} * call.dimVPad),
          kvTiles_(scratch + call.layout.kvTiles),
          kvTileKeys_(scratch + call.layout.kvTileKeys),
          kvTileValues_(scratch + call.layout.kvTileValues),
          valueRows_(int64_t{call.tileKeys} * call.dimVPad <= int64_t{kTileKeys} * call.dimPad ? Base::keys_
                                                                                                : values_),
          lazyRescale_(call.quant == plan::QuantPolicy::Mode::kNone ? kLazyRescale : 0.0f) {}

    void Run() {
        if (items_[0].zeroOutput) return Base::StoreZeros();
        Base::Init();
        OpenKvTiles();
        for (int32_t g = 0; g < task_.itemCount; ++g) {
            Select(g);
            InitColumns();
        }
        for (int32_t j0 = task_.kvBegin; j0 < task_.kvEnd; j0 += call_.tileKeys) {
            const int32_t n = task_.kvEnd - j0 < call_.tileKeys ? task_.kvEnd - j0 : call_.tileKeys;
            Tile(j0, n);
        }
        for (int32_t g = 0; g < task_.itemCount; ++g) {
            Select(g);
            FinishColumns();
        }
        Base::UnfoldValueDequant();
        if (task_.partial < 0) return Base::StoreOutput();
        Base::StorePartial();
    }

  private:
    static constexpr int32_t kColumnMinKeys = 256;  // fewer keys do not pay for the setup (measured)
    // kL1TileKeys staged fp32 rows of a wider head pass 32 KiB, a whole L1 data cache on the CPUs measured.
    static constexpr int kRowMaxDim = 256;
    static constexpr float kLazyRescale = 8.0f;  // how far a tile's maximum may pass the reference unrescaled
    // The bf16 products ask for the next tile's rows a few at a time between blocks of their work: the tile's
    // requests at once filled the core's miss queue and stalled it (a third of the tile's samples in a cold
    // 4-token step), so that the products waited on the requests instead of overlapping them.
    static constexpr int32_t kRequestKeys = 8;

    float* Column(ColumnField field) const { return fields_ + int64_t{field} * width_; }

    // Where the selected item's kv head starts in a slot of the cache, in bytes.
    int64_t HeadBytes(const KvView& kv) const { return items_[item_].kvHead * kv.headStride * kv.elementBytes; }

    // Points the per-item arrays (ScratchLayout: query, acc and lane columns) at item g's.
    void Select(int32_t g) {
        item_ = g;
        lane0_ = g * itemLanes_;
        const int64_t queryFloats = int64_t{call_.dimPad} * width_ + int64_t{call_.dimPad / 2} * width_;
        queryT_ = queryColumns_ + g * queryFloats;
        queryPairs_ = reinterpret_cast<uint32_t*>(queryT_ + int64_t{call_.dimPad} * width_);
        accT_ = accColumns_ + int64_t{g} * call_.dimVPad * width_;
        fields_ = laneColumns_ + int64_t{g} * kColumnFields * width_;
    }

    // The logit factors and the softmax state as columns (padded lanes get plain factors and are never
    // stored), acc^T zeroed, and the query as the products read it: raw bf16 pairs for the bf16 dots, else
    // Q^T (built by the first tile the fp32 product computes).
    void InitColumns() {
        for (int lane = 0; lane < width_; ++lane) {
            const bool real = lane < itemLanes_;
            const int at = lane0_ + lane;
            Column(kColDotMul)[lane] = real ? Field(kDotMul)[at] : 1.0f;
            Column(kColRazorMul)[lane] = real ? Field(kRazorMul)[at] : 0.0f;
            Column(kColPostMul)[lane] = real ? Field(kPostMul)[at] : 1.0f;
            Column(kColBias)[lane] = real ? Field(kDotBias)[at] : 0.0f;
            Column(kColQueryMul)[lane] = real ? Field(kQueryMul)[at] : 1.0f;
            Column(kColMax)[lane] = kNegInf;
            Column(kColSum)[lane] = 0.0f;
        }
        for (int64_t i = 0; i < int64_t{call_.dimVPad} * width_; i += kW)
            Simd::Store(accT_ + i, Simd::Zero());
        if (call_.bf16Dots || call_.int8Pairs) return InitQueryPairs();
        InitQueryColumns();
    }

    // kvTileStates_: the thread's copy of the item's converted keys and values (KvTileTag) where the call keeps
    // one and the task has one item, emptied when it held another item's; else null.
    void OpenKvTiles() {
        if (!call_.cachesKvTiles || task_.itemCount != 1) return;
        const plan::WorkItem& item = items_[0];
        const KvTileTag tag{item.kvSequence, item.kvHead, item.logicalKvHead, item.kvBegin, item.kvEnd};
        KvTileTag held;
        __builtin_memcpy(&held, kvTiles_, sizeof(held));
        kvTileStates_ = reinterpret_cast<uint8_t*>(kvTiles_ + kKvTileTagFloats);
        if (held == tag) return;
        __builtin_memcpy(kvTiles_, &tag, sizeof(tag));
        const int64_t tiles = (item.kvEnd - item.kvBegin + call_.tileKeys - 1) / call_.tileKeys;
        for (int64_t t = 0; t < tiles; ++t)
            kvTileStates_[t] = 0;
    }

    // The index in the thread's copy (kvTileStates_ set) of the tile of keys from j0.
    int64_t KvTile(int32_t j0) const { return (j0 - items_[0].kvBegin) / call_.tileKeys; }

    // n rows of `ld` floats converted from the view, channels past its head size zeroed (the fp32 products
    // read whole padded rows); returns whether every value is finite.
    bool ConvertPaddedRows(const KvView& kv, const char* const* rows, int32_t n, float* dst, int ld,
                           RowsAhead ahead) {
        const bool finite = ConvertRows<true>(kv, items_[item_], rows, n, dst, ld, ahead);
        for (int32_t t = 0; t < n && kv.headDim < ld; ++t) {
            for (int c = kv.headDim; c < ld; ++c)
                dst[int64_t{t} * ld + c] = 0.0f;
        }
        return finite;
    }

    // The tile's keys in fp32, [n, dimPad]: from the thread's copy, converted into it when the tile is first
    // needed there, or else converted into keys_.
    const float* KeyTile(const TileRows& rows, int32_t j0) {
        const RowsAhead ahead{rows.nextKey, rows.next};
        if (kvTileStates_ == nullptr) {
            ConvertRows(call_.key, items_[item_], rows.key, rows.n, keys_, call_.dimPad, ahead);
            return keys_;
        }
        const int64_t tile = KvTile(j0);
        float* keys = kvTileKeys_ + tile * call_.tileKeys * call_.dimPad;
        uint8_t& state = kvTileStates_[tile];
        if (!(state & kKeysConverted)) {
            ConvertPaddedRows(call_.key, rows.key, rows.n, keys, call_.dimPad, ahead);
            state |= kKeysConverted;
        }
        return keys;
    }

    // Q^T [dimPad][P] from the lanes' scaled queries, zero for padded lanes.
    void InitQueryColumns() {
        const auto lane = [this](int i) {
            return i < itemLanes_ ? reinterpret_cast<const char*>(query_ + int64_t{lane0_ + i} * call_.dimPad)
                                  : nullptr;
        };
        TransposeWords(lane, width_, call_.dimPad, queryT_, width_);
        queryTransposed_[item_] = true;
    }

    // queryPairs_[p][lane]: channels 2p and 2p + 1 of the lane's query (the 32-bit word p of its row): the raw
    // bf16 query, or int8 QKV's as int16 (TaskRunner's QuantiseQueries, integers taken as they are); 0 for
    // padded lanes.
    void InitQueryPairs() {
        const auto* query = static_cast<const uint16_t*>(call_.query);
        const auto lane = [this, query](int i) -> const char* {
            if (i >= itemLanes_) return nullptr;
            if (call_.int8Pairs) return reinterpret_cast<const char*>(int16Rows_ + int64_t{lane0_ + i} * call_.dimPad);
            return reinterpret_cast<const char*>(query + Base::QueryOffset(lane0_ + i));
        };
        TransposeWords(lane, width_, call_.headDim / 2, reinterpret_cast<float*>(queryPairs_), width_);
    }

    // out[j * ldo + i] = 32-bit word j of row i for i < m (a multiple of kW) and j < n, the rows given by
    // rowAt(i) (null: a row of zeros): kW x kW blocks transposed in registers (moves only: fp32 values and
    // bf16 pairs pass bit for bit), the last n % kW words of each row one by one, so that nothing past a
    // row's n words is read.
    template <class RowAt>
    static void TransposeWords(RowAt rowAt, int m, int n, float* out, int64_t ldo) {
        static constexpr float kZeros[kW] = {};
        for (int i0 = 0; i0 < m; i0 += kW) {
            const char* rows[kW];
            for (int i = 0; i < kW; ++i)
                rows[i] = rowAt(i0 + i);
            int j0 = 0;
            for (; j0 + kW <= n; j0 += kW) {
                const float* block[kW];
                for (int i = 0; i < kW; ++i)
                    block[i] = rows[i] != nullptr ? reinterpret_cast<const float*>(rows[i]) + j0 : kZeros;
                V columns[kW];
                Simd::Transpose(block, columns);
                for (int j = 0; j < kW; ++j)
                    Simd::Store(out + (j0 + j) * ldo + i0, columns[j]);
            }
            for (; j0 < n; ++j0) {
                for (int i = 0; i < kW; ++i) {
                    float word = 0.0f;
                    if (rows[i] != nullptr) __builtin_memcpy(&word, rows[i] + int64_t{j0} * 4, 4);
                    out[j0 * ldo + i0 + i] = word;
                }
            }
        }
    }

    // The softmax state and acc back into the lanes' rows, where the TaskRunner stores them from (channels
    // past headDimV are zero in acc^T).
    void FinishColumns() {
        for (int lane = 0; lane < itemLanes_; ++lane) {
            Field(kMax)[lane0_ + lane] = Column(kColMax)[lane];
            Field(kSum)[lane0_ + lane] = Column(kColSum)[lane];
        }
        const auto channel = [this](int c) { return reinterpret_cast<const char*>(accT_ + int64_t{c} * width_); };
        TransposeWords(channel, call_.dimVPad, itemLanes_, acc_ + int64_t{lane0_} * call_.dimVPad, call_.dimVPad);
    }

    // Keys [j0, j0 + n) for every item of the task in turn.
    void Tile(int32_t j0, int32_t n) {
        const plan::TileClass tile = Base::ClassOf(j0, n);
        if (tile == plan::TileClass::kHidden) return;
        Base::LoadRazor(j0, n);
        const TileRows rows = Base::RowsOf(j0, n);
        for (int32_t g = 0; g < task_.itemCount; ++g) {
            Select(g);
            ItemTile(rows, j0, tile == plan::TileClass::kPartial);
        }
    }

    // The tile for the selected item: S^T, the softmax step, acc^T += V^T W.
    void ItemTile(const TileRows& rows, int32_t j0, bool partial) {
        const int32_t n = rows.n;
        if (call_.int8Pairs) {
            Int16PairScores(rows);
        } else if (!PairScores(rows)) {
            if (!queryTransposed_[item_]) InitQueryColumns();
            const float* keys = KeyTile(rows, j0);
            OuterProduct<false>(keys, call_.dimPad, 1, n, queryT_, width_, call_.dimPad, scoresT_, width_, vectors_);
            ScaleScores<false>(n);
        }
        const bool masked = partial && AddMasks(j0, n);
        const ValueTile values = LoadValues(rows, j0);
        if (Softmax(n, values.pairs, masked)) Accumulate(rows, values);
    }

    // What a tile's values hold: no inf or NaN; whether the bf16 P.V reads them in place; else the fp32 rows
    // [n, dimVPad] the fp32 P.V reads (values_, or the thread's copy where they are all finite).
    struct ValueTile {
        bool finite = true;
        bool pairs = false;
        const float* rows = nullptr;
    };

    // The tile's values in fp32 (times the view's shrink), unless the bf16 P.V takes them (bf16PV, values finite
    // and at most 2: read in place from the cache by PairAccumulate). Only then does a value's size matter, so
    // the converted ones are checked for inf and NaN alone, as they are converted (a pass over the staged tile
    // afterwards cost 2-5 % of a cpu:avx2 4-token step). From the thread's copy where it holds them finite
    // (converted into it when the tile is first needed there), else converted into values_, whose non-finite
    // rows Accumulate zeroes.
    ValueTile LoadValues(const TileRows& rows, int32_t j0) {
        const int32_t n = rows.n;
        if (Simd::kBf16Dots && call_.bf16PV && PackSmallBf16Values(rows)) return {.finite = true, .pairs = true};
        if (call_.int8Pairs) {
            PackInt8Values(rows);
            return {.finite = true, .pairs = true};
        }
        const RowsAhead ahead{rows.nextValue, rows.next};
        if (kvTileStates_ != nullptr) {
            const int64_t tile = KvTile(j0);
            float* values = kvTileValues_ + tile * call_.tileKeys * call_.dimVPad;
            uint8_t& state = kvTileStates_[tile];
            if (!(state & (kValuesConverted | kValuesNotFinite))) {
                const bool finite = ConvertPaddedRows(call_.value, rows.value, n, values, call_.dimVPad, ahead);
                state |= finite ? kValuesConverted : kValuesNotFinite;
            }
            if (state & kValuesConverted) return {.finite = true, .pairs = false, .rows = values};
        }
        const bool finite = ConvertRows<true>(call_.value, items_[item_], rows.value, n, valueRows_, call_.dimVPad,
                                              ahead);
        return {.finite = finite, .pairs = false, .rows = valueRows_};
    }

    // S^T by bf16 dot products of the raw query with the keys read in place from the cache, times each lane's
    // query factor (the fp32 product's units), kRequestKeys keys at a time, each block asking for the same keys
    // of the next tile. False where the call has no bf16 dots, or where a dot is not
    // finite (a key or query that is not, or a raw dot beyond fp32 whose scaled one may not be): the fp32
    // product then computes the tile, with the numeric semantics of every path.
    bool PairScores(const TileRows& rows) {
        if constexpr (Simd::kBf16Dots) {
            if (!call_.bf16Dots) return false;
            const int64_t head = HeadBytes(call_.key);
            const char* keyRows[kTileKeys];
            for (int32_t t = 0; t < rows.n; ++t)
                keyRows[t] = rows.key[t] + head;
            ScoresByPairs(rows, keyRows, [&](const char* const* keys, int32_t m, float* scores) {
                DependentSimd<kMasked>::Type::template PairProduct<false>(keys, 4, m, queryPairs_, width_,
                                                                          call_.headDim / 2, scores, width_, vectors_);
            });
            return ScaleScores<true>(rows.n);
        } else {
            return false;
        }
    }

    // S^T by `product(keys, m, scores)` of the key rows keyRows (channel pairs) with queryPairs_,
    // kRequestKeys keys at a time, each block asking for the same keys of the next tile.
    template <class Product>
    void ScoresByPairs(const TileRows& rows, const char* const* keyRows, Product product) {
        const int64_t head = HeadBytes(call_.key);
        const int64_t bytes = int64_t{call_.headDim} * call_.key.elementBytes;
        for (int32_t t0 = 0; t0 < rows.n; t0 += kRequestKeys) {
            const int32_t m = rows.n - t0 < kRequestKeys ? rows.n - t0 : kRequestKeys;
            for (int32_t t = t0; t < t0 + m && t < rows.next; ++t)
                RequestRow(rows.nextKey[t] + head, bytes);
            product(keyRows + t0, m, scoresT_ + int64_t{t0} * width_);
        }
    }

    // S^T of int8 QKV by int16 pair products of the int16 query pairs with each key row widened to int16 (in
    // keys_, free until the tile's values), times each lane's query factor as PairScores' raw dots.
    void Int16PairScores(const TileRows& rows) {
        if constexpr (Simd::kInt16Pairs) {
            using S = typename DependentSimd<kMasked>::Type;
            const int64_t head = HeadBytes(call_.key);
            auto* words = reinterpret_cast<int16_t*>(keys_);
            const char* keyRows[kTileKeys];
            for (int32_t t = 0; t < rows.n; ++t) {
                S::Int8ToInt16(reinterpret_cast<const int8_t*>(rows.key[t] + head), call_.headDim,
                               words + int64_t{t} * call_.dimPad);
                keyRows[t] = reinterpret_cast<const char*>(words + int64_t{t} * call_.dimPad);
            }
            ScoresByPairs(rows, keyRows, [&](const char* const* keys, int32_t m, float* scores) {
                S::template Int16PairProduct<false>(keys, 4, m, queryPairs_, width_, call_.headDim / 2, nullptr,
                                                    scores, width_, vectors_);
            });
            ScaleScores<true>(rows.n);
        }
    }

    // The tile's int8 value rows as the words of keys 2p and 2p + 1 per channel (valuePairs_ [n / 2][dimV],
    // channel order), an odd last key paired with 0.
    void PackInt8Values(const TileRows& rows) {
        if constexpr (Simd::kInt16Pairs) {
            using S = typename DependentSimd<kMasked>::Type;
            const int64_t head = HeadBytes(call_.value);
            const auto row = [&rows, head](int32_t t) {
                return t < rows.n ? reinterpret_cast<const int8_t*>(rows.value[t] + head) : nullptr;
            };
            for (int32_t t = 0; t < rows.n; t += 2)
                S::Int8PairRow(row(t), row(t + 1), call_.headDimV, valuePairs_ + int64_t{t / 2} * call_.headDimV);
        }
    }

    // The mask terms of keys [j0, j0 + n) added to the logits (TaskRunner::FinishScores's). Returns false
    // where a tensor mask's terms of the tile are all zero for every lane (nothing added: a SPEC mask's tiles
    // before the last query tokens' diagonal).
    bool AddMasks(int32_t j0, int32_t n) {
        if (call_.maskRows.data != nullptr) return AddMaskRows(j0, n);
        if (call_.mask == plan::MaskKind::kCausal) {
            AddCausalTerms(j0, n);
            return true;
        }
        float row[kTileKeys];
        for (int lane = 0; lane < itemLanes_; ++lane) {
            for (int32_t t = 0; t < n; ++t)
                row[t] = scoresT_[int64_t{t} * width_ + lane];
            Base::AddMask(lane0_ + lane, j0, n, row);
            for (int32_t t = 0; t < n; ++t)
                scoresT_[int64_t{t} * width_ + lane] = row[t];
        }
        return true;
    }

    // A causal or sliding-window mask's term added in S^T to the keys a lane does not see: each row's visible
    // keys are one span, the same for every head (lane = head * rows + row), and only the hidden ones are
    // touched (a diagonal tile hides about half of them).
    void AddCausalTerms(int32_t j0, int32_t n) {
        const float term = static_cast<float>(call_.causal.maskedValue);
        const int rows = Base::rows_;
        const auto within = [j0, n](int64_t j) { return j <= j0 ? 0 : static_cast<int32_t>(j - j0 < n ? j - j0 : n); };
        for (int row = 0; row < rows; ++row) {
            const plan::CausalMask::KeyRange keys = call_.causal.Visible(items_[item_], task_.rowBegin + row);
            const int32_t begin = within(keys.first), end = within(keys.last + 1);  // first <= last
            const auto hide = [&](int lane, int32_t t) {
                float& s = scoresT_[int64_t{t} * width_ + lane];
                s = term == kNegInf ? kNegInf : s + term;
            };
            for (int lane = row; lane < itemLanes_; lane += rows) {
                for (int32_t t = 0; t < begin; ++t)
                    hide(lane, t);
                for (int32_t t = end; t < n; ++t)
                    hide(lane, t);
            }
        }
    }

    // Adds the terms of a tensor mask read by rows to S^T: each lane's row converted (MaskRow) into the task
    // runner's score rows, which the columns leave unused, then added kW x kW blocks at a time, transposed in
    // registers. Returns false, adding nothing, where every lane's terms are zero.
    bool AddMaskRows(int32_t j0, int32_t n) {
        // A mask without a head dimension gives every head of a row the same terms: lanes [0, rows) are the
        // first head's rows (lane = head * rows + row).
        const int distinct = call_.maskRows.headStride == 0 ? Base::rows_ : itemLanes_;
        bool zero = true;
        for (int lane = 0; lane < distinct && zero; ++lane)
            zero = Base::MaskRowZero(lane0_ + lane, j0, n);
        if (zero) return false;
        static constexpr float kZeros[kW] = {};
        float* terms = scores_;
        for (int lane = 0; lane < itemLanes_; ++lane)
            Base::MaskRow(call_.maskRows, lane0_ + lane, j0, n, terms + int64_t{lane} * kTileKeys);
        for (int i0 = 0; i0 < width_; i0 += kW) {
            for (int32_t t0 = 0; t0 < n; t0 += kW) {
                const float* rows[kW];
                for (int i = 0; i < kW; ++i)
                    rows[i] = i0 + i < itemLanes_ ? terms + int64_t{i0 + i} * kTileKeys + t0 : kZeros;
                V columns[kW];
                Simd::Transpose(rows, columns);
                for (int j = 0; j < kW && t0 + j < n; ++j) {
                    float* s = scoresT_ + int64_t{t0 + j} * width_ + i0;
                    Simd::Store(s, Simd::AddMaskTerm(Simd::Load(s), columns[j]));
                }
            }
        }
        return true;
    }

    // The dots become logits (the factors, razor offsets and clamp of TaskRunner::FinishScores), each lane's
    // largest in kColTileMax, in one pass over S^T. kRawDots: the dots are the bf16 products' raw ones, first
    // multiplied by each lane's query factor; returns false where one of those is not finite (PairScores).
    template <bool kRawDots>
    bool ScaleScores(int32_t n) {
        const bool razor = call_.razorOffset != nullptr;
        if (call_.clamp) return razor ? ScaleScoresAs<kRawDots, true, true>(n) : ScaleScoresAs<kRawDots, true, false>(n);
        return razor ? ScaleScoresAs<kRawDots, false, true>(n) : ScaleScoresAs<kRawDots, false, false>(n);
    }

    // Keys in pairs, each with its own running maximum and check: one of each would chain every key's max and
    // FMA on the key before.
    template <bool kRawDots, bool kClamp, bool kRazor>
    bool ScaleScoresAs(int32_t n) {
        V check[2] = {Simd::Zero(), Simd::Zero()};
        const int64_t width = width_;
        for (int v = 0; v < width; v += kW) {
            const V dotMul = Simd::Load(Column(kColDotMul) + v), razorMul = Simd::Load(Column(kColRazorMul) + v);
            const V postMul = Simd::Load(Column(kColPostMul) + v), bias = Simd::Load(Column(kColBias) + v);
            const V queryMul = Simd::Load(Column(kColQueryMul) + v);
            const auto logit = [&](int32_t t, V& checkSum) {
                float* s = scoresT_ + t * width + v;
                V x = Simd::Load(s);
                if constexpr (kRawDots) {
                    checkSum = Simd::MulAdd(x, Simd::Zero(), checkSum);
                    x = Simd::Mul(x, queryMul);
                }
                x = Simd::Add(x, bias);
                if constexpr (kRazor) {
                    x = Simd::MulAdd(x, dotMul, Simd::Mul(Simd::Set(razor_[t]), razorMul));
                } else {
                    x = Simd::Mul(x, dotMul);
                }
                x = Simd::Mul(x, postMul);
                if constexpr (kClamp) x = Simd::Min(Simd::Set(call_.clampMax), Simd::Max(Simd::Set(call_.clampMin), x));
                Simd::Store(s, x);
                return x;
            };
            V even = Simd::Set(kNegInf), odd = Simd::Set(kNegInf);
            int32_t t = 0;
            for (; t + 2 <= n; t += 2) {
                even = Simd::MaxNaN(even, logit(t, check[0]));
                odd = Simd::MaxNaN(odd, logit(t + 1, check[1]));
            }
            if (t < n) even = Simd::MaxNaN(even, logit(t, check[0]));
            Simd::Store(Column(kColTileMax) + v, Simd::MaxNaN(even, odd));
        }
        return !Simd::AnyNaN(Simd::Add(check[0], check[1]));
    }

    // Every lane's online-softmax step over the tile (StepSoftmax's semantics, docs/decisions.md): the logits
    // become weights (fp32 in S^T, or bf16 pairs in weightPairs_ for the bf16 P.V), the sums and acc^T are
    // rescaled. The lanes' tile maxima are ScaleScores', taken again where mask terms were added since.
    // False when no real lane has a visible key so far.
    bool Softmax(int32_t n, bool pairs, bool masked) {
        for (int v = 0; masked && v < width_; v += kW) {
            V top = Simd::Set(kNegInf);
            for (int32_t t = 0; t < n; ++t)
                top = Simd::MaxNaN(top, Simd::Load(scoresT_ + int64_t{t} * width_ + v));
            Simd::Store(Column(kColTileMax) + v, top);
        }
        const LaneSteps steps = StepLanes();
        for (int v = 0; v < width_; v += kW) {
            const V rescale = Simd::Exp(Simd::Load(Column(kColRescale) + v));
            const V shift = Simd::Load(Column(kColShift) + v);
            const V sum = pairs && !call_.int8Pairs ? WeightPairs(n, v, shift) : Weights(n, v, shift);
            Simd::Store(Column(kColSum) + v, Simd::MulAdd(Simd::Load(Column(kColSum) + v), rescale, sum));
            Simd::Store(Column(kColRescale) + v, rescale);
        }
        if (call_.int8Pairs) StepPairs(n);
        if (steps.rescaled) {
            for (int c = 0; c < call_.headDimV; ++c) {
                float* row = accT_ + int64_t{c} * width_;
                for (int v = 0; v < width_; v += kW)
                    Simd::Store(row + v, Simd::Mul(Simd::Load(row + v), Simd::Load(Column(kColRescale) + v)));
            }
        }
        return steps.visible;
    }

    // The tile's bf16 value rows packed as channel pairs of keys 2p and 2p + 1 (valuePairs_ in the order of
    // Simd::PairPosition, read by PairAccumulate), in the pass that finds whether every value is finite and at
    // most 2 in magnitude (so each row is read once). PairAccumulate asks for the next tile's value rows.
    bool PackSmallBf16Values(const TileRows& rows) {
        if constexpr (Simd::kBf16Dots) {
            const KvView& view = call_.value;
            const int64_t head = HeadBytes(view);
            const auto row = [&rows, head](int32_t t) {
                return t < rows.n ? reinterpret_cast<const uint16_t*>(rows.value[t] + head) : nullptr;
            };
            bool small = true;
            for (int32_t t = 0; t < rows.n; t += 2) {
                small = DependentSimd<kMasked>::Type::PairRowsAtMostTwo(row(t), row(t + 1), view.headDim,
                                                                        valuePairs_ + int64_t{t / 2} * view.headDim) &&
                        small;
            }
            return small;
        }
        return false;
    }

    // int8 QKV: every lane's weights of the tile as their integer steps (TaskRunner::WeightFactors and Steps;
    // padded lanes and lanes the tile adds nothing to take 0), the words of keys 2p and 2p + 1 per lane in
    // weightPairs_ (an odd last key paired with 0), each lane's output factor in kColOutMul. The sums keep the
    // weights before, as the reference's do.
    void StepPairs(int32_t n) {
        if constexpr (Simd::kInt16Pairs) {
            using S = typename DependentSimd<kMasked>::Type;
            float* weightMul = Column(kColWeightMul);
            float* outMul = Column(kColOutMul);
            for (int lane = 0; lane < width_; ++lane) {
                weightMul[lane] = outMul[lane] = 0.0f;
                if (lane < itemLanes_) {
                    Base::WeightFactors(lane0_ + lane, Column(kColTileMax)[lane], Column(kColMax)[lane],
                                        weightMul[lane], outMul[lane]);
                }
            }
            for (int v = 0; v < width_; v += kW) {
                const V p = Simd::Load(weightMul + v);
                V nan = Simd::Zero();  // NaN in the lanes holding a NaN step, else 0
                const auto step = [&](int32_t t) {
                    if (t >= n) return Simd::Zero();
                    const V q = Base::template Steps<Simd>(Simd::Load(scoresT_ + int64_t{t} * width_ + v), p);
                    nan = Simd::Or(nan, Simd::Sub(q, q));
                    return q;
                };
                for (int32_t t = 0; t < n; t += 2)
                    S::StoreInt16Pairs(step(t), step(t + 1), weightPairs_ + int64_t{t / 2} * width_ + v);
                // A NaN weight has no integer step: its lane's output factor becomes NaN, so that the lane's
                // outputs are NaN as the reference's are.
                Simd::Store(outMul + v, Simd::Add(Simd::Load(outMul + v), nan));
            }
        }
    }

    // The fp32 weights e^(logit - shift) of the tile's keys for the lanes of vector v, in place in S^T; returns
    // their sum.
    V Weights(int32_t n, int v, V shift) {
        V sum = Simd::Zero();
        for (int32_t t = 0; t < n; ++t) {
            float* s = scoresT_ + int64_t{t} * width_ + v;
            const V w = Simd::ExpWeight(Simd::Sub(Simd::Load(s), shift));
            Simd::Store(s, w);
            sum = Simd::Add(sum, w);
        }
        return sum;
    }

    // The weights of the lanes of vector v for the bf16 P.V (AVX-512 only; Softmax's caller asks only where
    // bf16PV holds): e^(logit - shift) times the view's shrink (a power of two, added to the exponent) to
    // Exp2's precision, rounded to bf16 as pairs of keys in weightPairs_. Returns the sum of the rounded
    // weights without the shrink, so that acc / sum weighs the values by exactly the weights the product uses.
    V WeightPairs(int32_t n, int v, V shift) {
        if constexpr (Simd::kBf16Dots) {
            using S = typename DependentSimd<kMasked>::Type;
            const V total = S::ExpWeightPairs(scoresT_ + v, width_, n, shift, Simd::Set(shrinkExponent_),
                                              weightPairs_ + v, width_);
            return Simd::Mul(total, Simd::Set(1.0f / call_.value.shrink));
        }
        return Weights(n, v, shift);
    }

    // Per lane, from its old reference maximum and the tile's: the reference maximum the lane's weights are
    // taken against, its shift, and the exponent of its rescale factor (0: 1; -inf: 0; NaN: NaN), so that one
    // vector exp gives every lane's factor. The reference moves only when the tile's maximum exceeds it by
    // more than lazyRescale_ (or it is -inf, NaN or +inf, with StepSoftmax's semantics): weights then reach
    // e^kLazyRescale at most, l and acc still describe the same softmax (m, l, acc merge as any other state),
    // and the pass over acc^T is skipped in most tiles. A lane that has seen only -inf keeps shift 0, so its
    // weights exp(-inf) are 0. Returns whether a real lane is visible and whether acc^T needs rescaling.
    // Vectors whose every lane keeps its finite reference (the common case once the first tiles have set it)
    // take that step in vector form: shift = the reference, exponent 0.
    LaneSteps StepLanes() {
        LaneSteps steps;
        float* max = Column(kColMax);
        const float* tileMax = Column(kColTileMax);
        float* shift = Column(kColShift);
        float* exponent = Column(kColRescale);
        for (int v = 0; v < width_; v += kW) {
            const V reference = Simd::Load(max + v);
            if (Simd::AllAtLeast(reference, Simd::Set(-__FLT_MAX__)) &&
                Simd::AllAtLeast(Simd::Add(reference, Simd::Set(lazyRescale_)), Simd::Load(tileMax + v))) {
                Simd::Store(shift + v, reference);
                Simd::Store(exponent + v, Simd::Zero());
                steps.visible = true;  // every vector holds a real lane
            } else {
                StepLanes(v, steps);
            }
        }
        return steps;
    }

    // StepLanes for the lanes of vector v, lane by lane.
    void StepLanes(int v, LaneSteps& steps) {
        float* max = Column(kColMax);
        const float* tileMax = Column(kColTileMax);
        float* shift = Column(kColShift);
        float* exponent = Column(kColRescale);
        for (int lane = v; lane < v + kW; ++lane) {
            const float oldMax = max[lane], top = tileMax[lane];
            if (oldMax != oldMax || top != top) {
                max[lane] = shift[lane] = exponent[lane] = oldMax + top;
                steps.rescaled = true;
            } else if (top == kNegInf && oldMax == kNegInf) {
                shift[lane] = exponent[lane] = 0.0f;
                continue;
            } else if (oldMax != kNegInf && top <= oldMax + lazyRescale_) {
                shift[lane] = oldMax;
                exponent[lane] = 0.0f;
            } else {
                max[lane] = shift[lane] = top;
                exponent[lane] = oldMax - top;
                steps.rescaled = steps.rescaled || oldMax != kNegInf;  // at the first visible tile acc is 0
            }
            steps.visible = steps.visible || lane < itemLanes_;
        }
    }

    // acc^T += V^T W over the tile's keys (values_ as LoadValues left them, or by bf16 dot products where
    // values.pairs).
    // A key of weight 0 takes no part, even with a non-finite value (docs/decisions.md): such rows are zeroed
    // for the product and added afterwards lane by lane where the weight is not 0.
    void Accumulate(const TileRows& rows, ValueTile values) {
        const int32_t n = rows.n;
        if (values.pairs) return call_.int8Pairs ? Int16PairAccumulate(rows) : PairAccumulate(rows);
        if (!values.finite) ZeroNonFiniteRows(n);
        OuterProduct<true>(values.rows, 1, call_.dimVPad, call_.headDimV, scoresT_, width_, n, accT_, width_,
                           vectors_);
        if (!values.finite) AddNonFiniteRows(rows, n);
    }

    // acc^T += V^T W by bf16 dot products, two keys per instruction: the values of keys 2p and 2p + 1 as
    // channel pairs (packed by PackSmallBf16Values straight from the cache), the weights as lane pairs (as
    // Softmax left them: rounded to bf16, times the view's shrink). Only for tiles of finite values at most 2
    // in magnitude, where P's rounding keeps the outputs within the precision standard (docs/decisions.md).
    // Each block of channels asks for its share of the next tile's value rows.
    void PairAccumulate(const TileRows& rows) {
        if constexpr (Simd::kBf16Dots) {
            using S = typename DependentSimd<kMasked>::Type;
            const int32_t pairs = (rows.n + 1) / 2;
            const int dimV = call_.headDimV;
            AccumulateByPairs(
                rows, [dimV](int c) { return S::PairPosition(c, dimV); },
                [&](const char* const* channels, int count, float* acc) {
                    S::template PairProduct<true>(channels, int64_t{4} * dimV, count, weightPairs_, width_, pairs,
                                                  acc, width_, vectors_);
                });
        }
    }

    // acc^T += V^T W by `product(channels, count, acc)` over blocks of kChannels channels, channel c's value
    // pairs at valuePairs_ + position(c); each block asks for its share of the next tile's value rows.
    template <class Position, class Product>
    void AccumulateByPairs(const TileRows& rows, Position position, Product product) {
        constexpr int kChannels = 16;  // rows of C per call
        const int dimV = call_.headDimV;
        const KvView& view = call_.value;
        const int64_t head = HeadBytes(view);
        const char* channels[kChannels];
        int32_t requested = 0;
        for (int c0 = 0; c0 < dimV; c0 += kChannels) {
            const int count = dimV - c0 < kChannels ? dimV - c0 : kChannels;
            const auto due = static_cast<int32_t>(int64_t{rows.next} * (c0 + count) / dimV);
            for (; requested < due; ++requested)
                RequestRow(rows.nextValue[requested] + head, int64_t{view.headDim} * view.elementBytes);
            for (int i = 0; i < count; ++i)
                channels[i] = reinterpret_cast<const char*>(valuePairs_ + position(c0 + i));
            product(channels, count, accT_ + int64_t{c0} * width_);
        }
    }

    // acc^T += V^T W for int8 QKV by int16 pair products of the value words (PackInt8Values, channel order)
    // with the weight words (StepPairs), the int32 sums times each lane's output factor.
    void Int16PairAccumulate(const TileRows& rows) {
        if constexpr (Simd::kInt16Pairs) {
            using S = typename DependentSimd<kMasked>::Type;
            const int32_t pairs = (rows.n + 1) / 2;
            const int dimV = call_.headDimV;
            AccumulateByPairs(
                rows, [](int c) { return c; },
                [&](const char* const* channels, int count, float* acc) {
                    S::template Int16PairProduct<true>(channels, int64_t{4} * dimV, count, weightPairs_, width_,
                                                       pairs, Column(kColOutMul), acc, width_, vectors_);
                });
        }
    }

    static bool RowFinite(const float* v, int n) {
        for (int c = 0; c < n; ++c) {
            if (!(v[c] - v[c] == 0.0f)) return false;
        }
        return true;
    }

    void ZeroNonFiniteRows(int32_t n) {
        for (int32_t t = 0; t < n; ++t) {
            float* v = valueRows_ + int64_t{t} * call_.dimVPad;
            if (RowFinite(v, call_.headDimV)) continue;
            nonFinite_[t] = true;
            for (int c = 0; c < call_.headDimV; ++c)
                v[c] = 0.0f;
        }
    }

    // The zeroed rows again, added to the lanes whose weight is not 0.
    void AddNonFiniteRows(const TileRows& rows, int32_t n) {
        for (int32_t t = 0; t < n; ++t) {
            if (!nonFinite_[t]) continue;
            nonFinite_[t] = false;
            float* v = valueRows_ + int64_t{t} * call_.dimVPad;
            ConvertRows(call_.value, items_[item_], rows.value + t, 1, v, call_.dimVPad);
            const float* w = scoresT_ + int64_t{t} * width_;
            for (int lane = 0; lane < itemLanes_; ++lane) {
                if (w[lane] == 0.0f) continue;
                for (int c = 0; c < call_.headDimV; ++c)
                    accT_[int64_t{c} * width_ + lane] += w[lane] * v[c];
            }
        }
    }

    const int vectors_;  // vectors of an item's lanes
    const int width_;    // P: vectors_ * kW
    const float shrinkExponent_;  // value.shrink = 2^shrinkExponent_ (the bf16 P.V adds it to the weights' exponent)
    float* const queryColumns_;  // item 0's query columns, then item 1's ...
    float* const accColumns_;
    float* const laneColumns_;
    float* const scoresT_;   // the selected item's S^T
    uint32_t* valuePairs_;   // bf16PV: [kL1TileKeys / 2, dimVPad]
    uint32_t* weightPairs_;  // bf16PV: [kL1TileKeys / 2, P]
    // The selected item (Select) and its arrays.
    int32_t item_ = 0;
    int lane0_ = 0;  // its first lane in the TaskRunner's arrays
    float* queryT_ = nullptr;
    uint32_t* queryPairs_ = nullptr;
    float* accT_ = nullptr;
    float* fields_ = nullptr;
    bool nonFinite_[kTileKeys] = {};
    float* const kvTiles_;  // the thread's KvTileTag (cachesKvTiles)
    float* const kvTileKeys_;
    float* const kvTileValues_;
    // Where a tile's values are converted: over its keys (keys_), which the tile no longer reads once its S^T
    // is taken, so that the stores land on lines L1 holds rather than on a second array's (cpu:avx2 4-token
    // steps 0.96-0.99x the time); values_ where a tile of values would not fit there.
    float* const valueRows_;
    uint8_t* kvTileStates_ = nullptr;  // OpenKvTiles: the tiles' KvTileStates, null where the task keeps no copy
    // kLazyRescale, or 0 for int8 QKV, whose P quantisation takes the weights against each row's maximum so
    // far (the reference's): the reference then moves with every rise.
    const float lazyRescale_;
    bool queryTransposed_[kMaxGroupLanes / kMinColumnItemLanes] = {};  // Q^T built (InitQueryColumns), per item
};
