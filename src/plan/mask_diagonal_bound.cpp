#include "plan/mask_diagonal_bound.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/float16.h"
#include "core/parallel.h"
#include "plan/mask_row_spans.h"

namespace atbx::plan {
namespace {

template <class Bits>
using Ordered = std::make_signed_t<Bits>;

// The bits of an fp16 or bf16 (uint16_t) or fp32 (uint32_t) value as a signed integer that orders as the
// values do (negative values' magnitude bits flipped); its own inverse. NaNs order beyond the infinity of
// their sign.
template <class Bits>
Ordered<Bits> OrderOf(Bits bits) {
    const auto value = static_cast<Ordered<Bits>>(bits);
    constexpr Ordered<Bits> kMagnitude = std::numeric_limits<Ordered<Bits>>::max();
    return static_cast<Ordered<Bits>>(value ^ ((value >> (8 * sizeof(Bits) - 1)) & kMagnitude));
}

// The least and greatest of a row's elements by their order: one pass of integer operations, which
// vectorise. One of them is NaN iff the least orders below -infinity or the greatest above +infinity.
template <class Bits>
struct Extremes {
    Ordered<Bits> least = std::numeric_limits<Ordered<Bits>>::max();
    Ordered<Bits> greatest = std::numeric_limits<Ordered<Bits>>::min();

    bool HasNaN(Bits infinity) const {
        constexpr auto kSign = static_cast<Bits>(Bits{1} << (8 * sizeof(Bits) - 1));
        return greatest > OrderOf(infinity) || least < OrderOf(static_cast<Bits>(infinity | kSign));
    }
};

template <class Bits>
Extremes<Bits> ExtremesOf(const Bits* row, int64_t begin, int64_t end) {
    Extremes<Bits> found;
    for (int64_t j = begin; j < end; ++j) {
        const Ordered<Bits> order = OrderOf(row[j]);
        found.least = std::min(found.least, order);
        found.greatest = std::max(found.greatest, order);
    }
    return found;
}

// The term the kernels add for an element (TensorMask::Term rounded to fp32, as AddMaskTerms adds it), the
// element's value being `toFloat(bits)`.
template <class Bits, class ToFloat>
float TermOf(const TensorMask& m, Bits bits, ToFloat toFloat) {
    const float value = toFloat(bits);
    return m.flags ? static_cast<float>(static_cast<double>(value) * TensorMask::kFlagScale) : value;
}

// The largest term above the diagonal of the row less its own key's term, for position p over keys
// [begin, end) (p among them, keys after it); empty where a term above is NaN or the own term not finite.
template <class Bits, class ToFloat>
std::optional<double> RowGap(const TensorMask& m, const Bits* row, int64_t p, int64_t end, Bits infinity,
                             ToFloat toFloat) {
    const float own = TermOf(m, row[p], toFloat);
    if (!(own - own == 0.0f)) return std::nullopt;
    const Extremes<Bits> above = ExtremesOf(row, p + 1, end);
    if (above.HasNaN(infinity)) return std::nullopt;
    // Flags scale by a negative factor: the largest term is the least flag's.
    const Ordered<Bits> order = m.flags ? above.least : above.greatest;
    const auto highest =
        static_cast<double>(TermOf(m, static_cast<Bits>(OrderOf(static_cast<Bits>(order))), toFloat));
    if (highest == -std::numeric_limits<double>::infinity()) return highest;
    // The kernels round score + term to fp32 for both keys: 2^-20 of the terms' magnitudes covers the two
    // roundings (the logits' share is the kernels' own slack).
    return highest - own + (std::fabs(highest) + std::fabs(own)) * 0x1p-20;
}

// What the threads' scans found: the largest row gap, and whether a row gave none (RowGap), or one that
// proves nothing; either ends every scan.
struct Found {
    std::atomic<double> gap{-std::numeric_limits<double>::infinity()};
    std::atomic<bool> any{false}, failed{false};

    void Add(std::optional<double> rowGap) {
        if (!rowGap || *rowGap >= kWeightlessGap) {
            failed.store(true, std::memory_order_relaxed);
            return;
        }
        double seen = gap.load(std::memory_order_relaxed);
        while (*rowGap > seen && !gap.compare_exchange_weak(seen, *rowGap, std::memory_order_relaxed)) {
        }
        any.store(true, std::memory_order_relaxed);
    }
};

// Asks for the cache lines of row[begin, end) into L2.
template <class Bits>
void RequestSegment(const Bits* row, int64_t begin, int64_t end) {
    constexpr int64_t kLine = 64 / sizeof(Bits);
    for (int64_t j = begin; j < end; j += kLine)
        __builtin_prefetch(row + j, 0, 2);
}

// Adds the gaps of a span's heads and rows whose own key is among its keys and which read keys after it.
// Where a row spans 4 KiB or more (2k fp16 keys), each row's segment above the diagonal starts on another
// page, where the hardware's prefetchers start over: the segment kRowsAhead rows on is asked for before each
// row is read (the scan of a bf16 ALiBi mask [32, 2k, 2k] 0.6x the time).
template <class Bits, class ToFloat>
void ScanSpan(const TensorMask& m, const MaskRowSpan& span, Bits infinity, ToFloat toFloat, Found& found) {
    constexpr int64_t kRowsAhead = 2;
    const auto* data = static_cast<const Bits*>(m.data);
    const auto reads = [&span](int64_t i) {  // whether row i's own key is among the span's, keys after it
        const int64_t p = span.prefix + i;
        return p >= span.kvBegin && p + 1 < span.kvEnd;
    };
    for (int64_t h = span.headBegin; h < span.headBegin + span.heads; ++h) {
        const Bits* head = data + span.batch * m.batchStride + h * m.headStride + span.row0 * m.rowStride;
        for (int64_t i = -kRowsAhead; i < span.rows; ++i) {
            const int64_t ahead = i + kRowsAhead;
            if (ahead < span.rows && reads(ahead))
                RequestSegment(head + ahead * m.rowStride, span.prefix + ahead + 1, span.kvEnd);
            if (i < 0 || !reads(i)) continue;
            if (found.failed.load(std::memory_order_relaxed)) return;
            found.Add(RowGap(m, head + i * m.rowStride, span.prefix + i, span.kvEnd, infinity, toFloat));
        }
    }
}

// Elements above the diagonals of the rows the items read (each span once).
int64_t ElementsAbove(const std::vector<WorkItem>& items, bool headDim) {
    int64_t elements = 0;
    ForEachRowSpan(items, headDim, [&](const MaskRowSpan& span) {
        for (int64_t i = 0; i < span.rows; ++i) {
            const int64_t p = span.prefix + i;
            if (p >= span.kvBegin && p + 1 < span.kvEnd) elements += span.heads * (span.kvEnd - p - 1);
        }
        return true;
    });
    return elements;
}

// The gap over every item's span (the items that ReadsItsOwnSpan, one task each, on `threads` threads, or one
// where there is little to read); empty where no row reads keys above its diagonal, or where Found failed.
template <class Bits, class ToFloat>
std::optional<double> DiagonalGap(const TensorMask& m, const std::vector<WorkItem>& items, Bits infinity,
                                  ToFloat toFloat, int threads) {
    const bool headDim = m.headStride != 0;
    const int64_t elements = ElementsAbove(items, headDim);
    if (elements == 0) return std::nullopt;
    Found found;
    auto scan = [&](int64_t index, int) {
        if (ReadsItsOwnSpan(items, static_cast<size_t>(index), headDim))
            ScanSpan(m, SpanOf(items[index], headDim), infinity, toFloat, found);
    };
    // Below some 100 microseconds of reading, starting the threads would cost more than they save.
    constexpr int64_t kParallelElements = int64_t{1} << 18;
    core::ParallelFor(static_cast<int64_t>(items.size()), elements < kParallelElements ? 1 : threads, scan);
    if (found.failed.load() || !found.any.load()) return std::nullopt;
    return found.gap.load();
}

}  // namespace

MaskPolicy WithDiagonalBound(const MaskPolicy& mask, const std::vector<WorkItem>& items, int threads) {
    const auto* tensor = std::get_if<TensorMask>(&mask);
    if (tensor == nullptr || tensor->columnTile != 0) return mask;
    std::optional<double> gap;
    if (tensor->dtype == ACL_FLOAT16) {
        gap = DiagonalGap<uint16_t>(*tensor, items, 0x7C00, core::HalfToFloat, threads);
    } else if (tensor->dtype == ACL_BF16) {
        gap = DiagonalGap<uint16_t>(*tensor, items, 0x7F80, core::Bf16ToFloat, threads);
    } else if (tensor->dtype == ACL_FLOAT) {
        gap = DiagonalGap<uint32_t>(
            *tensor, items, 0x7F800000u, [](uint32_t bits) { return std::bit_cast<float>(bits); }, threads);
    }
    if (!gap) return mask;
    TensorMask bounded = *tensor;
    bounded.diagonalGap = gap;
    return bounded;
}

}  // namespace atbx::plan
