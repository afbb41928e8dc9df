#include "ops/reshape_and_cache/rac_plan.h"

#include <algorithm>

#include "ops/reshape_and_cache/rac_windows.h"

namespace atbx::ops::rac {
namespace {

using plan::CacheWriteStream;
using plan::RowWrite;

// Where the rows of one cache go: ND [NB, BS, heads, D] (compression: heads = 1), or FRACTAL_NZ
// [NB, heads * D / tile, BS, tile], for a tensor [T, Nh, D] that `stored` names.
struct CacheLayout {
    int64_t rowChannels = 0;  // channels of one cache row: heads * D (compression: D)
    int64_t blockSize = 0;
    int tile = 0;  // 0: ND

    // Element offset of channel 0 of the cache row `slot`.
    int64_t RowOffset(int64_t slot) const {
        if (tile == 0) return slot * rowChannels;
        return (slot / blockSize) * blockSize * rowChannels + (slot % blockSize) * tile;
    }
};

CacheLayout LayoutOf(const RacSubject& s, Input cache, Input stored) {
    CacheLayout layout;
    const int64_t headSize = s.Dim(stored, 2);
    layout.rowChannels = s.Compressed() ? headSize : s.Heads() * headSize;
    layout.blockSize = s.BlockSize(cache);
    if (s.NzCaches()) layout.tile = static_cast<int>(s.NzTile(cache));
    return layout;
}

// The output of `cache` (output 0 is keyCache, output 1 valueCache).
void* OutputOf(const RacSubject& s, Input cache) {
    return s.pack->outTensors[cache == Input::kKeyCache ? 0 : 1].deviceData;
}

// The plan's stream at `index`, emptied for this call: the stream the plan had there is reused with the
// storage of its rows, so that rebuilding a plan for the same call allocates nothing.
CacheWriteStream& ReusedStream(plan::CacheWritePlan* plan, size_t index) {
    if (index == plan->streams.size()) plan->streams.emplace_back();
    CacheWriteStream& stream = plan->streams[index];
    std::vector<RowWrite> rows = std::move(stream.rows);
    rows.clear();
    stream = CacheWriteStream{};
    stream.rows = std::move(rows);
    return stream;
}

// Copies the cache input into its output when they are different memory (one row: the whole tensor), as
// the plan's next stream.
void CopyCacheIfApart(const RacSubject& s, Input cache, plan::CacheWritePlan* plan, size_t* streams) {
    const void* input = s.Data(cache);
    void* output = OutputOf(s, cache);
    if (input == output) return;
    CacheWriteStream& copy = ReusedStream(plan, (*streams)++);
    copy.src = input;
    copy.dst = output;
    copy.dtype = s.Desc(cache).dtype;
    copy.channels = static_cast<int64_t>(ElementCount(s.Desc(cache)));
    copy.rows.push_back({});
}

// The stream's addressing, before its rows are added.
void StartStream(const RacSubject& s, Input cache, Input stored, const CacheLayout& layout,
                 CacheWriteStream* stream) {
    stream->src = s.Data(stored);
    stream->dst = OutputOf(s, cache);
    stream->dtype = s.Desc(cache).dtype;
    stream->channels = layout.rowChannels;
    stream->dstChannelTile = layout.tile;
    stream->dstChannelTileStride = layout.blockSize * layout.tile;
    stream->srcRunStride =
        s.Compressed() ? s.Heads() * layout.rowChannels : layout.rowChannels;  // next token
    stream->dstRunStride = layout.tile == 0 ? layout.rowChannels : 0;          // next slot
}

// Token t (all heads) to cache row slotMapping[t]; negative slots skipped.
void AddTokenRows(const RacSubject& s, const CacheLayout& layout, CacheWriteStream* stream) {
    const std::span<const int32_t> slots = s.Values(Input::kSlotMapping);
    stream->rows.reserve(slots.size());  // one allocation per Execute: the plan is rebuilt from the slots
    for (size_t t = 0; t < slots.size(); ++t) {
        if (slots[t] < 0) continue;
        RowWrite row;
        row.srcOffset = static_cast<int64_t>(t) * layout.rowChannels;
        row.dstOffset = layout.RowOffset(slots[t]);
        stream->Add(row);
    }
}

// Row (token j, head h) of the stored tensor [T, Nh, D].
int64_t SourceRow(const RacSubject& s, int64_t token, int64_t head, int64_t headSize) {
    return (token * s.Heads() + head) * headSize;
}

// Where token j of the sequence goes for one head (false: nowhere). KVHEAD: the last w tokens, to w
// consecutive rows from the slot. KVHEAD_ROPE: tokens before o copied, the mean of tokens [o, o + w) to one
// row, tokens from o + w copied; a head that does not average copies all L tokens.
bool HeadRow(const RacSubject& s, const HeadWindow& w, int64_t j, const CacheLayout& layout, RowWrite* row) {
    int64_t written = j;  // rows the head writes before this one
    if (!s.Rope()) {
        written = j - (w.length - w.window);
        if (written < 0) return false;
    } else if (Averages(s, w) && j >= w.offset) {
        if (j < w.offset + w.window && j != w.offset) return false;
        if (j == w.offset) {
            row->srcRows = static_cast<int32_t>(w.window);
            row->srcRowStride = s.Heads() * layout.rowChannels;
        } else {
            written = j - w.window + 1;
        }
    }
    row->srcOffset = SourceRow(s, w.firstToken + j, w.head, layout.rowChannels);
    row->dstOffset = layout.RowOffset(w.slot + written);
    return true;
}

// Tokens whose rows are planned together, head after head: the source rows of a group (every head of its
// tokens, a quarter of a task of the CPU copy, kernels/cpu/cache_write_cpu.cpp) are read once, in address
// order, into L2 (the next group's meanwhile) while each head writes a run of consecutive cache rows. Writing
// token by token instead (each token's heads side by side) scatters the stores over every head's run at once,
// which measured several times slower; head after head over the whole sequence reads the source with a
// stride.
constexpr int64_t kHeadGroupBytes = 16 * 1024;
constexpr int64_t kHeadGroupMinTokens = 8;  // the shortest run of rows a head writes at a time

int64_t HeadGroupTokens(const RacSubject& s, const CacheLayout& layout, aclDataType dtype) {
    const auto tokenBytes = static_cast<int64_t>(s.Heads() * layout.rowChannels * DataTypeSize(dtype));
    return std::max(kHeadGroupMinTokens, kHeadGroupBytes / std::max<int64_t>(1, tokenBytes));
}

// The rows of tokens [j0, j1) of one head, each stretch of copied tokens as one run where the cache is ND
// (HeadRow of its first token, the rest following at the stream's run steps), token by token otherwise.
void AddHeadTokens(const RacSubject& s, const HeadWindow& w, int64_t j0, int64_t j1,
                   const CacheLayout& layout, CacheWriteStream* stream) {
    const auto addCopies = [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
            RowWrite row;
            if (!HeadRow(s, w, j, layout, &row)) continue;
            if (layout.tile == 0) row.runRows = static_cast<int32_t>(end - j);
            stream->rows.push_back(row);
            if (layout.tile == 0) return;
        }
    };
    if (!s.Rope()) return addCopies(std::max(j0, w.length - w.window), j1);
    if (!Averages(s, w)) return addCopies(j0, j1);
    addCopies(j0, std::min(j1, w.offset));
    RowWrite mean;
    if (w.offset >= j0 && w.offset < j1 && HeadRow(s, w, w.offset, layout, &mean))
        stream->rows.push_back(mean);
    addCopies(std::max(j0, w.offset + w.window), j1);
}

void AddHeadRows(const RacSubject& s, const CacheLayout& layout, CacheWriteStream* stream) {
    const std::vector<HeadWindow>& windows = s.windows;
    const int64_t groupTokens = HeadGroupTokens(s, layout, stream->dtype);
    size_t entries = 0;  // ND: at most a run per group, and one more run and a mean where a head averages
    for (const HeadWindow& w : windows) {
        if (w.slot < 0) continue;
        entries += static_cast<size_t>(layout.tile == 0 ? (w.length + groupTokens - 1) / groupTokens + 2
                                                        : RowsWritten(s, w));
    }
    stream->rows.reserve(entries);
    for (size_t first = 0; first < windows.size();) {  // the items of one sequence: [first, end)
        size_t end = first;
        while (end < windows.size() && windows[end].batch == windows[first].batch)
            ++end;
        const int64_t length = windows[first].length;
        for (int64_t group = 0; group < length; group += groupTokens) {
            for (size_t k = first; k < end; ++k) {
                if (windows[k].slot >= 0)
                    AddHeadTokens(s, windows[k], group, std::min(length, group + groupTokens), layout,
                                  stream);
            }
        }
        first = end;
    }
}

}  // namespace

void RebuildPlan(const RacSubject& s, plan::CacheWritePlan* plan) {
    size_t streams = 0;
    for (auto [cache, stored] :
         {std::pair{Input::kKeyCache, Input::kKey}, {Input::kValueCache, Input::kValue}}) {
        if (!s.Has(cache)) continue;
        CopyCacheIfApart(s, cache, plan, &streams);
        const CacheLayout layout = LayoutOf(s, cache, stored);
        CacheWriteStream& stream = ReusedStream(plan, streams++);
        StartStream(s, cache, stored, layout, &stream);
        if (s.Compressed()) {
            AddHeadRows(s, layout, &stream);
        } else {
            AddTokenRows(s, layout, &stream);
        }
    }
    plan->streams.resize(streams);
}

plan::CacheWritePlan BuildPlan(const RacSubject& s) {
    plan::CacheWritePlan plan;
    RebuildPlan(s, &plan);
    return plan;
}

}  // namespace atbx::ops::rac
