#include "plan/mask_segment.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/float16.h"

namespace atbx::plan {
namespace {

constexpr float kHiddenTerm = -std::numeric_limits<float>::infinity();

// score + term, or -inf where the term is -inf (whatever the score, NaN included), selected by bits rather
// than by a branch, so that the loops over a segment's keys vectorise.
void Add(float* score, double term) {
    const auto value = static_cast<float>(term);
    const uint32_t hidden = value == kHiddenTerm ? ~0u : 0u;
    const auto sum = std::bit_cast<uint32_t>(*score + value);
    *score = std::bit_cast<float>((sum & ~hidden) | (std::bit_cast<uint32_t>(kHiddenTerm) & hidden));
}

template <class T>
T Read(const void* data, int64_t offset) {
    T value;
    std::memcpy(&value, static_cast<const char*>(data) + offset * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

// Reads the mask's element at `offset` as double; Element is the storage type, Widen turns it into a value.
template <class Element, class Widen, class Offset>
void AddTyped(const void* data, int64_t j0, int32_t n, Offset offsetOf, Widen widen, double factor,
              float* scores) {
    for (int32_t t = 0; t < n; ++t)
        Add(&scores[t], static_cast<double>(widen(Read<Element>(data, offsetOf(j0 + t)))) * factor);
}

template <class Offset>
void AddTensorTerms(const TensorMask& m, int64_t j0, int32_t n, Offset offsetOf, float* scores) {
    const double factor = m.flags ? TensorMask::kFlagScale : 1.0;
    const auto identity = [](auto x) { return x; };
    switch (m.dtype) {
        case ACL_FLOAT16:
            return AddTyped<uint16_t>(m.data, j0, n, offsetOf, core::HalfToFloat, factor, scores);
        case ACL_BF16:
            return AddTyped<uint16_t>(m.data, j0, n, offsetOf, core::Bf16ToFloat, factor, scores);
        case ACL_FLOAT:
            return AddTyped<float>(m.data, j0, n, offsetOf, identity, factor, scores);
        default:
            for (int32_t t = 0; t < n; ++t)
                Add(&scores[t], LoadElement(m.data, m.dtype, offsetOf(j0 + t)) * factor);
    }
}

void AddTerms(const NoMask&, const WorkItem&, int64_t, int64_t, int64_t, int32_t, float*) {}

void AddTerms(const TensorMask& m, const WorkItem& item, int64_t h, int64_t i, int64_t j0, int32_t n,
              float* scores) {
    const int64_t row = item.maskBatch * m.batchStride + h * m.headStride + (item.maskRow0 + i) * m.rowStride;
    if (m.columnTile == 0)
        return AddTensorTerms(
            m, j0, n, [row](int64_t j) { return row + j; }, scores);
    const int64_t tile = m.columnTile, stride = m.columnTileStride;
    AddTensorTerms(
        m, j0, n, [=](int64_t j) { return row + (j / tile) * stride + j % tile; }, scores);
}

void AddTerms(const CausalMask& m, const WorkItem& item, int64_t, int64_t i, int64_t j0, int32_t n,
              float* scores) {
    for (int32_t t = 0; t < n; ++t) {
        if (m.Hidden(item, i, j0 + t)) Add(&scores[t], m.maskedValue);
    }
}

// AlibiMask::Term over a segment, the slope and the form read once: the same double products rounded once
// to fp32, so the same bits as Term key by key, in loops the compiler vectorises (key by key through Term,
// ALiBi prefills took 1.7x the time of causal ones). Keys past the row's position are hidden.
void AddTerms(const AlibiMask& m, const WorkItem& item, int64_t h, int64_t i, int64_t j0, int32_t n,
              float* scores) {
    const int64_t position = item.prefix + i;
    const auto visible = static_cast<int32_t>(std::clamp<int64_t>(position - j0 + 1, 0, n));
    const double slope = LoadElement(m.slopes, m.slopeType, h);
    const auto last = static_cast<int32_t>(position - j0);  // the distance of key j0 (visible keys only)
    const auto first = static_cast<int32_t>(j0);
    switch (m.form) {
        case AlibiMask::Form::kDistance:
            for (int32_t t = 0; t < visible; ++t)
                Add(&scores[t], slope * static_cast<double>(last - t));
            break;
        case AlibiMask::Form::kSqrtDistance:
            for (int32_t t = 0; t < visible; ++t)
                Add(&scores[t], slope * std::sqrt(static_cast<double>(last - t)));
            break;
        case AlibiMask::Form::kColumn:
            for (int32_t t = 0; t < visible; ++t)
                Add(&scores[t], slope * static_cast<double>(first + t));
            break;
    }
    for (int32_t t = visible; t < n; ++t)
        scores[t] = kHiddenTerm;
}

// AlibiTileMask::Term over a segment, a 128-key tile at a time: the tile's row of the plane read once, its
// elements in one typed loop (key by key through Term, such prefills took 2.1x the time of causal ones).
void AddTerms(const AlibiTileMask& m, const WorkItem& item, int64_t h, int64_t i, int64_t j0, int32_t n,
              float* scores) {
    const int64_t position = item.prefix + i;
    TensorMask plane;
    plane.data = m.data;
    plane.dtype = m.dtype;
    for (int32_t t = 0; t < n;) {
        const int64_t j = j0 + t, tileStart = j / AlibiTileMask::kTileKeys * AlibiTileMask::kTileKeys;
        const auto count =
            static_cast<int32_t>(std::min<int64_t>(n - t, tileStart + AlibiTileMask::kTileKeys - j));
        if (tileStart > position) {
            std::fill_n(scores + t, count, kHiddenTerm);
        } else {
            const int64_t row = h * m.headStride + (position - tileStart) * m.rowStride;
            const int tile = m.columnTile;
            const int64_t stride = m.columnTileStride;
            if (tile == 0) {
                AddTensorTerms(
                    plane, j - tileStart, count, [row](int64_t c) { return row + c; }, scores + t);
            } else {
                AddTensorTerms(
                    plane, j - tileStart, count,
                    [=](int64_t c) { return ChannelOffset(row, c, tile, stride); }, scores + t);
            }
        }
        t += count;
    }
}

// Rows sit at absolute positions [prefix + rowBegin, prefix + rowEnd); a key is visible to a row at p when
// p - window < j <= p.
TileClass ClassifyCausal(const CausalMask& m, const WorkItem& item, int64_t rowBegin, int64_t rowEnd,
                         int64_t j0, int64_t j1) {
    const int64_t firstPos = item.prefix + rowBegin, lastPos = item.prefix + rowEnd - 1;
    const bool allAbove = j0 > lastPos;
    const bool allBehindWindow = m.window > 0 && j1 - 1 <= firstPos - m.window;
    const bool allVisible = j1 - 1 <= firstPos && (m.window == 0 || j0 > lastPos - m.window);
    if (allVisible) return TileClass::kVisible;
    if ((allAbove || allBehindWindow) && std::isinf(m.maskedValue) && m.maskedValue < 0)
        return TileClass::kHidden;
    return TileClass::kPartial;
}

}  // namespace

MaskKind KindOf(const MaskPolicy& mask) {
    return static_cast<MaskKind>(mask.index());
}

void AddMaskTerms(const MaskPolicy& mask, const WorkItem& item, int64_t head, int64_t row, int64_t j0,
                  int32_t n, float* scores) {
    std::visit([&](const auto& m) { AddTerms(m, item, head, row, j0, n, scores); }, mask);
}

TileClass ClassifyTile(const MaskPolicy& mask, const WorkItem& item, int64_t rowBegin, int64_t rowEnd,
                       int64_t j0, int64_t j1) {
    switch (KindOf(mask)) {
        case MaskKind::kNone:
            return TileClass::kVisible;
        case MaskKind::kCausal:
            return ClassifyCausal(std::get<CausalMask>(mask), item, rowBegin, rowEnd, j0, j1);
        case MaskKind::kAlibi:
            // Keys after the last row's position are hidden with -inf for every row.
            return j0 > item.prefix + rowEnd - 1 ? TileClass::kHidden : TileClass::kPartial;
        case MaskKind::kAlibiTile:
            // Key tiles of 128 that start after the last row's position are hidden with -inf.
            return j0 / AlibiTileMask::kTileKeys * AlibiTileMask::kTileKeys > item.prefix + rowEnd - 1
                       ? TileClass::kHidden
                       : TileClass::kPartial;
        case MaskKind::kTensor:
            break;
    }
    return TileClass::kPartial;
}

}  // namespace atbx::plan
