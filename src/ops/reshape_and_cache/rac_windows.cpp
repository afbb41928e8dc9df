#include "ops/reshape_and_cache/rac_windows.h"

namespace atbx::ops::rac {

void LoadDeviceValues(RacSubject& s) {
    std::vector<HeadWindow>& windows = s.windows;
    windows.clear();
    if (!s.Compressed()) return;
    const std::span<const int32_t> slots = s.Values(Input::kSlotMapping);
    const std::span<const int32_t> wins = s.Values(Input::kWins);
    const std::span<const int32_t> seqLen = s.Values(Input::kSeqLen);
    const int64_t heads = s.Heads();
    windows.reserve(slots.size());
    int64_t firstToken = 0;
    for (int64_t b = 0; b < s.Batch(); ++b) {
        for (int64_t h = 0; h < heads; ++h) {
            HeadWindow w;
            w.item = b * heads + h;
            w.batch = b;
            w.head = h;
            w.firstToken = firstToken;
            w.length = seqLen[b];
            w.window = wins[w.item];
            w.offset = s.Rope() ? s.Values(Input::kOffsetIndex)[w.item] : -1;
            w.slot = slots[w.item];
            windows.push_back(w);
        }
        firstToken += seqLen[b];
    }
}

bool Consistent(const RacSubject& s, const HeadWindow& w) {
    if (w.length < 0 || w.window < 0 || w.window > w.length) return false;
    if (w.firstToken < 0 || w.firstToken + w.length > s.Tokens()) return false;
    return !s.Rope() || w.offset == -1 || (w.offset >= 0 && w.offset <= w.length - w.window);
}

bool Averages(const RacSubject& s, const HeadWindow& w) {
    return s.Rope() && w.offset != -1 && w.window > 0;
}

int64_t RowsWritten(const RacSubject& s, const HeadWindow& w) {
    if (!s.Rope()) return w.window;
    return Averages(s, w) ? w.length - w.window + 1 : w.length;
}

}  // namespace atbx::ops::rac
