#include "plan/mask_causal_form.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace atbx::plan {
namespace {

// What an item reads of a mask without a head dim: its batch's rows from maskRow0, its keys, its positions.
using RowSpan = std::tuple<int32_t, int64_t, int64_t, int32_t, int32_t, int32_t>;  // batch, row0, prefix,
                                                                                   // rows, kvBegin, kvEnd

// The hidden elements' common bits found so far (`found` once one is seen).
template <class Bits>
struct HiddenBits {
    Bits bits = 0;
    bool found = false;
};

// Whether row `row` of the mask (elements `data` + row start) is causal for position p over keys [begin,
// end): zero bits (sign aside) up to p, the hidden bits after it.
template <class Bits>
bool CausalRow(const Bits* row, int64_t p, int64_t begin, int64_t end, HiddenBits<Bits>& hidden) {
    constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << (8 * sizeof(Bits) - 1)));
    const int64_t split = std::clamp(p + 1, begin, end);
    Bits visible = 0;
    for (int64_t j = begin; j < split; ++j)
        visible |= row[j];
    if ((visible & kMagnitude) != 0) return false;
    if (split == end) return true;
    if (!hidden.found) hidden = {row[split], true};
    Bits differs = 0;
    for (int64_t j = split; j < end; ++j)
        differs |= static_cast<Bits>(row[j] ^ hidden.bits);
    return differs == 0;
}

template <class Bits>
bool CausalRows(const TensorMask& m, const std::set<RowSpan>& spans, HiddenBits<Bits>& hidden) {
    const auto* data = static_cast<const Bits*>(m.data);
    for (const auto& [batch, row0, prefix, rows, begin, end] : spans) {
        for (int64_t i = 0; i < rows; ++i) {
            if (!CausalRow(data + batch * m.batchStride + (row0 + i) * m.rowStride, prefix + i, begin, end,
                           hidden))
                return false;
        }
    }
    return true;
}

}  // namespace

MaskPolicy CausalFormOf(const MaskPolicy& mask, const std::vector<WorkItem>& items) {
    const auto* tensor = std::get_if<TensorMask>(&mask);
    if (tensor == nullptr || tensor->headStride != 0 || tensor->columnTile != 0) return mask;
    std::set<RowSpan> spans;
    for (const WorkItem& item : items) {
        if (!item.zeroOutput)
            spans.insert({item.maskBatch, item.maskRow0, item.prefix, item.qLen, item.kvBegin, item.kvEnd});
    }
    double hiddenValue = 0.0;
    bool causal = false;
    if (tensor->dtype == ACL_FLOAT16 || tensor->dtype == ACL_BF16) {
        HiddenBits<uint16_t> hidden;
        causal = CausalRows(*tensor, spans, hidden) && hidden.found;
        if (causal) hiddenValue = LoadElement(&hidden.bits, tensor->dtype, 0);
    } else if (tensor->dtype == ACL_FLOAT) {
        HiddenBits<uint32_t> hidden;
        causal = CausalRows(*tensor, spans, hidden) && hidden.found;
        if (causal) hiddenValue = LoadElement(&hidden.bits, tensor->dtype, 0);
    }
    if (!causal || std::isnan(hiddenValue)) return mask;
    CausalMask decoded;
    decoded.maskedValue = tensor->flags ? hiddenValue * TensorMask::kFlagScale : hiddenValue;
    return decoded;
}

}  // namespace atbx::plan
