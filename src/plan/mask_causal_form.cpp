#include "plan/mask_causal_form.h"

#include <algorithm>
#include <cmath>

#include "plan/mask_row_spans.h"

namespace atbx::plan {
namespace {

// What the rows read so far say: the hidden elements' common bits (once one is seen), the window (0 until a
// row hides keys below its own), and the most keys a row saw with nothing hidden below them (the window must
// be at least that).
template <class Bits>
struct Pattern {
    Bits hidden = 0;
    bool found = false;
    int64_t window = 0;
    int64_t widest = 0;
};

// Whether row `row` of the mask is causal for position p over keys [begin, end), with or without a window:
// hidden bits from `begin` up to the window's first key, zero bits (sign aside) from there to p, hidden bits
// after p; the row's window (p - first visible key + 1) must match the other rows'.
template <class Bits>
bool CausalRow(const Bits* row, int64_t p, int64_t begin, int64_t end, Pattern<Bits>& pattern) {
    constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << (8 * sizeof(Bits) - 1)));
    const auto hides = [&](Bits bits) {
        if (!pattern.found) {
            pattern.hidden = bits;
            pattern.found = true;
        }
        return bits == pattern.hidden;
    };
    const int64_t split = std::clamp(p + 1, begin, end);  // keys [split, end) lie above the diagonal
    int64_t first = begin;                                // the first visible key
    if (first < split && (row[first] & kMagnitude) != 0) {
        if (!hides(row[first])) return false;
        while (first < split && row[first] == pattern.hidden)
            ++first;
        if (first == split) return false;  // a row that sees none of its keys is no causal row
        const int64_t window = p - first + 1;
        if (pattern.window != 0 && pattern.window != window) return false;
        pattern.window = window;
    } else {
        pattern.widest = std::max(pattern.widest, p - begin + 1);
    }
    Bits visible = 0;
    for (int64_t j = first; j < split; ++j)
        visible |= row[j];
    if ((visible & kMagnitude) != 0) return false;
    if (split == end) return true;
    if (!hides(row[split])) return false;
    Bits differs = 0;
    for (int64_t j = split; j < end; ++j)
        differs |= static_cast<Bits>(row[j] ^ pattern.hidden);
    return differs == 0;
}

// The window of the causal mask the rows hold (0: none), or -1 where they hold none.
template <class Bits>
int64_t CausalWindow(const TensorMask& m, const std::vector<WorkItem>& items, Pattern<Bits>& pattern) {
    const auto* data = static_cast<const Bits*>(m.data);
    const bool causal = ForEachRowSpan(items, false, [&](const MaskRowSpan& span) {
        for (int64_t i = 0; i < span.rows; ++i) {
            if (!CausalRow(data + span.batch * m.batchStride + (span.row0 + i) * m.rowStride, span.prefix + i,
                           span.kvBegin, span.kvEnd, pattern)) {
                return false;
            }
        }
        return true;
    });
    if (!causal || !pattern.found || (pattern.window != 0 && pattern.widest > pattern.window)) return -1;
    return pattern.window;
}

}  // namespace

MaskPolicy CausalFormOf(const MaskPolicy& mask, const std::vector<WorkItem>& items) {
    const auto* tensor = std::get_if<TensorMask>(&mask);
    if (tensor == nullptr || tensor->headStride != 0 || tensor->columnTile != 0) return mask;
    double hiddenValue = 0.0;
    int64_t window = -1;
    if (tensor->dtype == ACL_FLOAT16 || tensor->dtype == ACL_BF16) {
        Pattern<uint16_t> pattern;
        window = CausalWindow(*tensor, items, pattern);
        hiddenValue = LoadElement(&pattern.hidden, tensor->dtype, 0);
    } else if (tensor->dtype == ACL_FLOAT) {
        Pattern<uint32_t> pattern;
        window = CausalWindow(*tensor, items, pattern);
        hiddenValue = LoadElement(&pattern.hidden, tensor->dtype, 0);
    }
    if (window < 0 || std::isnan(hiddenValue)) return mask;
    CausalMask decoded;
    decoded.maskedValue = tensor->flags ? hiddenValue * TensorMask::kFlagScale : hiddenValue;
    decoded.window = window;
    return decoded;
}

}  // namespace atbx::plan
