// The row-block runner of cpu:amx (attention_amx.cpp's file comment): a task whose lanes fill tiles of rows,
// its blocks of keys through S = Q K^T on tiles, the online softmax in AVX-512 and acc += P V on tiles, and
// the output rows. attention_amx.cpp includes this after amx_rows.inl, inside its anonymous namespace; no
// include guard for that reason. Compiled with that file's AMX and AVX-512 flags: no standard-library template
// is instantiated here (attention_amx.cpp says why).

// Thirty-two weights (`low` then `high`) rounded to bf16 at `to`; adds the rounded values to `total`, summed
// in pairs by the bf16 dot instruction against ones.
V StoreWeights(V low, V high, uint16_t* to, V total) {
    const __m512bh rounded = _mm512_cvtne2ps_pbh(high, low);
    _mm512_storeu_si512(to, __builtin_bit_cast(__m512i, rounded));
    return _mm512_dpbf16_ps(total, rounded, __builtin_bit_cast(__m512bh, _mm512_set1_epi16(0x3F80)));
}

// StepSoftmax (kernels/common/online_softmax.inl) for sixteen lanes at once: their new maxima, the factors
// their l and acc are scaled by, and which of them have a visible logit. l and acc take the same factor, so
// its error reweighs earlier keys against later ones: Exp2Precise's 2^-23 keeps that within fp32 rounding;
// Exp2's 2^-14 moved the output by 2^-14 of the values, beyond the standard's bound where large values
// cancel (values near the bf16 maximum whose weighted sum is some 1e-3 of them).
struct LaneSteps {
    V newMax, rescale;
    __mmask16 visible;
};

LaneSteps StepState(V oldMax, V tileMax) {
    const V negInf = _mm512_set1_ps(kNegInf);
    const __mmask16 nan = _mm512_cmp_ps_mask(oldMax, tileMax, _CMP_UNORD_Q);
    const V newMax = _mm512_max_ps(oldMax, tileMax);
    const __mmask16 hidden =
        _mm512_mask_cmp_ps_mask(static_cast<__mmask16>(~nan), newMax, negInf, _CMP_EQ_OQ);
    // oldMax -inf below a finite newMax: 2^-inf = 0, StepSoftmax's rescale of an empty state.
    V rescale = Simd::Exp2Precise(_mm512_mul_ps(_mm512_sub_ps(oldMax, newMax), _mm512_set1_ps(Simd::kLog2e)));
    rescale = _mm512_mask_mov_ps(rescale, hidden, _mm512_set1_ps(1.0f));
    const V poisoned = _mm512_add_ps(tileMax, oldMax);
    return {_mm512_mask_mov_ps(newMax, nan, poisoned), _mm512_mask_mov_ps(rescale, nan, poisoned),
            static_cast<__mmask16>(~hidden)};
}

// fp32 to bf16, rounded to nearest even (subnormals kept, as plan::StoreElement rounds).
__m256i RoundToBf16(V x) {
    const __m512i bits = _mm512_castps_si512(x);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i rounded =
        _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))), 16);
    rounded =
        _mm512_mask_mov_epi32(rounded, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_set1_epi32(0x7FC0));
    return _mm512_cvtepi32_epi16(rounded);
}

// One lane's output acc / sum; a NaN anywhere in the row makes the whole row NaN (as the AVX-512 kernel).
void StoreRow(const KernelCall& call, int64_t base, const float* acc, float sum) {
    bool nan = sum != sum;
    for (int c = 0; c < call.headDimV && !nan; c += 16) {
        const V x =
            _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << Min(call.headDimV - c, 16)) - 1u), acc + c);
        nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) != 0;
    }
    const float grow = call.outputGrow;
    if (call.outputType != ACL_FLOAT16 && call.outputType != ACL_BF16) {
        for (int c = 0; c < call.headDimV; ++c)
            StoreOutput(call, base + c, nan ? __builtin_nanf("") : acc[c] / sum * grow);
        return;
    }
    auto* out = static_cast<uint16_t*>(call.output) + base;
    // One division per row (grow is a power of two; sum 0 gives 0 * inf = NaN, as 0 / 0).
    const V factor = _mm512_set1_ps(grow / sum);
    for (int c = 0; c < call.headDimV; c += 16) {
        V x = nan ? _mm512_set1_ps(__builtin_nanf("")) : _mm512_mul_ps(_mm512_loadu_ps(acc + c), factor);
        const __m256i half = call.outputType == ACL_FLOAT16
                                 ? _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                                 : RoundToBf16(x);
        const auto mask = static_cast<__mmask16>((1u << Min(call.headDimV - c, 16)) - 1u);
        _mm256_mask_storeu_epi16(out + c, mask, half);
    }
}

// (head, row) lanes of one item of the task. A row block with every head of a group of more than kMaxLanes
// heads has more lanes than kMaxLanes.
int64_t Lanes(const plan::WorkItem& item, const Task& task) {
    return int64_t{item.headCount} * (task.rowEnd - task.rowBegin);
}

template <class TaskType>
bool SpansItems(const TaskType& task) {
    if constexpr (requires { task.itemCount; }) {
        return task.itemCount > 1;
    } else {
        return false;
    }
}

// Whether P may be rounded to bf16: values within KernelCall::bf16WeightReach (fp16 or bf16 outputs; 0.5 to 2
// by the precision standard's eps), where rounding moves an output by at most half the standard's bound
// (docs/decisions.md, "P's bf16 rounding, worst case"). Other blocks keep their weights in fp32.
bool WeightsFitBf16(const KernelCall& call, float largestMagnitude) {
    return largestMagnitude <= call.bf16WeightReach;
}

// Whether tiles take the task's dtypes: fp16 or bf16 queries, keys and values of one dtype, nothing quantised
// or dequantised, and keys to compute.
bool TilesTake(const KernelCall& call, const Task& task) {
    const aclDataType dtype = call.queryType;
    return (dtype == ACL_FLOAT16 || dtype == ACL_BF16) && call.key.dtype == dtype &&
           call.value.dtype == dtype && call.quant == plan::QuantPolicy::Mode::kNone &&
           call.key.scale == nullptr && call.value.scale == nullptr && !call.items[task.item].zeroOutput &&
           task.kvEnd > task.kvBegin;
}

// Whether the row-block runner takes the task: enough lanes per item to fill tiles of rows. The items of a
// task spanning several (the kv heads of a decode step) run side by side.
bool Takes(const KernelCall& call, const Task& task) {
    const int64_t lanes = Lanes(call.items[task.item], task);
    return TilesTake(call, task) && lanes >= kMinLanes && lanes <= kLanePad;
}

// A block of keys a task computes: [j0, j0 + n), `rows` of them padded to whole sub-blocks, block `index` of
// the chunk, its mask classes per item and sub-block, and its score buffer.
struct BlockRef {
    int32_t j0, n;
    int rows, index;
    int slot;  // packed slot: the chunk's block `index`, or for items side by side 2 * item + slot
    plan::TileClass classes[kMaxItems][kBlockKeys / kSubBlock];
    bool visible[kMaxItems];  // every key of the block is visible to the item's rows: no mask term to add
    float* scores;
};

// Runs work(lane) for lanes [0, lanes), a few at each of `steps` calls (TileGemm's between()), the rest at
// Finish().
template <class Work>
class LaneFeed {
  public:
    LaneFeed(Work work, int lanes, int steps)
        : work_(work), lanes_(lanes), perStep_(steps > 0 ? (lanes + steps - 1) / steps : lanes) {}
    void operator()() {
        for (int i = 0; i < perStep_ && next_ < lanes_; ++i)
            work_(next_++);
    }
    void Finish() {
        while (next_ < lanes_)
            work_(next_++);
    }

  private:
    Work work_;
    int next_ = 0;
    const int lanes_, perStep_;
};

class AmxTaskRunner {
  public:
    // Runs items [task.item + firstItem, + itemCount) of the task side by side (itemCount <= MostItems()).
    // Lane p of the runner is lane p % itemPad_ of item p / itemPad_; lanes past an item's own are zero.
    AmxTaskRunner(const KernelCall& call, const Task& task, int firstItem, int itemCount, char* scratch,
                  const AmxLayout& layout, const AmxOptions& options, int slot = 0)
        : call_(call),
          task_(task),
          itemIndex_(task.item + firstItem),
          items_(call.items + itemIndex_),
          item_(items_[0]),
          itemCount_(itemCount),
          l_(layout),
          rows_(task.rowEnd - task.rowBegin),
          itemLanes_(item_.headCount * rows_),
          itemPad_(static_cast<int>(Round(itemLanes_, 2 * kTileRows))),
          lanePad_(itemCount * itemPad_),
          laneBase_(firstItem * itemLanes_),
          mTiles_(itemPad_ / kTileRows),
          splitKeys_(call.key.dtype == ACL_FLOAT16),
          splitValues_(call.value.dtype == ACL_FLOAT16),
          shrinkExponent_(static_cast<float>(__builtin_ilogbf(call.value.shrink))),
          options_(options),
          qHi_(Array<uint16_t>(scratch, l_.qHi + slot * l_.querySlot)),
          qLo_(Array<uint16_t>(scratch, l_.qLo + slot * l_.querySlot)),
          chunk_(Array<ChunkState>(scratch, l_.chunk)),
          chunkKeys_(scratch + l_.chunkKeys),
          chunkValues_(scratch + l_.chunkValues),
          stageHi_(Array<uint16_t>(scratch, l_.stageHi)),
          stageLo_(Array<uint16_t>(scratch, l_.stageLo)),
          weights_(Array<uint16_t>(scratch, l_.weights)),
          scores_(Array<float>(scratch, l_.scores)),
          acc_(Array<float>(scratch, l_.acc + slot * l_.accSlot)),
          razor_(Array<float>(scratch, l_.razor)) {}

    // Blocks are pipelined so that the vector work of one block runs while the matrix unit computes the
    // tile products of another: the weights of block k-1 beside the scores of block k, the logits of block k
    // beside the values of block k-1 (each block's scores have their own buffer).
    // Items a runner takes side by side.
    static int MostItems(int itemLanes) {
        return static_cast<int>(kLanePad / Round(itemLanes, 2 * kTileRows));
    }

    void Run() {
        Start();
        for (int32_t j0 = task_.kvBegin; j0 < task_.kvEnd; j0 += kKvChunk)
            RunKeys(j0, static_cast<int32_t>(Min(task_.kvEnd, j0 + kKvChunk)));
        Finish();
    }

    // The queries, the lanes' scales and an empty softmax state. Start, then RunKeys over the task's keys in
    // order, then Finish; runners of other tasks may run keys on the thread in between (RunInterleaved), each
    // keeping its queries, state and acc in its own slot.
    void Start() {
        LoadQueries();
        Init();
    }

    // Continues the lanes' online softmax over keys [j0, j1), at most one chunk (kKvChunk keys) whose K/V
    // blocks the thread packs once for every task that reads them.
    void RunKeys(int32_t j0, int32_t j1) {
        chunkBegin_ = j0;
        ClaimChunk(j0, j1);
        ConfigureTiles();
        BlockRef blocks[2];
        int started = 0;
        for (int32_t from = j0; from < j1; from += kBlockKeys) {
            BlockRef& block = blocks[started % 2];
            if (!Prepare(from, static_cast<int32_t>(Min(kBlockKeys, j1 - from)), started % 2, block))
                continue;
            if (started == 0) {
                Fill(weights_, lanePad_ * kBlockKeys, uint16_t{0});  // the thread's: lanes past ours stay 0
                Scores(block, [] {});
                for (int lane = 0; lane < lanePad_; ++lane)
                    tileMax_[lane] = LaneLogits(block, lane);
            } else {
                const BlockRef& previous = blocks[(started - 1) % 2];
                StepLanes();
                LaneFeed weigh{[&](int lane) { WeighLane(previous, lane); }, lanePad_, ScoreSteps(block)};
                Scores(block, weigh);
                weigh.Finish();
                LaneFeed logits{[&](int lane) { tileMax_[lane] = LaneLogits(block, lane); }, lanePad_,
                                ValueSteps(previous)};
                Accumulate(previous, logits);
                logits.Finish();
            }
            ++started;
        }
        if (started > 0) {
            const BlockRef& last = blocks[(started - 1) % 2];
            StepLanes();
            for (int lane = 0; lane < lanePad_; ++lane)
                WeighLane(last, lane);
            Accumulate(last, [] {});
        }
        ReleaseTiles();
    }

    void Finish() {
        if (task_.partial < 0) {
            StoreOutputs();
        } else {
            StorePartial();
        }
    }

  private:
    template <class T>
    static T* Array(char* scratch, int64_t offset) {
        return reinterpret_cast<T*>(scratch + offset);
    }
    bool Grouped() const { return itemCount_ > 1; }
    int ItemOf(int lane) const { return lane / itemPad_; }
    int LocalOf(int lane) const { return lane % itemPad_; }
    bool Valid(int lane) const { return LocalOf(lane) < itemLanes_; }
    const plan::WorkItem& WorkItemOf(int lane) const { return items_[ItemOf(lane)]; }
    int64_t HeadOf(int lane) const { return WorkItemOf(lane).headBegin + LocalOf(lane) / rows_; }
    int64_t RowOf(int lane) const { return task_.rowBegin + LocalOf(lane) % rows_; }

    // Queries as stored (no qScale to apply), 32 channels at a time: bf16 rows copied as they are, fp16 rows
    // split; their largest norm taken (WithinTileReach, ScoreProducts, WeighsNothing). Lanes past the task's
    // are zero.
    void LoadStoredQueries() {
        const bool half = call_.queryType == ACL_FLOAT16;
        const __m512i exponent = _mm512_set1_epi16(static_cast<int16_t>(half ? 0x7C00 : 0x7F80));
        PrefetchFirstQueries();
        for (int lane = 0; lane < lanePad_; ++lane) {
            __mmask32 bad = 0;
            uint16_t* hi = qHi_ + lane * l_.d32;
            uint16_t* lo = qLo_ + lane * l_.d32;
            if (!Valid(lane)) {
                Fill(hi, l_.d32, uint16_t{0});
                if (splitKeys_) Fill(lo, l_.d32, uint16_t{0});
                continue;
            }
            if (lane + kPrefetchRows < lanePad_ && Valid(lane + kPrefetchRows))
                PrefetchQuery(lane + kPrefetchRows);
            const auto* q = static_cast<const uint16_t*>(call_.query) + QueryBase(lane);
            V squares = _mm512_setzero_ps();
            for (int64_t c = 0; c < l_.d32; c += 32) {
                const int64_t valid = Max(0, Min(call_.headDim - c, 32));
                const auto mask = static_cast<__mmask32>(valid == 32 ? ~0u : (1u << valid) - 1u);
                const __m512i raw = _mm512_maskz_loadu_epi16(mask, q + c);
                bad |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(raw, exponent), exponent);
                if (!half) {
                    _mm512_storeu_si512(hi + c, raw);
                    const auto pairs = __builtin_bit_cast(__m512bh, raw);
                    squares = _mm512_dpbf16_ps(squares, pairs, pairs);
                    continue;
                }
                for (int h = 0; h < 2; ++h) {
                    const V x = _mm512_cvtph_ps(h == 0 ? _mm512_castsi512_si256(raw)
                                                       : _mm512_extracti64x4_epi64(raw, 1));
                    squares = _mm512_fmadd_ps(x, x, squares);
                    Split(x, hi + c + 16 * h, splitKeys_ ? lo + c + 16 * h : nullptr);
                }
            }
            const float norm = __builtin_sqrtf(_mm512_reduce_add_ps(squares));
            queryNorm_ = norm > queryNorm_ ? norm : queryNorm_;
            MarkNonFinite(lane, bad != 0);
        }
    }

    int64_t QueryBase(int lane) const {
        return WorkItemOf(lane).qOffset + RowOf(lane) * call_.queryRowStride +
               HeadOf(lane) * call_.queryHeadStride;
    }

    // Queries unscaled: exact in bf16 (hi + lo for fp16); the row scale multiplies the fp32 dot. Lanes past
    // the task's are zero. Queries that take qScale first are formed in fp32 here.
    void LoadQueries() {
        if (options_.queriesAsStored) return LoadStoredQueries();
        float* row = scores_;  // fp32 staging of one query row
        PrefetchFirstQueries();
        for (int lane = 0; lane < lanePad_; ++lane) {
            __mmask16 bad = 0;
            if (lane + kPrefetchRows < lanePad_ && Valid(lane + kPrefetchRows))
                PrefetchQuery(lane + kPrefetchRows);
            if (Valid(lane)) {
                LoadQuery(lane, row);
            } else {
                Fill(row, l_.d32, 0.0f);
            }
            V squares = _mm512_setzero_ps();
            for (int64_t c = 0; c < l_.d32; c += 16) {
                const V x = _mm512_loadu_ps(row + c);
                bad |= NonFinite(x);
                squares = _mm512_fmadd_ps(x, x, squares);
                Split(x, qHi_ + lane * l_.d32 + c, splitKeys_ ? qLo_ + lane * l_.d32 + c : nullptr);
            }
            const float norm = __builtin_sqrtf(_mm512_reduce_add_ps(squares));
            queryNorm_ = norm > queryNorm_ ? norm : queryNorm_;
            MarkNonFinite(lane, bad != 0);
        }
    }

    // A lane whose query holds an inf or NaN has its dots computed in fp32 from the exact parts
    // (ExactScores): a tile product of a split infinity would add inf * 0 = NaN where the reference has inf *
    // k.
    void MarkNonFinite(int lane, bool nonFinite) {
        nonFinite_[lane] = nonFinite;
        anyNonFinite_ = anyNonFinite_ || nonFinite;
    }

    // The rows of the lanes the loop's prefetches (kPrefetchRows lanes ahead) do not reach: each lane's row
    // is a few hundred bytes strided by the other heads' rows, which the hardware prefetchers do not follow.
    void PrefetchFirstQueries() const {
        for (int lane = 0; lane < kPrefetchRows && lane < lanePad_; ++lane) {
            if (Valid(lane)) PrefetchQuery(lane);
        }
    }

    void PrefetchQuery(int lane) const {
        const char* q = static_cast<const char*>(call_.query) + QueryBase(lane) * 2;
        for (int64_t at = 0; at < int64_t{call_.headDim} * 2; at += 64)
            __builtin_prefetch(q + at);
    }

    // One lane's query as fp32 [d32], zero past headDim, through QueryElements (which applies and rounds
    // qScale).
    void LoadQuery(int lane, float* row) const {
        QueryElements(call_, QueryBase(lane), call_.headDim, row);
        for (int64_t c = call_.headDim; c < l_.d32; ++c)
            row[c] = 0.0f;
    }

    // logit = (dot * dotMul + razor * razorMul) * postMul, the row scale s in dotMul and razorMul when
    // |s| <= 1, else in postMul (as the AVX-512 kernel).
    void Init() {
        for (int lane = 0; lane < lanePad_; ++lane) {
            max_[lane] = kNegInf;
            sum_[lane] = 0.0f;
            if (!Valid(lane)) continue;
            const auto scale = static_cast<float>(RowScale(call_, WorkItemOf(lane), RowOf(lane)));
            const bool small = scale <= 1.0f && scale >= -1.0f;
            dotMul_[lane] = small ? scale : 1.0f;
            razorMul_[lane] = small ? scale : 1.0f;
            postMul_[lane] = small ? 1.0f : scale;
            const float magnitude = scale < 0.0f ? -scale : scale;
            scaleMax_ = magnitude > scaleMax_ ? magnitude : scaleMax_;
        }
        diagonalNorm_ = call_.skipsBoundedTiles && !Grouped() ? DiagonalKeyNorm() : -1.0f;
        Fill(acc_, lanePad_ * l_.v32, 0.0f);
    }

    // Keys [j0, j0 + n) as a block to compute into score buffer `buffer`: its mask classes, razor offsets and
    // packed K and V. False when the block takes no part (hidden, or provably of weight 0).
    bool Prepare(int32_t j0, int32_t n, int buffer, BlockRef& block) {
        if (HiddenFromAll(j0, n) || WeighsNothing(j0, n)) return false;
        const bool masked = call_.mask != plan::MaskKind::kNone;
        block.j0 = j0;
        block.n = n;
        block.rows = static_cast<int>(Round(n, kSubBlock));
        block.index = (j0 - chunkBegin_) / kBlockKeys;
        block.slot = Grouped() ? buffer : block.index;
        block.scores = scores_ + buffer * kLanePad * kBlockKeys;
        for (int g = 0; g < itemCount_; ++g) {
            block.visible[g] = true;
            for (int b = 0; b < kBlockKeys / kSubBlock; ++b) {
                const int32_t from = j0 + b * kSubBlock;
                const auto to = static_cast<int32_t>(Min(j0 + n, from + kSubBlock));
                block.classes[g][b] = !masked || from >= to ? plan::TileClass::kVisible
                                                            : ClassifyTile(call_, items_[g], task_.rowBegin,
                                                                           task_.rowEnd, from, to);
                block.visible[g] = block.visible[g] && block.classes[g][b] == plan::TileClass::kVisible;
            }
        }
        if (call_.razorOffset != nullptr) LoadRazor(j0, n);
        if (Grouped()) {
            PackItems(block.slot, j0, n, block.rows);
        } else if (!chunk_->packed[block.index]) {
            Pack(block.index, j0, n, block.rows);
        }
        block.n = UsefulKeys(j0, n, block.index);  // packed whole: other row blocks read the rest
        block.rows = static_cast<int>(Round(block.n, kSubBlock));
        return true;
    }

    // Whether every term of keys [j0, j0 + n) is -inf for every item: the keys take no part.
    bool HiddenFromAll(int32_t j0, int32_t n) const {
        if (call_.mask == plan::MaskKind::kNone) return false;
        for (int g = 0; g < itemCount_; ++g) {
            if (ClassifyTile(call_, items_[g], task_.rowBegin, task_.rowEnd, j0, j0 + n) !=
                plan::TileClass::kHidden) {
                return false;
            }
        }
        return true;
    }

    // The largest norm of the keys at the task's rows' own positions (each row's last visible key), or -1
    // when one of them is not finite. Staged through the packing rows, which no block is using yet.
    float DiagonalKeyNorm() const {
        const int64_t first = item_.prefix + task_.rowBegin, last = item_.prefix + task_.rowEnd - 1;
        if (first < item_.kvBegin || last >= item_.kvEnd) return -1.0f;
        float norm = 0.0f;
        for (int64_t j = first; j <= last; j += kBlockKeys) {
            const int n = static_cast<int>(Min(kBlockKeys, last + 1 - j));
            float largest = 0.0f;
            if (StageRows(call_.key, item_, j, n, j + n, n, l_.d32, stageHi_, stageLo_, &largest) ||
                !(largest <= 3e38f)) {
                return -1.0f;
            }
            norm = largest > norm ? largest : norm;
        }
        return norm;
    }

    // True when keys [j0, j0 + n) lie above every row's diagonal (or behind a causal window) and
    // provably weigh exactly 0: each row sees its own position's key, whose logit is at least
    // -s |q| |k_own|, while these keys' logits are at most s |q| |k| and their terms at most
    // KernelCall::hiddenTermGap above the own key's (Cauchy-Schwarz, s the largest |row scale|, 2^-10 of
    // slack for the fp32 dots); when the difference is below -104, e^difference is 0 in fp32 whatever the
    // order of the online softmax, and the keys (finite) would only have added zeros; their values take no
    // part, as keys of weight 0 never do. The result is then the same as when they are computed. Under
    // clamp the difference is also at most clampMax - clampMin (KernelCall::logitSpan; the lesser bound is
    // taken). Only the keys' norms are needed: a block skipped everywhere is never packed.
    bool WeighsNothing(int32_t j0, int32_t n) {
        if (diagonalNorm_ < 0.0f) return false;
        const int64_t firstPos = item_.prefix + task_.rowBegin, lastPos = item_.prefix + task_.rowEnd - 1;
        const bool above = j0 > lastPos;
        const bool behind = options_.window > 0 && j0 + n - 1 <= firstPos - options_.window;
        if (!above && !behind) return false;
        const int block = (j0 - chunkBegin_) / kBlockKeys;
        if (!chunk_->normed[block]) {
            chunk_->keysNonFinite[block] =
                StageKeys(j0, n, static_cast<int>(Round(n, kSubBlock)), &chunk_->keyNorm[block]);
            chunk_->normed[block] = true;
        }
        return MaskedKeysWeighNothing(block);
    }

    // Whether keys of normed block `block` above every row's diagonal (or behind a causal window) weigh
    // exactly 0 (WeighsNothing's bound).
    bool MaskedKeysWeighNothing(int block) const {
        if (diagonalNorm_ < 0.0f || chunk_->keysNonFinite[block]) return false;
        const float reach =
            scaleMax_ * queryNorm_ * (chunk_->keyNorm[block] + diagonalNorm_) * (1.0f + 0x1p-10f);
        if (!(reach < 3e38f)) return false;  // a key or query not finite
        const float span = reach < call_.logitSpan ? reach : call_.logitSpan;
        return span + call_.hiddenTermGap < -104.0f;
    }

    // Keys [j0, j0 + n) of block `block` less those past every row's position where they weigh nothing: a
    // causal mask's -inf terms, or terms MaskedKeysWeighNothing proves so. The diagonal block of a row block
    // then takes products over its visible keys only.
    int32_t UsefulKeys(int32_t j0, int32_t n, int block) const {
        if (!(options_.causal || call_.skipsBoundedTiles) || Grouped()) return n;
        const int64_t lastPos = item_.prefix + task_.rowEnd - 1;
        if (lastPos < j0 || j0 + n - 1 <= lastPos) return n;
        const bool hidden = (options_.causal && options_.maskedValue == kNegInf) || MaskedKeysWeighNothing(block);
        return hidden ? static_cast<int32_t>(lastPos + 1 - j0) : n;
    }

    // Keeps the thread's packed blocks when they are the chunk of keys [j0, j1), else starts it afresh.
    void ClaimChunk(int32_t j0, int32_t j1) {
        ChunkState& c = *chunk_;
        if (Grouped()) {
            c.valid = false;  // the slots will hold the items' current blocks
            return;
        }
        if (c.valid && c.item == itemIndex_ && c.kvBegin == j0 && c.kvEnd == j1) return;
        c.valid = true;
        c.item = itemIndex_;
        c.kvBegin = j0;
        c.kvEnd = j1;
        for (int b = 0; b < kChunkBlocks; ++b)
            c.packed[b] = c.normed[b] = false;
    }

    uint16_t* KeyPart(int block, int part) const {
        return reinterpret_cast<uint16_t*>(chunkKeys_ + (2 * block + part) * l_.keyPart);
    }
    uint16_t* ValuePart(int block, int part) const {
        return reinterpret_cast<uint16_t*>(chunkValues_ + (2 * block + part) * l_.valuePart);
    }

    // Converts block `block` (keys [j0, j0 + n)) of K and V to the B layouts, hi and lo parts.
    void Pack(int block, int32_t j0, int32_t n, int rows) {
        chunk_->keysNonFinite[block] = StageKeys(j0, n, rows, &chunk_->keyNorm[block]);
        PackKeys(stageHi_, rows, l_.d32, KeyPart(block, 0));
        if (splitKeys_) PackKeys(stageLo_, rows, l_.d32, KeyPart(block, 1));
        chunk_->valuesNonFinite[block] = StageValues(j0, n, rows, 0, &chunk_->valueMagnitude[block]);
        PackValues(stageHi_, rows, l_.v32, ValuePart(block, 0));
        if (splitValues_) PackValues(stageLo_, rows, l_.v32, ValuePart(block, 1));
        chunk_->packed[block] = chunk_->normed[block] = true;
    }

    // The block's K and V of every item, each cache slot's rows read in memory order, into slots
    // 2 * item + slot.
    void PackItems(int slot, int32_t j0, int32_t n, int rows) {
        bool nonFinite[kMaxItems];
        float norms[kMaxItems];
        StageItemRows(call_.key, items_, itemCount_, j0, n, task_.kvEnd, rows, l_.d32, stageHi_, stageLo_,
                      l_.stageRows, nonFinite, norms);
        for (int g = 0; g < itemCount_; ++g) {
            chunk_->keysNonFinite[2 * g + slot] = nonFinite[g];
            chunk_->keyNorm[2 * g + slot] = norms[g];
            PackKeys(stageHi_ + g * l_.stageRows, rows, l_.d32, KeyPart(2 * g + slot, 0));
            if (splitKeys_) PackKeys(stageLo_ + g * l_.stageRows, rows, l_.d32, KeyPart(2 * g + slot, 1));
        }
        float magnitude[kMaxItems];
        StageItemRows(call_.value, items_, itemCount_, j0, n, task_.kvEnd, rows, l_.v32, stageHi_, stageLo_,
                      l_.stageRows, nonFinite, nullptr, magnitude);
        for (int g = 0; g < itemCount_; ++g) {
            chunk_->valuesNonFinite[2 * g + slot] = nonFinite[g];
            chunk_->valueMagnitude[2 * g + slot] = magnitude[g];
            PackValues(stageHi_ + g * l_.stageRows, rows, l_.v32, ValuePart(2 * g + slot, 0));
            if (splitValues_)
                PackValues(stageLo_ + g * l_.stageRows, rows, l_.v32, ValuePart(2 * g + slot, 1));
        }
    }

    // The packed slot of item g's block.
    int SlotOf(const BlockRef& block, int g) const { return Grouped() ? 2 * g + block.slot : block.slot; }

    bool StageKeys(int32_t j0, int32_t n, int rows, float* largestNorm = nullptr, int g = 0) {
        return StageRows(call_.key, items_[g], j0, n, task_.kvEnd, rows, l_.d32, stageHi_, stageLo_,
                         largestNorm);
    }
    bool StageValues(int32_t j0, int32_t n, int rows, int g = 0, float* magnitude = nullptr) {
        bool nonFinite = false;
        StageItemRows(call_.value, &items_[g], 1, j0, n, task_.kvEnd, rows, l_.v32, stageHi_, stageLo_, 0,
                      &nonFinite, nullptr, magnitude);
        return nonFinite;
    }

    // Whether item g's weights over the block stay in fp32 (PreciseLaneWeights, PreciseAccumulate): its
    // values hold an inf or NaN, or P rounded to bf16 would not keep the output within the standard.
    bool Precise(const BlockRef& block, int g) const {
        const int slot = SlotOf(block, g);
        return chunk_->valuesNonFinite[slot] || !WeightsFitBf16(call_, chunk_->valueMagnitude[slot]);
    }

    void LoadRazor(int32_t j0, int32_t n) {
        const KvView& key = call_.key;
        for (int32_t t = 0; t < n; ++t) {
            const int64_t j = j0 + t;
            const int64_t block = key.blockTable[item_.kvSequence * key.tableStride + j / key.blockSize];
            razor_[t] = call_.razorOffset[block * call_.razorBlockStride + j % key.blockSize];
        }
    }

    // Tile steps of a block's products (LaneFeed spreads vector work over them).
    int ScoreSteps(const BlockRef& block) const {
        int steps = 0;
        for (int g = 0; g < itemCount_; ++g) {
            steps += TileSteps(ScoreProducts(SlotOf(block, g)), static_cast<int>(l_.d32 / kPairSteps),
                               mTiles_, block.rows / kTileRows);
        }
        return steps;
    }

    // Tile products of a block's scores: one for bf16 keys; for split fp16 ones hi·hi + hi·lo + lo·hi, and
    // lo·lo too where the logits are large. Each lo part is at most 2^-9 of its value, so leaving lo·lo out
    // moves a logit by at most s |q| |k| 2^-18: 2^-12 while s |q| |k| <= kLoLoReach (s the largest |row
    // scale|, |q| the task's largest query norm, |k| the block's largest key norm).
    int ScoreProducts(int slot) const {
        if (!splitKeys_) return 1;
        return LogitReach(slot) <= kLoLoReach ? 3 : 4;
    }
    int ValueSteps(const BlockRef& block) const {
        return itemCount_ * TileSteps(splitValues_ ? 2 : 1, block.rows / kPairSteps, mTiles_,
                                      static_cast<int>(l_.v32 / kTileRows));
    }

    // scores [lanes, rows] = Q K^T (unscaled dots).
    template <class Between>
    void Scores(const BlockRef& block, Between&& between) {
        for (int g = 0; g < itemCount_; ++g)
            ItemScores(block, g, between);
    }

    template <class Between>
    void ItemScores(const BlockRef& block, int g, Between&& between) {
        const int slot = SlotOf(block, g), first = g * itemPad_;
        const bool exact = chunk_->keysNonFinite[slot] || !WithinTileReach(slot);
        if (exact || anyNonFinite_) StageKeys(block.j0, block.n, block.rows, nullptr, g);
        if (exact) {
            for (int lane = first; lane < first + itemPad_; ++lane)
                ExactLaneScores(block, lane);
            return;
        }
        const uint16_t *kHi = KeyPart(slot, 0), *kLo = KeyPart(slot, 1);
        const uint16_t *qHi = qHi_ + first * l_.d32, *qLo = qLo_ + first * l_.d32;
        const Product split[] = {{qHi, kHi}, {qHi, kLo}, {qLo, kHi}, {qLo, kLo}};
        TileGemm(split, ScoreProducts(slot), l_.d32 * 2, kBlockKeys * 4,
                 static_cast<int>(l_.d32 / kPairSteps), mTiles_, block.rows / kTileRows,
                 block.scores + first * kBlockKeys, kBlockKeys * 4, false, between);
        for (int lane = first; lane < first + itemPad_ && anyNonFinite_; ++lane) {
            if (nonFinite_[lane]) ExactLaneScores(block, lane);
        }
    }

    // s |q| |k| of packed slot `slot`: the bound of its logits' magnitude (the largest |row scale|, query
    // norm of the task and key norm of the block).
    float LogitReach(int slot) const { return scaleMax_ * queryNorm_ * chunk_->keyNorm[slot]; }

    // Whether the tiles compute the scores of packed slot `slot` within the precision standard (kTileReach).
    bool WithinTileReach(int slot) const { return LogitReach(slot) <= kTileReach; }

    // One lane's dots from the staged keys of its item, in fp32 from the exact parts (a block with a
    // non-finite key or beyond the tiles' reach, or a lane with a non-finite query).
    void ExactLaneScores(const BlockRef& block, int lane) {
        for (int t = 0; t < block.rows; ++t) {
            V dot = _mm512_setzero_ps();
            for (int64_t c = 0; c < l_.d32; c += 16) {
                const V q = StagedValues(qHi_, qLo_, splitKeys_, lane * l_.d32 + c);
                const V k = StagedValues(stageHi_, stageLo_, splitKeys_, t * l_.d32 + c);
                dot = _mm512_fmadd_ps(q, k, dot);
            }
            block.scores[lane * kBlockKeys + t] = _mm512_reduce_add_ps(dot);
        }
    }

    // Whether the lane's query and its item's keys in the block are finite: a logit that is not finite then
    // comes from a raw dot beyond fp32 (ScaledLaneScores).
    bool InputsFinite(const BlockRef& block, int lane) const {
        return !nonFinite_[lane] && !chunk_->keysNonFinite[SlotOf(block, ItemOf(lane))];
    }

    // One lane's dots times its dotMul (which Logits then takes as 1), from the block's packed keys (their
    // exact parts; the staging rows hold the previous block's values by then) sixteen keys at a time: where
    // the raw dots of finite queries and keys leave fp32 while the scaled ones need not (a small row scale),
    // as the AVX-512 kernel scales the query before its dots. The packed B layout holds keys t's channels 2p
    // and 2p + 1 as the low and high half of dword [p * kBlockKeys + t]; four sums over the channel pairs
    // keep the rounding near ExactLaneScores'.
    void ScaledLaneScores(const BlockRef& block, int lane) {
        const int slot = SlotOf(block, ItemOf(lane));
        const auto* hi = reinterpret_cast<const int32_t*>(KeyPart(slot, 0));
        const auto* lo = reinterpret_cast<const int32_t*>(KeyPart(slot, 1));
        const V dotMul = _mm512_set1_ps(dotMul_[lane]);
        const __m512i highHalf = _mm512_set1_epi32(static_cast<int32_t>(0xFFFF0000u));
        const auto channels = [&](const int32_t* packed, int64_t at, V& even, V& odd) {
            const __m512i pairs = _mm512_loadu_si512(packed + at);
            even = _mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16));
            odd = _mm512_castsi512_ps(_mm512_and_si512(pairs, highHalf));
        };
        for (int t0 = 0; t0 < block.rows; t0 += 16) {
            V sums[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
            for (int64_t c0 = 0; c0 < l_.d32; c0 += 16) {
                alignas(64) float q[16];
                _mm512_store_ps(
                    q, _mm512_mul_ps(StagedValues(qHi_, qLo_, splitKeys_, lane * l_.d32 + c0), dotMul));
                for (int p = 0; p < 8; ++p) {
                    const int64_t at = (c0 / 2 + p) * kBlockKeys + t0;
                    V even, odd;
                    channels(hi, at, even, odd);
                    if (splitKeys_) {
                        V evenLo, oddLo;
                        channels(lo, at, evenLo, oddLo);
                        even = _mm512_add_ps(even, evenLo);  // exact: the parts of one fp16 value
                        odd = _mm512_add_ps(odd, oddLo);
                    }
                    V& sum = sums[p % 4];
                    sum = _mm512_fmadd_ps(_mm512_set1_ps(q[2 * p]), even, sum);
                    sum = _mm512_fmadd_ps(_mm512_set1_ps(q[2 * p + 1]), odd, sum);
                }
            }
            const V total = _mm512_add_ps(_mm512_add_ps(sums[0], sums[1]), _mm512_add_ps(sums[2], sums[3]));
            _mm512_storeu_ps(block.scores + lane * kBlockKeys + t0, total);
        }
    }

    // The online-softmax step of every lane over one block, sixteen lanes at once, from the block's maxima
    // in tileMax_: max_ becomes the new maxima, rescale_ the factors l and acc are scaled by, visible_ which
    // lanes have a visible logit.
    void StepLanes() {
        for (int first = 0; first < lanePad_; first += 16) {
            const LaneSteps step = StepState(_mm512_loadu_ps(max_ + first), _mm512_load_ps(tileMax_ + first));
            _mm512_storeu_ps(max_ + first, step.newMax);
            _mm512_store_ps(rescale_ + first, step.rescale);
            visible_[first / 16] = step.visible;
        }
    }

    // One lane's logits with their mask terms, written over its dots; returns their maximum (NaN when one is
    // NaN).
    float LaneLogits(const BlockRef& block, int lane) {
        if (!Valid(lane)) return kNegInf;
        const int vectors = block.rows / 16;
        V x[kVectors];
        if (Logits(block, lane, x, dotMul_[lane]) != 0 && InputsFinite(block, lane)) {
            ScaledLaneScores(block, lane);
            Logits(block, lane, x, 1.0f);
        }
        if (!block.visible[ItemOf(lane)] || block.n < vectors * 16) MaskLogits(block, lane, x);
        float* s = block.scores + lane * kBlockKeys;
        V top = _mm512_set1_ps(kNegInf);
        __mmask16 nan = 0;
#pragma GCC unroll 8
        for (int i = 0; i < kVectors; ++i) {
            if (i >= vectors) break;
            nan |= _mm512_cmp_ps_mask(x[i], x[i], _CMP_UNORD_Q);
            top = _mm512_max_ps(top, x[i]);
            _mm512_storeu_ps(s + 16 * i, x[i]);
        }
        return nan != 0 ? __builtin_nanf("") : _mm512_reduce_max_ps(top);
    }

    // One lane's weights over a stepped block, times value.shrink and rounded to bf16, in weights_; its acc
    // and l scaled by rescale_ and the rounded weights' sum added to l, so that acc / l weighs the values by
    // exactly the weights used. value.shrink is a power of two: dividing by it is exact.
    void WeighLane(const BlockRef& block, int lane) {
        if (((visible_[lane / 16] >> (lane % 16)) & 1u) == 0) {
            if (Valid(lane)) Fill(weights_ + lane * kBlockKeys, block.rows, uint16_t{0});
            return;
        }
        const float rescale = rescale_[lane];
        const float total = Precise(block, ItemOf(lane))
                                ? PreciseLaneWeights(block, lane, max_[lane], rescale)
                                : LaneWeights(block, lane, max_[lane], rescale);
        sum_[lane] = __builtin_fmaf(sum_[lane], rescale, total / call_.value.shrink);
    }

    // A visible lane's weights in fp32 over its logits in the block's scores, its acc scaled by `rescale`;
    // returns their sum.
    float PreciseLaneWeights(const BlockRef& block, int lane, float newMax, float rescale) {
        const int vectors = block.rows / 16;
        float* s = block.scores + lane * kBlockKeys;
        const V log2e = _mm512_set1_ps(Simd::kLog2e), shift = _mm512_set1_ps(newMax);
        const V shrink = _mm512_set1_ps(shrinkExponent_);
        V total = _mm512_setzero_ps();
        for (int i = 0; i < vectors; ++i) {
            const V w = Simd::Exp2Precise(
                _mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + 16 * i), shift), log2e, shrink));
            _mm512_storeu_ps(s + 16 * i, w);
            total = _mm512_add_ps(total, w);
        }
        RescaleAcc(lane, rescale);
        return _mm512_reduce_add_ps(total);
    }

    void RescaleAcc(int lane, float rescale) {
        if (rescale == 1.0f) return;
        float* acc = acc_ + lane * l_.v32;
        const V r = _mm512_set1_ps(rescale);
        for (int64_t c = 0; c < l_.v32; c += 16)
            _mm512_storeu_ps(acc + c, _mm512_mul_ps(_mm512_loadu_ps(acc + c), r));
    }

    // A visible lane's weights e^(logit - newMax) * value.shrink as bf16 in weights_, its acc scaled by
    // `rescale`; returns the sum of the rounded weights. logit - newMax is formed first: a finite mask value
    // such as -3e38 times log2(e) is beyond fp32.
    float LaneWeights(const BlockRef& block, int lane, float newMax, float rescale) {
        const int vectors = block.rows / 16;
        const float* s = block.scores + lane * kBlockKeys;
        uint16_t* weights = weights_ + lane * kBlockKeys;
        const V log2e = _mm512_set1_ps(Simd::kLog2e), shift = _mm512_set1_ps(newMax);
        const V shrink = _mm512_set1_ps(shrinkExponent_);
        V total = _mm512_setzero_ps();
#pragma GCC unroll 4
        for (int i = 0; i < kVectors; i += 2) {
            if (i >= vectors) break;  // vectors is even: rows are whole sub-blocks of 32 keys
            const V low =
                Simd::Exp2(_mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + 16 * i), shift), log2e, shrink));
            const V high = Simd::Exp2(
                _mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(s + 16 * i + 16), shift), log2e, shrink));
            total = StoreWeights(low, high, weights + 16 * i, total);
        }
        RescaleAcc(lane, rescale);
        return _mm512_reduce_add_ps(total);
    }

    // logit = (dot * dotMul + razor * razorMul) * postMul, clamped; dotMul is the lane's (raw dots) or 1
    // (ScaledLaneScores). Returns which keys of a vector have a logit that is not finite before the clamp.
    __mmask16 Logits(const BlockRef& block, int lane, V* x, float dotMulOfDots) const {
        const int vectors = block.rows / 16;
        const float* s = block.scores + lane * kBlockKeys;
        const V dotMul = _mm512_set1_ps(dotMulOfDots), razorMul = _mm512_set1_ps(razorMul_[lane]);
        const V postMul = _mm512_set1_ps(postMul_[lane]),
                scale = _mm512_set1_ps(dotMulOfDots * postMul_[lane]);
        __mmask16 nonFinite = 0;
#pragma GCC unroll 8
        for (int i = 0; i < kVectors; ++i) {
            if (i >= vectors) break;
            V y = _mm512_loadu_ps(s + 16 * i);
            if (call_.razorOffset != nullptr) {
                y = _mm512_fmadd_ps(y, dotMul, _mm512_mul_ps(_mm512_loadu_ps(razor_ + 16 * i), razorMul));
                y = _mm512_mul_ps(y, postMul);
            } else {
                y = _mm512_mul_ps(y, scale);  // one of dotMul and postMul is 1: the same product
            }
            nonFinite |= NonFinite(y);
            // Operand order keeps a NaN logit NaN (the instructions return the second operand on NaN).
            if (call_.clamp) {
                y = _mm512_min_ps(_mm512_set1_ps(call_.clampMax),
                                  _mm512_max_ps(_mm512_set1_ps(call_.clampMin), y));
            }
            x[i] = y;
        }
        return nonFinite;
    }

    // The mask terms of keys [j0, j0 + n): hidden sub-blocks and keys past n -inf, partial sub-blocks their
    // terms (causal ones by vector compares, tensor masks read by rows in vectors, others through
    // AddMaskTerms).
    void MaskLogits(const BlockRef& block, int lane, V* x) {
        const int32_t j0 = block.j0, n = block.n;
        const int vectors = block.rows / 16;
        const plan::WorkItem& item = WorkItemOf(lane);
        const plan::TileClass* classes = block.classes[ItemOf(lane)];
        const int32_t position = item.prefix + static_cast<int32_t>(RowOf(lane));
        const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i p = _mm512_set1_epi32(position);
        const __m512i behind = _mm512_set1_epi32(position - static_cast<int32_t>(options_.window));
        const V term = _mm512_set1_ps(options_.maskedValue), hiddenTerm = _mm512_set1_ps(kNegInf);
        const bool hideAll = options_.maskedValue == kNegInf;
#pragma GCC unroll 8
        for (int i = 0; i < kVectors; ++i) {
            if (i >= vectors) break;
            const int32_t from = 16 * i;
            const plan::TileClass tile = classes[from / kSubBlock];
            const auto valid = static_cast<__mmask16>(
                n - from >= 16 ? 0xFFFFu : (n - from <= 0 ? 0u : (1u << (n - from)) - 1u));
            if (tile == plan::TileClass::kHidden || valid == 0) {
                x[i] = hiddenTerm;
                continue;
            }
            if (tile == plan::TileClass::kPartial) {
                if (options_.causal) {
                    // CausalMask::Hidden: j > p, or j <= p - window; a -inf term hides whatever the score.
                    const __m512i j = _mm512_add_epi32(_mm512_set1_epi32(j0 + from), iota);
                    __mmask16 hidden = _mm512_cmpgt_epi32_mask(j, p);
                    if (options_.window > 0) hidden |= _mm512_cmple_epi32_mask(j, behind);
                    x[i] = _mm512_mask_mov_ps(x[i], hidden, hideAll ? term : _mm512_add_ps(x[i], term));
                } else if (call_.maskRows.data != nullptr && call_.maskRows.shiftedTileKeys == 0) {
                    x[i] = Simd::AddMaskTerm(x[i], MaskRowTerms(lane, j0 + from, valid));
                } else {
                    float* s = block.scores + lane * kBlockKeys + from;
                    _mm512_storeu_ps(s, x[i]);
                    AddMaskTerms(call_, item, HeadOf(lane), RowOf(lane), j0 + from,
                                 static_cast<int32_t>(Min(n - from, 16)), s);
                    x[i] = _mm512_loadu_ps(s);
                }
            }
            x[i] = _mm512_mask_mov_ps(hiddenTerm, valid, x[i]);
        }
    }

    // The terms of the lane's keys [j, j + 16) in a tensor mask read by rows (KernelCall::maskRows), only
    // those in `valid` read.
    V MaskRowTerms(int lane, int32_t j, __mmask16 valid) const {
        const auto& m = call_.maskRows;
        const int64_t at = m.RowStart(WorkItemOf(lane), HeadOf(lane), RowOf(lane)) + j;
        switch (m.dtype) {
            case ACL_FLOAT16:
                return _mm512_cvtph_ps(
                    _mm256_maskz_loadu_epi16(valid, static_cast<const uint16_t*>(m.data) + at));
            case ACL_BF16:
                return Bf16ToFloat(
                    _mm256_maskz_loadu_epi16(valid, static_cast<const uint16_t*>(m.data) + at));
            default:
                return _mm512_maskz_loadu_ps(valid, static_cast<const float*>(m.data) + at);
        }
    }

    // acc += P V.
    template <class Between>
    void Accumulate(const BlockRef& block, Between&& between) {
        for (int g = 0; g < itemCount_; ++g) {
            const int slot = SlotOf(block, g), first = g * itemPad_;
            if (Precise(block, g)) {
                StageValues(block.j0, block.n, block.rows, g);
                PreciseAccumulate(block, first, first + itemPad_);
                continue;
            }
            const uint16_t *vHi = ValuePart(slot, 0), *vLo = ValuePart(slot, 1);
            const uint16_t* weights = weights_ + first * kBlockKeys;
            const Product bf16[] = {{weights, vHi}};
            const Product split[] = {{weights, vHi}, {weights, vLo}};
            TileGemm(splitValues_ ? split : bf16, splitValues_ ? 2 : 1, kBlockKeys * 2, l_.v32 * 4,
                     block.rows / kPairSteps, mTiles_, static_cast<int>(l_.v32 / kTileRows),
                     acc_ + first * l_.v32, l_.v32 * 4, true, between);
        }
    }

    // acc += P V in fp32 for lanes [from, to) of an item whose weights stay in fp32 (PreciseLaneWeights, in
    // the block's scores), its values staged; keys of weight 0 take no part.
    void PreciseAccumulate(const BlockRef& block, int from, int to) {
        for (int lane = from; lane < to; ++lane) {
            if (!Valid(lane)) continue;
            float* acc = acc_ + lane * l_.v32;
            const float* weights = block.scores + lane * kBlockKeys;
            for (int32_t t = 0; t < block.n; ++t) {
                const float w = weights[t];
                if (w == 0.0f) continue;
                for (int64_t c = 0; c < l_.v32; c += 16) {
                    const V v = StagedValues(stageHi_, stageLo_, splitValues_, t * l_.v32 + c);
                    _mm512_storeu_ps(acc + c,
                                     _mm512_fmadd_ps(_mm512_set1_ps(w), v, _mm512_loadu_ps(acc + c)));
                }
            }
        }
    }

    void StoreOutputs() {
        for (int lane = 0; lane < lanePad_; ++lane) {
            if (!Valid(lane)) continue;
            const int64_t base = WorkItemOf(lane).outOffset + RowOf(lane) * call_.outputRowStride +
                                 HeadOf(lane) * call_.outputHeadStride;
            StoreRow(call_, base, acc_ + lane * l_.v32, sum_[lane]);
        }
    }

    // The AVX-512 kernel's partial state: m[call.lanes], l[call.lanes], acc[call.lanes, dimVPad].
    void StorePartial() {
        float* partial = call_.partials + task_.partial * call_.partialFloats;
        for (int lane = 0; lane < lanePad_; ++lane) {
            if (!Valid(lane)) continue;
            const int at = laneBase_ + ItemOf(lane) * itemLanes_ + LocalOf(lane);  // the lane in the task
            partial[at] = max_[lane];
            partial[call_.lanes + at] = sum_[lane];
            float* to = partial + 2 * call_.lanes + int64_t{at} * call_.dimVPad;
            for (int c = 0; c < call_.dimVPad; ++c)
                to[c] = acc_[lane * l_.v32 + c];
        }
    }

    const KernelCall& call_;
    const Task& task_;
    const int32_t itemIndex_;      // the first item's index in the call
    const plan::WorkItem* items_;  // the items run side by side
    const plan::WorkItem& item_;   // the first of them (the only one but for decode steps)
    const int itemCount_;
    const AmxLayout& l_;
    const int32_t rows_;
    const int itemLanes_;  // an item's (head, row) lanes
    const int itemPad_;    // itemLanes_ rounded up to two tiles of rows
    const int lanePad_;    // the runner's lanes, itemCount_ * itemPad_
    const int
        laneBase_;      // the first item's first lane in the task (partial states are laid out by task lane)
    const int mTiles_;  // row tiles of one item
    const bool splitKeys_, splitValues_;
    const float shrinkExponent_;  // value.shrink = 2^shrinkExponent_
    const AmxOptions& options_;
    uint16_t *qHi_, *qLo_;
    ChunkState* chunk_;
    char *chunkKeys_, *chunkValues_;
    uint16_t *stageHi_, *stageLo_, *weights_;
    float *scores_, *acc_, *razor_;
    int32_t chunkBegin_ = 0;  // the first key of the keys RunKeys is running (block indices count from it)
    float queryNorm_ = 0.0f, scaleMax_ = 0.0f;
    float diagonalNorm_ = -1.0f;  // DiagonalKeyNorm(), or -1: no block is skipped by WeighsNothing
    float dotMul_[kLanePad] = {}, razorMul_[kLanePad] = {}, postMul_[kLanePad] = {};
    alignas(64) float max_[kLanePad] = {}, sum_[kLanePad] = {};
    alignas(64) float tileMax_[kLanePad] = {};  // the maxima of the block being stepped
    alignas(64) float rescale_[kLanePad] = {};
    __mmask16 visible_[kLanePad / 16] = {};
    bool nonFinite_[kLanePad] = {};  // the lane's query holds an inf or NaN
    bool anyNonFinite_ = false;
};
