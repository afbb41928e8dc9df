// Decode tasks of cpu:amx with the lanes as tile columns (attention_amx.cpp includes this after its helpers,
// inside its anonymous namespace; no include guard for that reason).
//
// A decode step has few (head, row) lanes per kv head: 4 to 8 for GQA, 16 for a speculative step of 4
// tokens. The row-block runner pads them to 32 tile rows. Here the keys are the rows instead:
//   S^T [keys, lanes] = K Q^T       A: K's rows [16 keys, 32 channels], bf16 keys read in place from the
//                                   cache (a tile row is a cache row), others staged; B: Q^T pair-interleaved,
//                                   one tile wide (up to 16 lanes), built once per task
//   online softmax across lanes     key t's logits of every lane are one vector: no horizontal reductions
//   acc [lanes, dV] += P V          P^T pair-interleaved and transposed into P [lanes, keys]; V pairs of
//                                   keys interleaved as the row-block runner packs them, bf16 values packed
//                                   straight from the cache
// fp16 operands are split into bf16 hi + lo as in the row-block runner (three products for S, two for P V).
// P goes to the tiles rounded to bf16 only where its values are within KernelCall::bf16WeightReach (fp16 or
// bf16 outputs): rounding moves the output by up to 2^-8 of the weights' mean |value - output|
// (docs/decisions.md, "P's bf16 rounding, worst case"). Other blocks (large values, values holding an inf or
// NaN, fp32 outputs) keep their weights in fp32 (Exp2Precise) and accumulate P V in fp32 vectors, as the
// AVX-512 kernel does.
// A block whose staged keys, or a lane whose query, hold an inf or NaN has its scores computed in fp32 from
// the exact parts. Keys read in place are not checked: unsplit bf16 tile products are the fp32 products,
// infinities and NaNs included (denormal inputs count as zero, a change below 2^-126 |q|). The kv heads of a
// task (kMaxItems at a time) are read slot by slot in memory order.

constexpr int kColumnLanes = 16;    // most lanes per item: one tile's columns
constexpr int kColumnMinLanes = 7;  // fewest lanes per item for which the tiles pay (AmxColumnRunner::Takes)

// The A operands of a column product: the first row of each 16-row tile of A, rows `stride` bytes apart.
struct ATiles {
    const char* tile[kBlockKeys / 16];
    int64_t stride;
};

// C [mTiles * 16, 16] = sum over products of A_i B_i, B one tile wide ([kSteps * 16 pair rows, 16, 2], rows
// of 64 bytes): C tiles 0-3 hold four row tiles (from `first`) at a time, A alternates between tiles 4 and 5,
// B is tile 6.
template <int kTiles>
void ColumnTiles(const ATiles* a, const uint16_t* const* b, int productCount, int first, int kSteps, char* c) {
    ATBX_TILE_ZERO(0);
    ATBX_TILE_ZERO(1);
    if constexpr (kTiles == 4) {
        ATBX_TILE_ZERO(2);
        ATBX_TILE_ZERO(3);
    }
    for (int p = 0; p < productCount; ++p) {
        const char* const* rows = a[p].tile + first;
        const int64_t stride = a[p].stride;
        const auto* bp = reinterpret_cast<const char*>(b[p]);
        for (int s = 0; s < kSteps; ++s) {
            const int64_t at = int64_t{s} * kTileBytes;
            ATBX_TILE_LOAD(6, bp + int64_t{s} * kTileRows * kTileBytes, kTileBytes);
            ATBX_TILE_LOAD(4, rows[0] + at, stride);
            ATBX_TILE_DOT_BF16(0, 4, 6);
            ATBX_TILE_LOAD(5, rows[1] + at, stride);
            ATBX_TILE_DOT_BF16(1, 5, 6);
            if constexpr (kTiles == 4) {
                ATBX_TILE_LOAD(4, rows[2] + at, stride);
                ATBX_TILE_DOT_BF16(2, 4, 6);
                ATBX_TILE_LOAD(5, rows[3] + at, stride);
                ATBX_TILE_DOT_BF16(3, 5, 6);
            }
        }
    }
    ATBX_TILE_STORE(0, c, kTileBytes);
    ATBX_TILE_STORE(1, c + kTileRows * kTileBytes, kTileBytes);
    if constexpr (kTiles == 4) {
        ATBX_TILE_STORE(2, c + 2 * kTileRows * kTileBytes, kTileBytes);
        ATBX_TILE_STORE(3, c + 3 * kTileRows * kTileBytes, kTileBytes);
    }
}

// C [mTiles * 16, 16] fp32 (rows of 64 bytes) = sum of the products A_p B_p; mTiles even.
void ColumnGemm(const ATiles* a, const uint16_t* const* b, int productCount, int kSteps, int mTiles, float* c) {
    for (int mi = 0; mi < mTiles;) {
        char* at = reinterpret_cast<char*>(c) + int64_t{mi} * kTileRows * kTileBytes;
        if (mTiles - mi >= 4) {
            ColumnTiles<4>(a, b, productCount, mi, kSteps, at);
            mi += 4;
        } else {
            ColumnTiles<2>(a, b, productCount, mi, kSteps, at);
            mi += 2;
        }
    }
}

// C [16, nTiles * 16] += sum over products of A_i B_i, A one tile high: C tiles 0-3 hold four column tiles
// at a time, A is tile 4, B alternates between tiles 6 and 7.
template <int kTiles>
void RowTiles(const Product* products, int productCount, int64_t aStride, int64_t bStride, int kSteps, char* c,
              int64_t cStride) {
    ATBX_TILE_LOAD(0, c, cStride);
    ATBX_TILE_LOAD(1, c + kTileBytes, cStride);
    if constexpr (kTiles == 4) {
        ATBX_TILE_LOAD(2, c + 2 * kTileBytes, cStride);
        ATBX_TILE_LOAD(3, c + 3 * kTileBytes, cStride);
    }
    for (int p = 0; p < productCount; ++p) {
        const auto* a = static_cast<const char*>(products[p].a);
        const auto* b = static_cast<const char*>(products[p].b);
        for (int s = 0; s < kSteps; ++s) {
            const char* b0 = b + int64_t{s} * kTileRows * bStride;
            ATBX_TILE_LOAD(4, a + int64_t{s} * kTileBytes, aStride);
            ATBX_TILE_LOAD(6, b0, bStride);
            ATBX_TILE_DOT_BF16(0, 4, 6);
            ATBX_TILE_LOAD(7, b0 + kTileBytes, bStride);
            ATBX_TILE_DOT_BF16(1, 4, 7);
            if constexpr (kTiles == 4) {
                ATBX_TILE_LOAD(6, b0 + 2 * kTileBytes, bStride);
                ATBX_TILE_DOT_BF16(2, 4, 6);
                ATBX_TILE_LOAD(7, b0 + 3 * kTileBytes, bStride);
                ATBX_TILE_DOT_BF16(3, 4, 7);
            }
        }
    }
    ATBX_TILE_STORE(0, c, cStride);
    ATBX_TILE_STORE(1, c + kTileBytes, cStride);
    if constexpr (kTiles == 4) {
        ATBX_TILE_STORE(2, c + 2 * kTileBytes, cStride);
        ATBX_TILE_STORE(3, c + 3 * kTileBytes, cStride);
    }
}

// C [16, nTiles * 16] += the products; nTiles even.
void RowGemm(const Product* products, int productCount, int64_t aStride, int64_t bStride, int kSteps, int nTiles,
             float* c, int64_t cStride) {
    for (int ni = 0; ni < nTiles;) {
        Product shifted[3];
        for (int p = 0; p < productCount; ++p)
            shifted[p] = {products[p].a, static_cast<const char*>(products[p].b) + int64_t{ni} * kTileBytes};
        char* at = reinterpret_cast<char*>(c) + int64_t{ni} * kTileBytes;
        if (nTiles - ni >= 4) {
            RowTiles<4>(shifted, productCount, aStride, bStride, kSteps, at, cStride);
            ni += 4;
        } else {
            RowTiles<2>(shifted, productCount, aStride, bStride, kSteps, at, cStride);
            ni += 2;
        }
    }
}

class AmxColumnRunner {
  public:
    // Decode-shaped tasks whose dtypes tiles take (TilesTake): bf16, 7 to 16 lanes per item, no razor
    // offsets, and no mask but one read by rows (KernelCall::maskRows, not the ALiBi tile's shifted rows).
    // Measured against the AVX-512 kernel (docs/decisions.md, "cpu:amx"): faster for bf16 from 7 lanes
    // (GQA 7, speculative steps), slower for 4 lanes and for fp16, whose split operands double the staging
    // and triple the score products.
    static bool Takes(const KernelCall& call, const Task& task) {
        const int64_t lanes = Lanes(call.items[task.item], task);
        return TilesTake(call, task) && call.key.dtype == ACL_BF16 && lanes >= kColumnMinLanes &&
               lanes <= kColumnLanes && call.razorOffset == nullptr &&
               (call.mask == plan::MaskKind::kNone ||
                (call.maskRows.data != nullptr && call.maskRows.shiftedTileKeys == 0));
    }

    // Runs items [task.item + firstItem, + itemCount) of the task, itemCount <= kMaxItems.
    AmxColumnRunner(const KernelCall& call, const Task& task, int firstItem, int itemCount, char* scratch,
                    const AmxLayout& layout, const AmxOptions& options)
        : call_(call),
          task_(task),
          items_(call.items + task.item + firstItem),
          itemCount_(itemCount),
          l_(layout),
          rows_(task.rowEnd - task.rowBegin),
          lanes_(items_[0].headCount * rows_),
          laneBase_(firstItem * lanes_),
          splitKeys_(call.key.dtype == ACL_FLOAT16),
          splitValues_(call.value.dtype == ACL_FLOAT16),
          directKeys_(call.key.dtype == ACL_BF16 && call.key.channelTile == 0 && call.key.headDim % kPairSteps == 0 &&
                      call.key.blockTable != nullptr && call.key.blockSize % kTileRows == 0),
          packValues_(call.value.dtype == ACL_BF16 && call.value.channelTile == 0 &&
                      call.value.headDim % kPairSteps == 0),
          shrinkExponent_(static_cast<float>(__builtin_ilogbf(call.value.shrink))),
          options_(options),
          queryT_(reinterpret_cast<uint16_t*>(scratch + l_.qHi)),
          queryRows_(reinterpret_cast<float*>(scratch + l_.qLo)),
          values_(scratch + l_.chunkValues),
          stageHi_(reinterpret_cast<uint16_t*>(scratch + l_.stageHi)),
          stageLo_(reinterpret_cast<uint16_t*>(scratch + l_.stageLo)),
          weights_(reinterpret_cast<uint16_t*>(scratch + l_.weights)),
          scores_(reinterpret_cast<float*>(scratch + l_.scores)),
          acc_(reinterpret_cast<float*>(scratch + l_.acc)) {}

    void Run() {
        for (int g = 0; g < itemCount_; ++g)
            LoadQueries(g);
        Fill(acc_, int64_t{itemCount_} * kColumnLanes * l_.v32, 0.0f);
        ConfigureTiles();
        for (int32_t j0 = task_.kvBegin; j0 < task_.kvEnd; j0 += kBlockKeys)
            Block(j0, static_cast<int32_t>(Min(kBlockKeys, task_.kvEnd - j0)));
        ReleaseTiles();
        for (int g = 0; g < itemCount_; ++g)
            Store(g);
    }

  private:
    int64_t HeadOf(int g, int lane) const { return items_[g].headBegin + lane / rows_; }
    int64_t RowOf(int lane) const { return task_.rowBegin + lane % rows_; }
    uint16_t* QueryT(int g, int part) const {
        return queryT_ + (int64_t{2} * g + part) * kColumnLanes * l_.d32;
    }
    float* Scores(int g) const { return scores_ + int64_t{g} * kBlockKeys * kColumnLanes; }
    float* Acc(int g) const { return acc_ + int64_t{g} * kColumnLanes * l_.v32; }
    uint16_t* Weights(int g) const { return weights_ + int64_t{g} * kColumnLanes * kBlockKeys; }
    uint16_t* ValuePart(int g, int part) const {
        return reinterpret_cast<uint16_t*>(values_ + (2 * g + part) * l_.valuePart);
    }

    // Item g's queries: fp32 rows [16, d32] in queryRows_ (zero past the item's lanes), then hi and lo as B
    // tiles of S^T = K Q^T, pair rows [d32 / 2, 16, 2]; the per-lane factors of the logits.
    void LoadQueries(int g) {
        float* rows = queryRows_ + int64_t{g} * kColumnLanes * l_.d32;
        alignas(64) uint16_t hi[kColumnLanes * 32], lo[kColumnLanes * 32];
        nonFiniteQuery_[g] = false;
        for (int lane = 0; lane < kColumnLanes; ++lane) {
            float* row = rows + lane * l_.d32;
            if (lane >= lanes_) {
                Fill(row, l_.d32, 0.0f);
                continue;
            }
            const int64_t base =
                items_[g].qOffset + RowOf(lane) * call_.queryRowStride + HeadOf(g, lane) * call_.queryHeadStride;
            for (int64_t c = 0; c < l_.d32; c += 16) {
                const auto valid = static_cast<__mmask16>((1u << Max(0, Min(call_.headDim - c, 16))) - 1u);
                V x;
                if (!options_.queriesAsStored) {
                    alignas(64) float elements[16] = {};
                    QueryElements(call_, base + c, Max(0, Min(call_.headDim - c, 16)), elements);
                    x = _mm512_load_ps(elements);
                } else {
                    const __m256i raw =
                        _mm256_maskz_loadu_epi16(valid, static_cast<const uint16_t*>(call_.query) + base + c);
                    x = call_.queryType == ACL_FLOAT16 ? _mm512_cvtph_ps(raw) : Bf16ToFloat(raw);
                }
                nonFiniteQuery_[g] = nonFiniteQuery_[g] || NonFinite(x) != 0;
                _mm512_storeu_ps(row + c, x);
            }
            const auto scale = static_cast<float>(RowScale(call_, items_[g], RowOf(lane)));
            const bool small = scale <= 1.0f && scale >= -1.0f;
            dotMul_[g][lane] = small ? scale : 1.0f;
            postMul_[g][lane] = small ? 1.0f : scale;
        }
        // Lane-major bf16 pairs [16 lanes, 16 pairs] per 32 channels, transposed into [16 pairs, 16 lanes].
        for (int64_t c0 = 0; c0 < l_.d32; c0 += 32) {
            for (int lane = 0; lane < kColumnLanes; ++lane) {
                for (int h = 0; h < 2; ++h) {
                    Split(_mm512_loadu_ps(rows + lane * l_.d32 + c0 + 16 * h), hi + lane * 32 + 16 * h,
                          splitKeys_ ? lo + lane * 32 + 16 * h : nullptr);
                }
            }
            Transpose16(reinterpret_cast<const char*>(hi), 64,
                        reinterpret_cast<char*>(QueryT(g, 0) + c0 * kColumnLanes), kTileBytes);
            if (splitKeys_) {
                Transpose16(reinterpret_cast<const char*>(lo), 64,
                            reinterpret_cast<char*>(QueryT(g, 1) + c0 * kColumnLanes), kTileBytes);
            }
        }
        for (int lane = 0; lane < kColumnLanes; ++lane) {
            max_[g][lane] = kNegInf;
            sum_[g][lane] = 0.0f;
        }
    }

    // Keys [j0, j0 + n): every item's scores, then every item's values, each read slot by slot.
    void Block(int32_t j0, int32_t n) {
        const int rows = static_cast<int>(Round(n, kSubBlock));
        bool nonFinite[kMaxItems] = {};
        float magnitude[kMaxItems];
        const bool direct = DirectKeys(j0);
        if (!direct) {
            StageItemRows(call_.key, items_, itemCount_, j0, n, task_.kvEnd, rows, l_.d32, stageHi_, stageLo_,
                          l_.stageRows, nonFinite);
        }
        for (int g = 0; g < itemCount_; ++g) {
            const bool exact = nonFinite[g] || nonFiniteQuery_[g];
            if (direct && exact) StageItem(call_.key, g, j0, n, rows, l_.d32);
            ItemScores(g, j0, n, rows, direct, exact);
        }
        if (packValues_) {
            PackCacheValues(j0, n, rows, nonFinite, magnitude);
        } else {
            StageItemRows(call_.value, items_, itemCount_, j0, n, task_.kvEnd, rows, l_.v32, stageHi_, stageLo_,
                          l_.stageRows, nonFinite, nullptr, magnitude);
        }
        for (int g = 0; g < itemCount_; ++g) {
            const bool tiles = WeightsFitBf16(call_, magnitude[g]) && !nonFinite[g];
            Softmax(g, j0, n, rows, tiles);
            if (!tiles) {
                if (packValues_) StageItem(call_.value, g, j0, n, rows, l_.v32);
                PreciseAccumulate(g, n);
                continue;
            }
            if (!packValues_) {
                PackValues(stageHi_ + g * l_.stageRows, rows, l_.v32, ValuePart(g, 0));
                if (splitValues_) PackValues(stageLo_ + g * l_.stageRows, rows, l_.v32, ValuePart(g, 1));
            }
            const Product bf16[] = {{Weights(g), ValuePart(g, 0)}};
            const Product split[] = {{Weights(g), ValuePart(g, 0)}, {Weights(g), ValuePart(g, 1)}};
            RowGemm(splitValues_ ? split : bf16, splitValues_ ? 2 : 1, kBlockKeys * 2, l_.v32 * 4, rows / kPairSteps,
                    static_cast<int>(l_.v32 / kTileRows), Acc(g), l_.v32 * 4);
        }
    }

    // Item g's rows [j0, j0 + n) of `kv` staged at its stage region, for the fp32 paths when the block was read
    // in place.
    void StageItem(const KvView& kv, int g, int32_t j0, int32_t n, int rows, int64_t width) {
        StageRows(kv, items_[g], j0, n, task_.kvEnd, rows, width, stageHi_ + g * l_.stageRows,
                  stageLo_ + g * l_.stageRows);
    }

    // Every item's values [j0, j0 + n) packed from the cache into V's B tiles (packValues_): pairs of keys
    // [rows / 2, v32, 2], zero for keys [n, rows), two slots at a time in memory order; nonFinite[g] and
    // magnitude[g] as StageItemRows gives them.
    void PackCacheValues(int32_t j0, int32_t n, int rows, bool* nonFinite, float* magnitude) {
        const KvView& kv = call_.value;
        const auto* base = static_cast<const uint16_t*>(kv.data);
        SlotCursor at(kv, items_[0].kvSequence, j0);
        SlotCursor ahead(kv, items_[0].kvSequence, Min(j0 + kPrefetchRows, task_.kvEnd - 1));
        const __m512i exponent = _mm512_set1_epi16(0x7F80), magnitudeBits = _mm512_set1_epi16(0x7FFF);
        const __m512i low = PairInterleave(0), high = PairInterleave(16);
        RowStats stats[kMaxItems];
        for (int t = 0; t < rows; t += 2) {
            const uint16_t* slots[2] = {nullptr, nullptr};
            for (int k = 0; k < 2; ++k) {
                if (t + k >= n) continue;
                slots[k] = base + at.offset();
                at.Next();
                if (j0 + t + k + kPrefetchRows < task_.kvEnd) {
                    for (int g = 0; g < itemCount_; ++g)
                        PrefetchRow(kv, ahead.offset() + items_[g].kvHead * kv.headStride);
                    ahead.Next();
                }
            }
            for (int g = 0; g < itemCount_; ++g) {
                const int64_t head = items_[g].kvHead * kv.headStride;
                uint16_t* out = ValuePart(g, 0) + int64_t{t} * l_.v32;
                for (int64_t c0 = 0; c0 < l_.v32; c0 += 32) {
                    const __m512i even = slots[0] != nullptr ? _mm512_loadu_si512(slots[0] + head + c0) : _mm512_setzero_si512();
                    const __m512i odd = slots[1] != nullptr ? _mm512_loadu_si512(slots[1] + head + c0) : _mm512_setzero_si512();
                    stats[g].bad |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(even, exponent), exponent) |
                                    _mm512_cmpeq_epi16_mask(_mm512_and_si512(odd, exponent), exponent);
                    stats[g].bf16Bits =
                        _mm512_max_epu16(stats[g].bf16Bits, _mm512_max_epu16(_mm512_and_si512(even, magnitudeBits),
                                                                             _mm512_and_si512(odd, magnitudeBits)));
                    _mm512_storeu_si512(out + 2 * c0, _mm512_permutex2var_epi16(even, low, odd));
                    _mm512_storeu_si512(out + 2 * c0 + 32, _mm512_permutex2var_epi16(even, high, odd));
                }
            }
        }
        for (int g = 0; g < itemCount_; ++g) {
            nonFinite[g] = stats[g].bad != 0;
            magnitude[g] = stats[g].LargestMagnitude();
        }
    }

    // S^T [rows, 16] = K Q^T for item g (staged keys at stage region g).
    void ItemScores(int g, int32_t j0, int32_t n, int rows, bool direct, bool exact) {
        const uint16_t *kHi = stageHi_ + g * l_.stageRows, *kLo = stageLo_ + g * l_.stageRows;
        if (exact) return ExactScores(g, rows, kHi, kLo, false);
        const int tiles = rows / kTileRows;
        ATiles a[3];
        a[0] = direct ? CacheTiles(g, j0, n, tiles) : StagedTiles(kHi, tiles);
        if (splitKeys_) {
            a[1] = a[0];
            a[2] = StagedTiles(kLo, tiles);
        }
        const uint16_t* b[] = {QueryT(g, 0), QueryT(g, 1), QueryT(g, 0)};
        ColumnGemm(a, b, splitKeys_ ? 3 : 1, static_cast<int>(l_.d32 / kPairSteps), tiles, Scores(g));
    }

    // Whether the block of keys from j0 is read as A tiles in place, from the cache (directKeys_): every
    // 16-key tile then lies in one cache block.
    bool DirectKeys(int32_t j0) const { return directKeys_ && j0 % kTileRows == 0; }

    ATiles StagedTiles(const uint16_t* rows, int tiles) const {
        ATiles a;
        a.stride = l_.d32 * 2;
        for (int i = 0; i < tiles; ++i)
            a.tile[i] = reinterpret_cast<const char*>(rows + int64_t{i} * kTileRows * l_.d32);
        return a;
    }

    // Item g's keys [j0, j0 + 16 tiles) in the cache: tile i from key j0 + 16 i, inside one cache block, its
    // rows that are past the n keys inside that block too. Tiles wholly past them repeat the first: their
    // scores are never read (Softmax).
    ATiles CacheTiles(int g, int32_t j0, int32_t n, int tiles) const {
        const KvView& kv = call_.key;
        const int32_t* table = kv.blockTable + items_[g].kvSequence * kv.tableStride;
        const int64_t head = items_[g].kvHead * kv.headStride;
        ATiles a;
        a.stride = kv.slotStride * 2;
        for (int i = 0; i < tiles; ++i) {
            const int64_t j = j0 + (i * kTileRows < n ? i * kTileRows : 0);
            const int64_t offset = table[j / kv.blockSize] * kv.blockStride + j % kv.blockSize * kv.slotStride + head;
            a.tile[i] = static_cast<const char*>(kv.data) + offset * 2;
        }
        return a;
    }

    // The same dots in fp32: queries as loaded (times each lane's dotMul where `scaled`), keys hi + lo.
    void ExactScores(int g, int rows, const uint16_t* kHi, const uint16_t* kLo, bool scaled) {
        const float* queries = queryRows_ + int64_t{g} * kColumnLanes * l_.d32;
        for (int t = 0; t < rows; ++t) {
            for (int lane = 0; lane < kColumnLanes; ++lane) {
                const V factor = _mm512_set1_ps(scaled ? dotMul_[g][lane] : 1.0f);
                V dot = _mm512_setzero_ps();
                for (int64_t c = 0; c < l_.d32; c += 16) {
                    const V q = _mm512_mul_ps(_mm512_loadu_ps(queries + lane * l_.d32 + c), factor);
                    dot = _mm512_fmadd_ps(q, StagedValues(kHi, kLo, splitKeys_, t * l_.d32 + c), dot);
                }
                Scores(g)[t * kColumnLanes + lane] = _mm512_reduce_add_ps(dot);
            }
        }
    }

    // Item g's logits, online-softmax step and weights over the block, the lanes in one vector: P^T
    // pair-interleaved [rows / 2, 16, 2], then transposed into P [16, kBlockKeys] (Weights(g)); sum_ gains the
    // rounded weights, acc rows are rescaled.
    void Softmax(int g, int32_t j0, int32_t n, int rows, bool tiles) {
        const V dotMul = _mm512_loadu_ps(dotMul_[g]), postMul = _mm512_loadu_ps(postMul_[g]);
        V top;
        if (Logits(g, j0, n, rows, _mm512_mul_ps(dotMul, postMul), top) != 0) {
            ScaledScores(g, j0, n, rows);
            Logits(g, j0, n, rows, postMul, top);
        }
        const LaneSteps step = StepState(_mm512_loadu_ps(max_[g]), top);
        _mm512_storeu_ps(max_[g], step.newMax);
        if (tiles) {
            Weigh(g, rows, step);
        } else {
            WeighPrecisely(g, rows, step);
        }
        const V total = _mm512_div_ps(weightSum_, _mm512_set1_ps(call_.value.shrink));
        _mm512_storeu_ps(sum_[g], _mm512_fmadd_ps(_mm512_loadu_ps(sum_[g]), step.rescale, total));
        alignas(64) float rescale[kColumnLanes];
        _mm512_store_ps(rescale, step.rescale);
        for (int lane = 0; lane < lanes_; ++lane) {
            if (rescale[lane] == 1.0f) continue;
            float* acc = Acc(g) + lane * l_.v32;
            const V r = _mm512_set1_ps(rescale[lane]);
            for (int64_t c = 0; c < l_.v32; c += 16)
                _mm512_storeu_ps(acc + c, _mm512_mul_ps(_mm512_loadu_ps(acc + c), r));
        }
    }

    // Item g's dots over the block again in fp32, each lane's query times its dotMul (Logits then takes the
    // dots' factor as the lane's postMul alone): where a raw dot of finite parts left fp32 while the scaled
    // one need not (a small row scale), as the AVX-512 kernel scales the query before its dots. Stages the
    // keys over the item's staged values, which are staged again. Rare: Logits found a logit that is not
    // finite, which keys or queries that are not finite also give, with the same result here.
    void ScaledScores(int g, int32_t j0, int32_t n, int rows) {
        StageItem(call_.key, g, j0, n, rows, l_.d32);
        ExactScores(g, rows, stageHi_ + g * l_.stageRows, stageLo_ + g * l_.stageRows, true);
        if (!packValues_) StageItem(call_.value, g, j0, n, rows, l_.v32);
    }

    // Item g's logits over the block from its dots times `scale` (clamped, with their mask terms; -inf past
    // n and for lanes past the item's), written over them, each lane's largest in `top` (NaN where one is
    // NaN). Returns the lanes with a product dot * scale that is not finite.
    __mmask16 Logits(int g, int32_t j0, int32_t n, int rows, V scale, V& top) {
        float* s = Scores(g);
        alignas(64) float terms[kColumnLanes * kColumnLanes];
        top = _mm512_set1_ps(kNegInf);
        __mmask16 nan = 0, nonFinite = 0;
        for (int t = 0; t < rows; ++t) {
            V y = _mm512_mul_ps(_mm512_loadu_ps(s + t * kColumnLanes), scale);
            if (t < n) nonFinite |= NonFinite(y);
            if (call_.clamp) {
                y = _mm512_min_ps(_mm512_set1_ps(call_.clampMax), _mm512_max_ps(_mm512_set1_ps(call_.clampMin), y));
            }
            if (t >= n) {
                y = _mm512_set1_ps(kNegInf);
            } else if (call_.maskRows.data != nullptr) {
                if (t % kColumnLanes == 0) MaskTerms(g, j0 + t, static_cast<int>(Min(n - t, kColumnLanes)), terms);
                y = Simd::AddMaskTerm(y, _mm512_load_ps(terms + (t % kColumnLanes) * kColumnLanes));
            }
            y = _mm512_mask_mov_ps(_mm512_set1_ps(kNegInf), Active(), y);
            nan |= _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
            top = _mm512_max_ps(top, y);
            _mm512_storeu_ps(s + t * kColumnLanes, y);
        }
        top = _mm512_mask_mov_ps(top, nan, _mm512_set1_ps(__builtin_nanf("")));
        return static_cast<__mmask16>(nonFinite & Active());
    }

    __mmask16 Active() const { return static_cast<__mmask16>((1u << lanes_) - 1u); }

    // The weights of keys t, t + 1 interleaved per lane as bf16 pairs (zero where a lane sees nothing), their
    // sum per lane in weightSum_; then P [16, rows] by transposing 16 pair rows at a time.
    void Weigh(int g, int rows, const LaneSteps& step) {
        const float* s = Scores(g);
        alignas(64) uint16_t pairs[kBlockKeys / 2 * kColumnLanes * 2];
        const V log2e = _mm512_set1_ps(Simd::kLog2e), shrink = _mm512_set1_ps(shrinkExponent_);
        V total = _mm512_setzero_ps();
        for (int t = 0; t < rows; t += 2) {
            const V low = _mm512_maskz_mov_ps(
                step.visible,
                Simd::Exp2(_mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + t * kColumnLanes), step.newMax), log2e, shrink)));
            const V high = _mm512_maskz_mov_ps(
                step.visible, Simd::Exp2(_mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + (t + 1) * kColumnLanes), step.newMax),
                                                   log2e, shrink)));
            _mm512_store_si512(pairs + t * kColumnLanes, Simd::WeightPairs(low, high, total));
        }
        weightSum_ = total;
        for (int t = 0; t < rows; t += 32) {
            Transpose16(reinterpret_cast<const char*>(pairs + t * kColumnLanes), kTileBytes,
                        reinterpret_cast<char*>(Weights(g) + t), kBlockKeys * 2);
        }
    }

    // The weights in fp32 over the logits [rows, 16] (zero where a lane sees nothing), their sum per lane in
    // weightSum_.
    void WeighPrecisely(int g, int rows, const LaneSteps& step) {
        float* s = Scores(g);
        const V log2e = _mm512_set1_ps(Simd::kLog2e), shrink = _mm512_set1_ps(shrinkExponent_);
        V total = _mm512_setzero_ps();
        for (int t = 0; t < rows; ++t) {
            const V y =
                _mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + t * kColumnLanes), step.newMax), log2e, shrink);
            const V w = _mm512_maskz_mov_ps(step.visible, Simd::Exp2Precise(y));
            _mm512_storeu_ps(s + t * kColumnLanes, w);
            total = _mm512_add_ps(total, w);
        }
        weightSum_ = total;
    }

    // terms[t * 16 + lane]: the mask terms of keys [j, j + count) of item g's lanes (KernelCall::maskRows),
    // read a lane's row at a time and transposed.
    void MaskTerms(int g, int32_t j, int count, float* terms) const {
        const auto& m = call_.maskRows;
        alignas(64) float rows[kColumnLanes * kColumnLanes] = {};
        const auto valid = static_cast<__mmask16>((1u << count) - 1u);
        for (int lane = 0; lane < lanes_; ++lane) {
            const int64_t at = m.RowStart(items_[g], HeadOf(g, lane), RowOf(lane)) + j;
            V x;
            switch (m.dtype) {
                case ACL_FLOAT16:
                    x = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(valid, static_cast<const uint16_t*>(m.data) + at));
                    break;
                case ACL_BF16:
                    x = Bf16ToFloat(_mm256_maskz_loadu_epi16(valid, static_cast<const uint16_t*>(m.data) + at));
                    break;
                default:
                    x = _mm512_maskz_loadu_ps(valid, static_cast<const float*>(m.data) + at);
            }
            _mm512_store_ps(rows + lane * kColumnLanes, x);
        }
        Transpose16(reinterpret_cast<const char*>(rows), 64, reinterpret_cast<char*>(terms), 64);
    }

    // acc += P V in fp32 from WeighPrecisely's weights and item g's staged values (stage region g); keys of
    // weight 0 take no part.
    void PreciseAccumulate(int g, int32_t n) {
        const uint16_t *hi = stageHi_ + g * l_.stageRows, *lo = stageLo_ + g * l_.stageRows;
        const float* weights = Scores(g);
        for (int lane = 0; lane < lanes_; ++lane) {
            float* acc = Acc(g) + lane * l_.v32;
            for (int32_t t = 0; t < n; ++t) {
                const float w = weights[t * kColumnLanes + lane];
                if (w == 0.0f) continue;
                for (int64_t c = 0; c < l_.v32; c += 16) {
                    const V v = StagedValues(hi, lo, splitValues_, t * l_.v32 + c);
                    _mm512_storeu_ps(acc + c, _mm512_fmadd_ps(_mm512_set1_ps(w), v, _mm512_loadu_ps(acc + c)));
                }
            }
        }
    }

    // Item g's outputs, or its lanes of the task's partial state (the AVX-512 kernel's layout).
    void Store(int g) {
        if (task_.partial < 0) {
            for (int lane = 0; lane < lanes_; ++lane) {
                const int64_t base = items_[g].outOffset + RowOf(lane) * call_.outputRowStride +
                                     HeadOf(g, lane) * call_.outputHeadStride;
                StoreRow(call_, base, Acc(g) + lane * l_.v32, sum_[g][lane]);
            }
            return;
        }
        float* partial = call_.partials + task_.partial * call_.partialFloats;
        for (int lane = 0; lane < lanes_; ++lane) {
            const int at = laneBase_ + g * lanes_ + lane;
            partial[at] = max_[g][lane];
            partial[call_.lanes + at] = sum_[g][lane];
            float* to = partial + 2 * call_.lanes + int64_t{at} * call_.dimVPad;
            for (int c = 0; c < call_.dimVPad; ++c)
                to[c] = Acc(g)[lane * l_.v32 + c];
        }
    }

    const KernelCall& call_;
    const Task& task_;
    const plan::WorkItem* items_;
    const int itemCount_;
    const AmxLayout& l_;
    const int32_t rows_;
    const int lanes_;     // lanes of one item, at most 16
    const int laneBase_;  // the first item's first lane in the task
    const bool splitKeys_, splitValues_;
    // bf16 keys read as A tiles in place: channels contiguous and a whole number of pair steps (no channel of
    // another head in a tile row), paged in blocks of whole tiles (CacheTiles).
    const bool directKeys_;
    // bf16 values packed into B tiles straight from the cache (PackCacheValues): channels contiguous and a
    // whole number of pair steps.
    const bool packValues_;
    const float shrinkExponent_;  // value.shrink = 2^shrinkExponent_
    const AmxOptions& options_;
    // The row-block runner's scratch (AmxLayout) holds these for kMaxItems items.
    uint16_t* queryT_;  // per item, hi then lo: bf16 pairs [d32 / 2, 16, 2] (the qHi array)
    float* queryRows_;  // per item: fp32 [16, d32] the queries as loaded (the qLo array)
    char* values_;      // per item, hi then lo: V's B tiles of the block (packed slots 2 * item + part)
    uint16_t *stageHi_, *stageLo_, *weights_;
    float* scores_;  // per item: fp32 [kBlockKeys, 16] S^T, then logits
    float* acc_;     // per item: fp32 [16, v32]
    V weightSum_ = _mm512_setzero_ps();
    bool nonFiniteQuery_[kMaxItems] = {};
    alignas(64) float dotMul_[kMaxItems][kColumnLanes] = {}, postMul_[kMaxItems][kColumnLanes] = {};
    alignas(64) float max_[kMaxItems][kColumnLanes] = {}, sum_[kMaxItems][kColumnLanes] = {};
};
