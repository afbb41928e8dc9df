// Cache rows into bf16 tile operands for cpu:amx: conversions between fp32 and bf16 (fp16 split into bf16 hi +
// lo), row staging slot by slot with its requests and statistics (non-finite elements, norms, magnitudes),
// and the packing of staged rows into the B layouts of S = Q K^T and acc += P V. attention_amx.cpp includes
// this after its layout, inside its anonymous namespace; no include guard for that reason. Compiled with that
// file's AMX and AVX-512 flags: no standard-library template is instantiated here (attention_amx.cpp says why).

V Bf16ToFloat(__m256i bf16) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bf16), 16));
}

__m256i FloatToBf16(V x) {
    return __builtin_bit_cast(__m256i, _mm512_cvtneps_pbh(x));
}

__mmask16 NonFinite(V x) {
    return _mm512_fpclass_ps_mask(x, 0x99);  // QNaN, SNaN, +inf, -inf
}

// Sixteen staged elements at `at` in fp32: hi, plus lo where the operand was split (the exact value).
V StagedValues(const uint16_t* hi, const uint16_t* lo, bool split, int64_t at) {
    const V h = Bf16ToFloat(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi + at)));
    if (!split) return h;
    return _mm512_add_ps(h, Bf16ToFloat(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo + at))));
}

// Sixteen fp32 values as bf16 hi (and lo = x - hi, exact for fp16 and for anything bf16 represents in two
// parts; 0 where x is not finite, so that hi carries the infinity or NaN alone).
void Split(V x, uint16_t* hi, uint16_t* lo) {
    const __m256i h = FloatToBf16(x);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi), h);
    if (lo == nullptr) return;
    const V rest = _mm512_maskz_sub_ps(static_cast<__mmask16>(~NonFinite(x)), x, Bf16ToFloat(h));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo), FloatToBf16(rest));
}

// Cache rows are a few hundred bytes strided by the other heads' rows: each is requested kPrefetchRows rows
// ahead (up to the task's last key), as the hardware prefetcher does not run that far.
constexpr int kPrefetchRows = 32;

// The element offset of kv head 0's channel 0 in the slots of one sequence's keys j, j + 1, ...: one block
// table lookup per cache block rather than a division per key.
class SlotCursor {
  public:
    SlotCursor(const KvView& kv, int64_t sequence, int64_t j) : kv_(kv), sequence_(sequence), j_(j) {
        Seek();
    }
    int64_t offset() const { return offset_; }
    void Next() {
        ++j_;
        if (kv_.blockTable != nullptr && ++slot_ == kv_.blockSize) return Seek();
        offset_ += kv_.slotStride;
    }

  private:
    void Seek() {
        if (kv_.blockTable == nullptr) {
            offset_ = sequence_ * kv_.sequenceStride + j_ * kv_.slotStride;
            return;
        }
        slot_ = j_ % kv_.blockSize;
        const int64_t block = kv_.blockTable[sequence_ * kv_.tableStride + j_ / kv_.blockSize];
        offset_ = block * kv_.blockStride + slot_ * kv_.slotStride;
    }

    const KvView& kv_;
    const int64_t sequence_;
    int64_t j_, slot_ = 0, offset_ = 0;
};

void PrefetchRow(const KvView& kv, int64_t offset) {
    const char* row = static_cast<const char*>(kv.data) + offset * 2;
    for (int64_t at = 0; at < int64_t{kv.headDim} * 2; at += 64)
        __builtin_prefetch(row + at, 0, 2);  // into L2: rows far ahead would fill the L1 miss buffers
}

// What staging gathers of the rows it stages.
struct RowStats {
    __mmask32 bad = 0;                          // elements that are not finite
    float largestSquares = 0.0f;                // the largest squared row norm (kNorm)
    V magnitude = _mm512_setzero_ps();          // the largest |element| of fp16 rows (kMagnitude)
    __m512i bf16Bits = _mm512_setzero_si512();  // the largest |element| of bf16 rows, as bits (kMagnitude)

    float LargestMagnitude() const {
        const auto bits = static_cast<uint32_t>(_mm512_reduce_max_epu32(_mm512_max_epu32(
            _mm512_and_si512(bf16Bits, _mm512_set1_epi32(0xFFFF)), _mm512_srli_epi32(bf16Bits, 16))));
        const float bf16 = __builtin_bit_cast(float, bits << 16);
        const float half = _mm512_reduce_max_ps(magnitude);
        return bf16 > half ? bf16 : half;
    }
};

// The cache row at element `offset` (channel 0) of an fp16 or bf16 cache as a bf16 row of `width` elements
// (zero past headDim) at hi, split into hi and lo for fp16 (lo unused for bf16), gathering `stats`.
// bf16 rows with contiguous channels are copied 32 channels at a time and checked on their bits; the rest
// are converted 16 channels at a time (FRACTAL_NZ tiles are multiples of 16 channels: CallRefusal).
template <bool kHalf, bool kNorm, bool kMagnitude>
void StageRow(const KvView& kv, int64_t offset, int64_t width, uint16_t* hi, uint16_t* lo, RowStats& stats) {
    const char* row = static_cast<const char*>(kv.data) + offset * 2;
    if (!kHalf && kv.channelTile == 0) {
        const __m512i exponent = _mm512_set1_epi16(0x7F80);
        V squares = _mm512_setzero_ps();
        for (int64_t c0 = 0; c0 < width; c0 += 32) {
            const int64_t valid = Max(0, Min(kv.headDim - c0, 32));
            const auto mask = static_cast<__mmask32>(valid == 32 ? ~0u : (1u << valid) - 1u);
            const __m512i raw = _mm512_maskz_loadu_epi16(mask, row + c0 * 2);
            _mm512_storeu_si512(hi + c0, raw);
            stats.bad |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(raw, exponent), exponent);
            if constexpr (kMagnitude) {
                stats.bf16Bits =
                    _mm512_max_epu16(stats.bf16Bits, _mm512_and_si512(raw, _mm512_set1_epi16(0x7FFF)));
            }
            if constexpr (kNorm) {
                const auto pairs = __builtin_bit_cast(__m512bh, raw);
                squares = _mm512_dpbf16_ps(squares, pairs, pairs);
            }
        }
        if constexpr (kNorm) {
            const float sum = _mm512_reduce_add_ps(squares);
            stats.largestSquares = sum > stats.largestSquares ? sum : stats.largestSquares;
        }
        return;
    }
    V squares = _mm512_setzero_ps();
    for (int64_t c0 = 0; c0 < width; c0 += 16) {
        const int64_t valid = Max(0, Min(kv.headDim - c0, 16));
        const int64_t at =
            kv.channelTile == 0 ? c0 : (c0 / kv.channelTile) * kv.channelTileStride + c0 % kv.channelTile;
        const auto mask = static_cast<__mmask16>((1u << valid) - 1u);
        const __m256i raw =
            valid == 0 ? _mm256_setzero_si256() : _mm256_maskz_loadu_epi16(mask, row + at * 2);
        if constexpr (!kHalf) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + c0), raw);
            const V x = Bf16ToFloat(raw);
            stats.bad |= NonFinite(x);
            if constexpr (kNorm) squares = _mm512_fmadd_ps(x, x, squares);
            if constexpr (kMagnitude) stats.magnitude = _mm512_max_ps(stats.magnitude, _mm512_abs_ps(x));
        } else {
            const V x = _mm512_cvtph_ps(raw);
            stats.bad |= NonFinite(x);
            if constexpr (kNorm) squares = _mm512_fmadd_ps(x, x, squares);
            if constexpr (kMagnitude) stats.magnitude = _mm512_max_ps(stats.magnitude, _mm512_abs_ps(x));
            Split(x, hi + c0, lo + c0);
        }
    }
    if constexpr (kNorm) {
        const float sum = _mm512_reduce_add_ps(squares);
        stats.largestSquares = sum > stats.largestSquares ? sum : stats.largestSquares;
    }
}

// Keys [j0, j0 + n) of `count` items (kv heads of one sequence) as bf16 rows `width` elements apart, item g's
// at hi + g * stride (and lo + g * stride), zero for rows [n, rows); slot by slot, so that each slot's rows
// of the heads are read in memory order. stats[g] gathers item g's rows' (kNorm: their norms; kMagnitude:
// their magnitudes). `end` is the task's last key.
template <bool kHalf, bool kNorm, bool kMagnitude>
void StageItemRowsAs(const KvView& kv, const plan::WorkItem* items, int count, int64_t j0, int n, int64_t end,
                     int rows, int64_t width, uint16_t* hi, uint16_t* lo, int64_t stride, RowStats* stats) {
    const int64_t sequence = items[0].kvSequence;  // the items share it (kernel_call.cpp, Groupable)
    SlotCursor at(kv, sequence, j0), ahead(kv, sequence, Min(j0 + kPrefetchRows, end - 1));
    for (int t = 0; t < n; ++t, at.Next()) {
        const bool prefetch = j0 + t + kPrefetchRows < end;
        for (int g = 0; g < count; ++g) {
            const int64_t head = items[g].kvHead * kv.headStride;
            if (prefetch) PrefetchRow(kv, ahead.offset() + head);
            StageRow<kHalf, kNorm, kMagnitude>(kv, at.offset() + head, width, hi + g * stride + t * width,
                                               lo + g * stride + t * width, stats[g]);
        }
        if (prefetch) ahead.Next();
    }
    for (int g = 0; g < count; ++g) {
        Fill(hi + g * stride + n * width, (rows - n) * width, uint16_t{0});
        if (kHalf) Fill(lo + g * stride + n * width, (rows - n) * width, uint16_t{0});
    }
}

// StageItemRowsAs for the cache's dtype; lo is written for fp16 caches only. nonFinite[g]: whether one of
// item g's rows is not finite; largestNorm[g] and largestMagnitude[g] (when given): the largest Euclidean
// norm of item g's rows and their largest |element| (meaningful where nonFinite[g] is false).
void StageItemRows(const KvView& kv, const plan::WorkItem* items, int count, int64_t j0, int n, int64_t end,
                   int rows, int64_t width, uint16_t* hi, uint16_t* lo, int64_t stride, bool* nonFinite,
                   float* largestNorm = nullptr, float* largestMagnitude = nullptr) {
    RowStats stats[kMaxItems];
    const bool half = kv.dtype == ACL_FLOAT16, norm = largestNorm != nullptr;
    const auto stage = [&](auto run) {
        run(kv, items, count, j0, n, end, rows, width, hi, lo, stride, stats);
    };
    if (half && norm) {
        stage(StageItemRowsAs<true, true, false>);
    } else if (half) {
        stage(largestMagnitude != nullptr ? StageItemRowsAs<true, false, true>
                                          : StageItemRowsAs<true, false, false>);
    } else if (norm) {
        stage(StageItemRowsAs<false, true, false>);
    } else {
        stage(largestMagnitude != nullptr ? StageItemRowsAs<false, false, true>
                                          : StageItemRowsAs<false, false, false>);
    }
    for (int g = 0; g < count; ++g) {
        nonFinite[g] = stats[g].bad != 0;
        if (largestNorm != nullptr) largestNorm[g] = __builtin_sqrtf(stats[g].largestSquares);
        if (largestMagnitude != nullptr) largestMagnitude[g] = stats[g].LargestMagnitude();
    }
}

// StageItemRows of one item; true when one of its rows is not finite.
bool StageRows(const KvView& kv, const plan::WorkItem& item, int64_t j0, int n, int64_t end, int rows,
               int64_t width, uint16_t* hi, uint16_t* lo, float* largestNorm = nullptr) {
    bool nonFinite = false;
    StageItemRows(kv, &item, 1, j0, n, end, rows, width, hi, lo, 0, &nonFinite, largestNorm);
    return nonFinite;
}

// Transposes 16 x 16 32-bit elements (pairs of bf16): out row c = column c of the 16 rows at `in`.
void Transpose16(const char* in, int64_t inStride, char* out, int64_t outStride) {
    __m512i r[16], a[16], b[16];
    for (int i = 0; i < 16; ++i)
        r[i] = _mm512_loadu_si512(in + i * inStride);
    for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    // b[4i + k], 128-bit lane L: column 4L + k of rows 4i .. 4i + 3.
    for (int i = 0; i < 4; ++i) {
        b[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
        b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
    }
    for (int k = 0; k < 4; ++k) {
        const __m512i c0 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0x44);
        const __m512i c1 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0xEE);
        const __m512i c2 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0x44);
        const __m512i c3 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0xEE);
        _mm512_storeu_si512(out + k * outStride, _mm512_shuffle_i32x4(c0, c2, 0x88));
        _mm512_storeu_si512(out + (4 + k) * outStride, _mm512_shuffle_i32x4(c0, c2, 0xDD));
        _mm512_storeu_si512(out + (8 + k) * outStride, _mm512_shuffle_i32x4(c1, c3, 0x88));
        _mm512_storeu_si512(out + (12 + k) * outStride, _mm512_shuffle_i32x4(c1, c3, 0xDD));
    }
}

// Key rows [rows, d32] bf16 to the B layout of S = Q K^T: [d32 / 2, kBlockKeys, 2].
void PackKeys(const uint16_t* stage, int rows, int64_t d32, uint16_t* packed) {
    for (int n0 = 0; n0 < rows; n0 += 16) {
        for (int64_t p0 = 0; p0 < d32 / 2; p0 += 16) {
            Transpose16(reinterpret_cast<const char*>(stage + n0 * d32 + p0 * 2), d32 * 2,
                        reinterpret_cast<char*>(packed + p0 * kBlockKeys * 2 + n0 * 2), kBlockKeys * 4);
        }
    }
}

// Indices of _mm512_permutex2var_epi16 that interleave elements [first, first + 16) of two rows of 32: a
// row's element, then the other row's, in pairs.
__m512i PairInterleave(int first) {
    alignas(64) uint16_t index[32];
    for (int i = 0; i < 16; ++i) {
        index[2 * i] = static_cast<uint16_t>(first + i);
        index[2 * i + 1] = static_cast<uint16_t>(32 + first + i);
    }
    return _mm512_load_si512(index);
}

// Value rows [rows, v32] bf16 to the B layout of acc += P V: [rows / 2, v32, 2].
void PackValues(const uint16_t* stage, int rows, int64_t v32, uint16_t* packed) {
    const __m512i lowIndex = PairInterleave(0), highIndex = PairInterleave(16);
    for (int p = 0; p < rows / 2; ++p) {
        const uint16_t* even = stage + 2 * p * v32;
        const uint16_t* odd = even + v32;
        uint16_t* out = packed + p * v32 * 2;
        for (int64_t c0 = 0; c0 < v32; c0 += 32) {
            const __m512i e = _mm512_loadu_si512(even + c0), o = _mm512_loadu_si512(odd + c0);
            _mm512_storeu_si512(out + 2 * c0, _mm512_permutex2var_epi16(e, lowIndex, o));
            _mm512_storeu_si512(out + 2 * c0 + 32, _mm512_permutex2var_epi16(e, highIndex, o));
        }
    }
}
