// How the CPU attention kernel reads a tile's K and V rows, included by attention_kernel.inl inside its
// namespaces (no include guard): the rows' addresses through the block table, requests for the rows ahead,
// and the two ways the arithmetic loads a row: converted into the thread's scratch first (ScratchRows: any
// dtype, layout and dequantisation) or from the cache in place, converted in registers (CacheRows, where
// DirectRows allows).

// n elements of src as fp32 at dst: dequantised where `scale` is given, times `factor`. kChecked: *nonFinite
// gathers x - x of every stored x (+0, or NaN once one is inf or NaN) by bitwise OR, whose one-cycle chain
// keeps pace with the stores (a sum's chain took the adder's latency per vector: cpu:avx2 4-token steps 1.014x
// the time).
template <class Element, bool kChecked = false, class Loader>
ATBX_INLINE void ConvertSpanAs(const void* src, int n, const float* scale, const float* offset, float factor,
                               float* dst, Loader load, V* nonFinite = nullptr) {
    const auto* in = static_cast<const Element*>(src);
    const V f = Simd::Set(factor);
    int c = 0;
    for (; c + kW <= n; c += kW) {
        V x = load(in + c);
        if (scale != nullptr) x = Simd::Mul(Simd::Add(x, Simd::Load(offset + c)), Simd::Load(scale + c));
        if (factor != 1.0f) x = Simd::Mul(x, f);
        if constexpr (kChecked) *nonFinite = Simd::Or(*nonFinite, Simd::Sub(x, x));
        Simd::Store(dst + c, x);
    }
    if (c == n) return;
    // The last partial vector goes through zero-padded copies, so nothing past the row is read.
    Element padded[kW] = {};
    float scalePad[kW] = {}, offsetPad[kW] = {}, out[kW];
    for (int i = 0; c + i < n; ++i) {
        padded[i] = in[c + i];
        if (scale != nullptr) {
            scalePad[i] = scale[c + i];
            offsetPad[i] = offset[c + i];
        }
    }
    V x = load(padded);
    if (scale != nullptr) x = Simd::Mul(Simd::Add(x, Simd::Load(offsetPad)), Simd::Load(scalePad));
    if (factor != 1.0f) x = Simd::Mul(x, f);
    if constexpr (kChecked) *nonFinite = Simd::Or(*nonFinite, Simd::Sub(x, x));  // zero padding adds +0
    Simd::Store(out, x);
    for (int i = 0; c + i < n; ++i)
        dst[c + i] = out[i];
}

// Byte addresses of channel 0 of keys [j0, j0 + n) of kv head 0 of the item's sequence: one block-table
// lookup per block. A kv head's rows are at headStride elements from these.
void RowAddresses(const KvView& kv, const plan::WorkItem& item, int64_t j0, int32_t n, const char** rows) {
    const auto* base = static_cast<const char*>(kv.data);
    const int64_t slotBytes = kv.slotStride * kv.elementBytes;
    if (kv.blockTable == nullptr) {
        const char* first = base + (item.kvSequence * kv.sequenceStride + j0 * kv.slotStride) * kv.elementBytes;
        for (int32_t t = 0; t < n; ++t)
            rows[t] = first + t * slotBytes;
        return;
    }
    const int32_t* table = kv.blockTable + item.kvSequence * kv.tableStride;
    int64_t block = j0 / kv.blockSize;
    int32_t slot = static_cast<int32_t>(j0 - block * kv.blockSize);
    for (int32_t t = 0; t < n;) {
        const char* start = base + table[block] * kv.blockStride * kv.elementBytes;
        for (; slot < kv.blockSize && t < n; ++slot, ++t)
            rows[t] = start + slot * slotBytes;
        ++block;
        slot = 0;
    }
}

// Rows ahead of the tile (TileRows: the next tile's, or half a tile ahead in tiles of kTileKeys) whose lines a
// conversion asks into L2 as it converts the rows of this tile in the same positions: one request per line
// read, spread over the work, tens of KiB of K and V ahead. Requests in bursts at the start of each step wait
// for the core's few line-fill buffers and stall the arithmetic; spread out, they keep one core reading at its
// streaming bandwidth (docs/design.md, "Tasks").
struct RowsAhead {
    const char* const* rows = nullptr;
    int32_t n = 0;  // rows to ask for
};

// Asks for the lines of a row into L2.
ATBX_INLINE void RequestRow(const char* row, int64_t bytes) {
    for (int64_t at = 0; at < bytes; at += 64)
        __builtin_prefetch(row + at, 0, 2);
}

// FRACTAL_NZ rows (addresses from RowAddresses, `head` bytes on) staged as fp32 rows: a slot's channel tiles
// lie a block's worth of slots apart and the slots of one tile side by side, so the rows are converted tile by
// tile, each tile's slots in turn, every read running on along its tile. (Rows that DirectRows allows are read
// in place instead; staged, NZ caches ran 2.4x the time per byte of contiguous ones.)
template <class Element, bool kChecked, class Loader>
void ConvertTilesAs(const KvView& kv, const char* const* rows, int64_t head, int32_t n, const float* scale,
                    const float* offset, float* dst, int64_t ld, Loader load, RowsAhead ahead, V* nonFinite) {
    const int64_t stride = kv.channelTileStride * kv.elementBytes;
    int64_t at = head;
    for (int c0 = 0; c0 < kv.headDim; c0 += kv.channelTile, at += stride) {
        const int count = kv.headDim - c0 < kv.channelTile ? kv.headDim - c0 : kv.channelTile;
        const float* tileScale = scale != nullptr ? scale + c0 : nullptr;
        const float* tileOffset = offset != nullptr ? offset + c0 : nullptr;
        for (int32_t t = 0; t < n; ++t) {
            if (t < ahead.n) __builtin_prefetch(ahead.rows[t] + at, 0, 2);
            ConvertSpanAs<Element, kChecked>(rows[t] + at, count, tileScale, tileOffset, kv.shrink, dst + t * ld + c0,
                                             load, nonFinite);
        }
    }
}

// n rows of the item's kv head (addresses from RowAddresses) as fp32 rows `ld` floats apart: dequantised
// where the view has scales, times the view's shrink; asks for the rows `ahead` meanwhile.
template <class Element, bool kChecked, class Loader>
void ConvertRowsAs(const KvView& kv, const plan::WorkItem& item, const char* const* rows, int32_t n, float* dst,
                   int64_t ld, Loader load, RowsAhead ahead, V* nonFinite) {
    const float* scale = kv.scale != nullptr ? kv.scale + int64_t{item.logicalKvHead} * kv.headDim : nullptr;
    const float* offset = kv.offset != nullptr ? kv.offset + int64_t{item.logicalKvHead} * kv.headDim : nullptr;
    const int64_t head = item.kvHead * kv.headStride * kv.elementBytes;
    if (kv.channelTile != 0)
        return ConvertTilesAs<Element, kChecked>(kv, rows, head, n, scale, offset, dst, ld, load, ahead, nonFinite);
    for (int32_t t = 0; t < n; ++t) {
        if (t < ahead.n) RequestRow(ahead.rows[t] + head, int64_t{kv.headDim} * kv.elementBytes);
        ConvertSpanAs<Element, kChecked>(rows[t] + head, kv.headDim, scale, offset, kv.shrink, dst + t * ld, load,
                                         nonFinite);
    }
}

// ConvertRowsAs for the view's dtype. kChecked: returns whether every converted value is finite (else true).
template <bool kChecked = false>
bool ConvertRows(const KvView& kv, const plan::WorkItem& item, const char* const* rows, int32_t n, float* dst,
                 int64_t ld, RowsAhead ahead = {}) {
    V nonFinite = Simd::Zero();
    switch (kv.dtype) {
        case ACL_FLOAT16:
            ConvertRowsAs<uint16_t, kChecked>(kv, item, rows, n, dst, ld,
                                              [](const uint16_t* p) { return Simd::LoadHalf(p); }, ahead, &nonFinite);
            break;
        case ACL_BF16:
            ConvertRowsAs<uint16_t, kChecked>(kv, item, rows, n, dst, ld,
                                              [](const uint16_t* p) { return Simd::LoadBf16(p); }, ahead, &nonFinite);
            break;
        case ACL_INT8:
            ConvertRowsAs<int8_t, kChecked>(kv, item, rows, n, dst, ld,
                                            [](const int8_t* p) { return Simd::LoadInt8(p); }, ahead, &nonFinite);
            break;
        default:
            ConvertRowsAs<float, kChecked>(kv, item, rows, n, dst, ld,
                                           [](const float* p) { return Simd::Load(p); }, ahead, &nonFinite);
    }
    return !kChecked || !Simd::AnyNaN(nonFinite);
}

// Rows of a tile's keys or values as the arithmetic reads them, Load(t, c) giving channels [c, c + kW) of row
// t in fp32: the rows converted into the thread's scratch (any dtype, layout and dequantisation; the
// conversion asked for the next tile's rows) ...
struct ScratchRows {
    const float* base;
    int64_t ld;
    ATBX_INLINE V Load(int32_t t, int c) const { return Simd::Load(base + t * ld + c); }
    ATBX_INLINE void Request(int32_t, int) const {}
    ATBX_INLINE ScratchRows Quiet() const { return *this; }
};

// ... or rows keys[i] of other rows as rows i (the keys a block of lanes weighs, WeightedKeysAccumulate) ...
template <class Rows>
struct KeyListRows {
    const Rows& rows;
    const int32_t* keys;
    ATBX_INLINE V Load(int32_t i, int c) const { return rows.Load(keys[i], c); }
    ATBX_INLINE void Request(int32_t i, int c) const { rows.Request(keys[i], c); }
};

// ... or the cache rows themselves, converted in registers as the arithmetic loads them, so that each row is
// read once from the cache and nothing is stored (DirectRows says when). Row t starts at rows[t] + head
// bytes; values are multiplied by the view's shrink where their dtype has one (kShrink). kTiled: FRACTAL_NZ
// rows, whose channels come in tiles of 2^tileShift (a whole number of vectors) tileStride bytes apart.
// Request(t, c) asks for the line of the next tile's row t that holds channel c, where c starts a line (or a
// channel tile): the arithmetic spreads its requests over its loads, one line per line it reads, since
// requests in bursts wait for the core's few line-fill buffers and stall the arithmetic. Quiet() is the same
// rows without requests (for the second and later register blocks that read them).
template <class Element, class Loader, bool kShrink, bool kTiled = false>
struct CacheRows {
    const char* const* rows;
    int64_t head;
    V shrink;
    RowsAhead ahead;
    int64_t tileStride = 0;
    int tileShift = 0;
    ATBX_INLINE int64_t At(int c) const {
        constexpr int64_t kSize = sizeof(Element);
        if constexpr (kTiled) return (int64_t{c} >> tileShift) * tileStride + (c & ((1 << tileShift) - 1)) * kSize;
        return int64_t{c} * kSize;
    }
    ATBX_INLINE const Element* Row(int32_t t) const { return reinterpret_cast<const Element*>(rows[t] + head); }
    ATBX_INLINE V Load(int32_t t, int c) const {
        const V x = Loader::From(reinterpret_cast<const Element*>(rows[t] + head + At(c)));
        if constexpr (kShrink) return Simd::Mul(x, shrink);
        return x;
    }
    ATBX_INLINE void Request(int32_t t, int c) const {
        const int64_t at = At(c);
        const bool lineStart = kTiled ? (c & ((1 << tileShift) - 1)) == 0 : at % 64 == 0;
        if (t < ahead.n && lineStart) __builtin_prefetch(ahead.rows[t] + head + at, 0, 2);
    }
    ATBX_INLINE CacheRows Quiet() const { return {rows, head, shrink, {}, tileStride, tileShift}; }
};

struct HalfLoad {
    ATBX_INLINE static V From(const uint16_t* p) { return Simd::LoadHalf(p); }
};
struct Bf16Load {
    ATBX_INLINE static V From(const uint16_t* p) { return Simd::LoadBf16(p); }
};
struct Int8Load {
    ATBX_INLINE static V From(const int8_t* p) { return Simd::LoadInt8(p); }
};

// Whether a view's rows can be read in place by CacheRows: fp16, bf16 or int8 (the dtypes of caches; other
// rows are staged), contiguous channels or FRACTAL_NZ tiles of a power of two of whole vectors, no
// dequantisation scales, whole vectors (a row of `dim` channels padded to `dimPad` would be read past its
// end), and a shrink only where CacheRows applies one (bf16 values; fp16 and int8 ones never shrink).
inline bool DirectRows(const KvView& kv, int dim, int dimPad, bool values) {
    const bool shrinkApplied = kv.shrink == 1.0f || (values && kv.dtype == ACL_BF16);
    const bool cached = kv.dtype == ACL_FLOAT16 || kv.dtype == ACL_BF16 || kv.dtype == ACL_INT8;
    const bool tiles = kv.channelTile == 0 || (std::has_single_bit(static_cast<unsigned>(kv.channelTile)) &&
                                               kv.channelTile % kW == 0);
    return cached && tiles && kv.scale == nullptr && dim == dimPad && shrinkApplied;
}

// f(rows) with the CacheRows of the item's kv head at `rows` (RowAddresses of kv head 0), asking for the rows
// `ahead` (DirectRows holds): one dtype and layout switch per call of f. kValues: the rows are values, whose
// bf16 rows take the view's shrink.
template <bool kValues, class F>
ATBX_INLINE void WithCacheRows(const KvView& kv, const plan::WorkItem& item, const char* const* rows,
                               RowsAhead ahead, F f) {
    const int64_t head = item.kvHead * kv.headStride * kv.elementBytes;
    const V shrink = Simd::Set(kv.shrink);
    if (kv.channelTile != 0) {
        const int64_t stride = kv.channelTileStride * kv.elementBytes;
        const int shift = std::countr_zero(static_cast<unsigned>(kv.channelTile));
        switch (kv.dtype) {
            case ACL_FLOAT16:
                return f(CacheRows<uint16_t, HalfLoad, false, true>{rows, head, shrink, ahead, stride, shift});
            case ACL_BF16:
                return f(CacheRows<uint16_t, Bf16Load, kValues, true>{rows, head, shrink, ahead, stride, shift});
            default:
                return f(CacheRows<int8_t, Int8Load, false, true>{rows, head, shrink, ahead, stride, shift});
        }
    }
    switch (kv.dtype) {
        case ACL_FLOAT16:
            return f(CacheRows<uint16_t, HalfLoad, false>{rows, head, shrink, ahead});
        case ACL_BF16:
            return f(CacheRows<uint16_t, Bf16Load, kValues>{rows, head, shrink, ahead});
        default:
            return f(CacheRows<int8_t, Int8Load, false>{rows, head, shrink, ahead});
    }
}
