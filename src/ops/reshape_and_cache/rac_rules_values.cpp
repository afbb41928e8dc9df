// ReshapeAndCache device-value rules: every slot that is written lies inside the cache, no cache row is
// written twice, and the compress modes' windows fit their sequences (docs/spec/DECISIONS.md 19,
// docs/spec/self_attention.md 4.2).
#include <algorithm>

#include "ops/reshape_and_cache/rac_rule_support.h"
#include "ops/reshape_and_cache/rac_windows.h"

namespace atbx::ops::rac {
namespace {

// The runs the call writes, among the slots that are in range (and, with compression, whose windows are
// consistent): the rows the other rules vouch for; into the subject's scratch (RacSubject::writtenRuns).
std::vector<SlotRun>& WrittenRuns(const S& s) {
    std::vector<SlotRun>& runs = s.writtenRuns;
    runs.clear();
    if (!s.Compressed()) {
        const std::span<const int32_t> slots = s.Values(Input::kSlotMapping);
        for (size_t t = 0; t < slots.size(); ++t) {
            if (slots[t] >= 0 && slots[t] < s.CacheSlots())
                runs.push_back({static_cast<int64_t>(t), slots[t], 1});
        }
        return runs;
    }
    for (const HeadWindow& w : s.windows) {
        if (w.slot < 0 || !Consistent(s, w)) continue;
        const int64_t rows = RowsWritten(s, w);
        if (rows > 0 && w.slot + rows <= s.CacheSlots()) runs.push_back({w.item, w.slot, rows});
    }
    return runs;
}

Verdict SlotsInRange(const S& s) {
    const int64_t cacheSlots = s.CacheSlots();
    if (!s.Compressed()) {
        const std::span<const int32_t> slots = s.Values(Input::kSlotMapping);
        for (size_t t = 0; t < slots.size(); ++t) {
            if (slots[t] >= cacheSlots) {
                return Fail("slotMapping[", t, "] must be < num_blocks * block_size = ", cacheSlots,
                            " (or negative to skip the token), got ", slots[t]);
            }
        }
        return Pass();
    }
    for (const HeadWindow& w : s.windows) {
        if (w.slot < 0) continue;
        const int64_t last = Consistent(s, w) ? w.slot + std::max<int64_t>(RowsWritten(s, w), 1) - 1 : w.slot;
        if (last >= cacheSlots) {
            return Fail("slotMapping[", w.item, "] (batch ", w.batch, ", head ", w.head, ") = ", w.slot,
                        " writes cache rows up to ", last,
                        ", which must be < num_blocks * block_size = ", cacheSlots,
                        " (a negative slot skips the head)");
        }
    }
    return Pass();
}

// Whether no in-range token slot repeats, found in time linear in the tokens with a bit per cache row
// (Execute checks every call's slots: sorting 16k of them cost as much as a fifth of the copy). Only when
// that bitmap is at most 64 bytes per token; otherwise, and to name a repeated pair, the sort below decides.
bool TokenSlotsDistinct(const S& s) {
    const std::span<const int32_t> slots = s.Values(Input::kSlotMapping);
    const int64_t cacheSlots = s.CacheSlots();
    if (cacheSlots > 512 * static_cast<int64_t>(slots.size())) return false;
    std::vector<uint64_t>& seen = s.writtenRowBits;
    seen.assign(static_cast<size_t>((cacheSlots + 63) / 64), 0);
    for (const int32_t slot : slots) {
        if (slot < 0 || slot >= cacheSlots) continue;
        uint64_t& word = seen[static_cast<size_t>(slot / 64)];
        const uint64_t bit = uint64_t{1} << (slot % 64);
        if ((word & bit) != 0) return false;
        word |= bit;
    }
    return true;
}

Verdict SlotsUnique(const S& s) {
    if (!s.Compressed() && TokenSlotsDistinct(s)) return Pass();
    std::vector<SlotRun>& runs = WrittenRuns(s);
    std::sort(runs.begin(), runs.end(), [](const SlotRun& a, const SlotRun& b) { return a.slot < b.slot; });
    for (size_t k = 1; k < runs.size(); ++k) {
        const SlotRun& a = runs[k - 1];
        const SlotRun& b = runs[k];
        if (b.slot >= a.slot + a.rows) continue;
        const auto [first, second] = std::minmax(a.index, b.index);
        if (!s.Compressed()) {
            return Fail("slotMapping[", first, "] and slotMapping[", second,
                        "] must differ (each cache slot ", "is written once), both are ", a.slot);
        }
        return Fail("slotMapping[", first, "] and slotMapping[", second, "] write overlapping cache rows [",
                    a.slot, ", ", a.slot + a.rows, ") and [", b.slot, ", ", b.slot + b.rows,
                    "); each cache row must be written once");
    }
    return Pass();
}

Verdict SeqLenTotal(const S& s) {
    if (!s.Compressed()) return Pass();
    const std::span<const int32_t> seqLen = s.Values(Input::kSeqLen);
    int64_t total = 0;
    for (size_t b = 0; b < seqLen.size(); ++b) {
        if (seqLen[b] < 0) return Fail("seqLen[", b, "] must be >= 0, got ", seqLen[b]);
        total += seqLen[b];
    }
    return Require(total <= s.Tokens(), "the sequences must fit the key: sum(seqLen) = ", total,
                   " must be <= key.dims[0] = ", s.Tokens());
}

Verdict WinsRange(const S& s) {
    if (!s.Compressed()) return Pass();
    for (const HeadWindow& w : s.windows) {
        if (w.length < 0) continue;  // rac.device.seq_len_total reports it
        if (w.window < 0 || w.window > w.length) {
            return Fail("wins[", w.item, "] (batch ", w.batch, ", head ", w.head, ") must be in [0, seqLen[",
                        w.batch, "] = ", w.length, "], got ", w.window);
        }
    }
    return Pass();
}

Verdict OffsetRange(const S& s) {
    if (!s.Rope()) return Pass();
    for (const HeadWindow& w : s.windows) {
        if (w.length < 0 || w.window < 0 || w.window > w.length) continue;  // reported by the rules above
        if (w.offset != -1 && (w.offset < 0 || w.offset > w.length - w.window)) {
            return Fail("offsetIndex[", w.item, "] (batch ", w.batch, ", head ", w.head,
                        ") must be -1 or in ", "[0, seqLen - wins] = [0, ", w.length, " - ", w.window,
                        "], got ", w.offset);
        }
    }
    return Pass();
}

}  // namespace

std::vector<RacRule> ValueRules() {
    const auto kAll = ProfileSet::All();
    const auto kDevice = Stage::kDeviceValues;
    const auto kCode = ERROR_INVALID_PARAM;
    return {
        {{"rac.device.slots_in_range", kOp, kDevice, kAll, kCode,
          "every cache row written lies inside the cache: each non-negative slot (compression: slot + t for "
          "every row t the head writes) < num_blocks * block_size; negative slots are skipped",
          "docs/spec/DECISIONS.md 19; docs/spec/self_attention.md 4.2"},
         SlotsInRange},
        {{"rac.device.slots_unique", kOp, kDevice, kAll, kCode,
          "no cache row is written twice (distinct non-negative slots; compression: disjoint slot ranges)",
          "docs/spec/self_attention.md 4.2 (slots are expected unique); docs/decisions.md ReshapeAndCache"},
         SlotsUnique},
        {{"rac.device.seq_len_total", kOp, kDevice, kAll, kCode,
          "head compression: every seqLen[b] >= 0 and sum(seqLen) <= key.dims[0]",
          "docs/spec/self_attention.md 4.2 (cumulative seqLen indexes the key rows); docs/spec/DECISIONS.md "
          "19"},
         SeqLenTotal},
        {{"rac.device.wins_range", kOp, kDevice, kAll, kCode,
          "head compression: 0 <= wins[b * heads + h] <= seqLen[b]", "docs/spec/self_attention.md 4.2, 6.5"},
         WinsRange},
        {{"rac.device.offset_range", kOp, kDevice, kAll, kCode,
          "KVHEAD_ROPE: offsetIndex[i] == -1 or 0 <= offsetIndex[i] <= seqLen[b] - wins[i]",
          "docs/spec/self_attention.md 4.2, 6.5 (offset U[-1, len - win])"},
         OffsetRange},
    };
}

}  // namespace atbx::ops::rac
