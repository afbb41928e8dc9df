#include "bench/rac_row.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "atbx/infer_op_params.h"
#include "bench/decode_row.h"
#include "core/str_cat.h"

namespace atbx::cli::bench {
namespace {

using Param = infer::ReshapeAndCacheParam;

bool Compressed(const RacShape& s) {
    return s.mode == RacMode::kKvHead || s.mode == RacMode::kKvHeadRope;
}

int64_t Blocks(int64_t rows, int64_t blockSize) {
    return (rows + blockSize - 1) / blockSize;
}

// KVHEAD_ROPE: every head averages the window [tokens / 4, tokens / 4 + tokens / 8) into one row.
int32_t RopeOffset(const RacShape& s) {
    return s.tokens / 4;
}
int32_t RopeWindow(const RacShape& s) {
    return std::max(1, s.tokens / 8);
}

// Cache rows a head writes (compression) or a cache holds per head (the others: every token's row).
int64_t RowsPerHead(const RacShape& s) {
    return s.mode == RacMode::kKvHeadRope ? s.tokens - RopeWindow(s) + 1 : s.tokens;
}

// Blocks of one cache: a block per blockSize tokens, and with compression the heads' runs side by side.
int64_t CacheBlocks(const RacShape& s) {
    const int64_t perHead = Blocks(s.tokens, s.blockSize);
    return Compressed(s) ? perHead * s.kvHeads : perHead;
}

Param ParamOf(const RacShape& s) {
    Param p;
    if (s.mode == RacMode::kNz) p.kvCacheCfg = Param::K_CACHE_V_CACHE_NZ;
    if (s.mode == RacMode::kKeyOnly) p.kvCacheCfg = Param::K_CACHE_V_BYPASS;
    if (s.mode == RacMode::kKvHead) p.compressType = Param::COMPRESS_TYPE_KVHEAD;
    if (s.mode == RacMode::kKvHeadRope) p.compressType = Param::COMPRESS_TYPE_KVHEAD_ROPE;
    return p;
}

// ND [NB, BS, heads, D] (compression: heads 1), or FRACTAL_NZ [NB, heads * D / tile, BS, tile].
TensorDesc CacheDesc(const RacShape& s) {
    if (s.mode == RacMode::kNz) {
        const int64_t tile = s.dtype == ACL_INT8 ? 32 : 16;
        TensorDesc d = Desc(s.dtype, {CacheBlocks(s), s.kvHeads * s.headSize / tile, s.blockSize, tile});
        d.format = ACL_FORMAT_FRACTAL_NZ;
        return d;
    }
    return Desc(s.dtype, {CacheBlocks(s), s.blockSize, Compressed(s) ? 1 : s.kvHeads, s.headSize});
}

// Token t goes to slot t % blockSize of the sequence's (t / blockSize)-th block; blocks are shuffled, as an
// allocator hands them out. With compression each head's run starts a block of its own, heads in random
// order.
std::vector<int32_t> Slots(const RacShape& s, std::mt19937_64& rng) {
    const int64_t perHead = Blocks(s.tokens, s.blockSize);
    if (Compressed(s)) {
        std::vector<int32_t> heads(s.kvHeads);
        std::iota(heads.begin(), heads.end(), 0);
        std::shuffle(heads.begin(), heads.end(), rng);
        for (int32_t& h : heads)
            h = static_cast<int32_t>(h * perHead * s.blockSize);
        return heads;
    }
    std::vector<int32_t> blocks(perHead);
    std::iota(blocks.begin(), blocks.end(), 0);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    std::vector<int32_t> slots(s.tokens);
    for (int32_t t = 0; t < s.tokens; ++t)
        slots[t] = blocks[t / s.blockSize] * s.blockSize + t % s.blockSize;
    return slots;
}

void AddInt32(BenchCall& call, const std::vector<int32_t>& values) {
    auto* data = reinterpret_cast<int32_t*>(
        call.AddInput(Desc(ACL_INT32, {static_cast<int64_t>(values.size())}), true));
    std::copy(values.begin(), values.end(), data);
}

BenchCall MakeCall(const RacShape& s, uint64_t seed, perf::Pages pages) {
    std::mt19937_64 rng(seed);
    BenchCall call{ParamOf(s), pages};
    const double range = s.dtype == ACL_INT8 ? 100.0 : 1.0;
    const int caches = s.mode == RacMode::kKeyOnly ? 1 : 2;
    for (int i = 0; i < caches; ++i)
        call.AddRandomInput(Desc(s.dtype, {s.tokens, s.kvHeads, s.headSize}), -range, range, rng());
    for (int i = 0; i < caches; ++i)
        call.AddRandomInput(CacheDesc(s), -range, range, rng());
    AddInt32(call, Slots(s, rng));
    if (Compressed(s)) {
        const bool rope = s.mode == RacMode::kKvHeadRope;
        AddInt32(call, std::vector<int32_t>(s.kvHeads, rope ? RopeWindow(s) : s.tokens));  // wins
        AddInt32(call, {s.tokens});                                                        // seqLen
        if (rope) AddInt32(call, std::vector<int32_t>(s.kvHeads, RopeOffset(s)));          // offsetIndex
    }
    for (int i = 0; i < caches; ++i)
        call.AddAliasOutput(caches + i);
    return call;
}

const char* ModeName(RacMode mode) {
    switch (mode) {
        case RacMode::kNd:
            return "nd";
        case RacMode::kNz:
            return "nz";
        case RacMode::kKeyOnly:
            return "key-only";
        case RacMode::kKvHead:
            return "kvhead";
        case RacMode::kKvHeadRope:
            return "kvhead-rope";
    }
    return "";
}

}  // namespace

RowSpec RacRow(const RacShape& s) {
    RowSpec row;
    row.op = "ReshapeAndCache";
    row.family = s.family;
    // Compression: each head's window (w) and, KVHEAD_ROPE, where its mean starts (o).
    std::string window;
    if (s.mode == RacMode::kKvHead) window = core::StrCat(" w", s.tokens);
    if (s.mode == RacMode::kKvHeadRope) window = core::StrCat(" w", RopeWindow(s), " o", RopeOffset(s));
    row.shape = core::StrCat(s.family, " ", ModeName(s.mode), " t", s.tokens, window, " bs", s.blockSize);
    row.dtype = DtypeName(s.dtype);
    row.cold = s.cold;
    const int64_t caches = s.mode == RacMode::kKeyOnly ? 1 : 2;
    const int64_t rowBytes = int64_t{s.headSize} * DataTypeSize(s.dtype);
    const int64_t readBytes = caches * s.tokens * s.kvHeads * rowBytes;
    const int64_t writtenBytes = caches * RowsPerHead(s) * s.kvHeads * rowBytes;
    row.kvBytes = readBytes + writtenBytes;  // read from key and value, written into the caches
    row.bytes = row.kvBytes;
    row.copyBound = true;
    row.layerBytes = readBytes + caches * ByteSize(CacheDesc(s));
    row.make = [s](uint64_t seed, perf::Pages pages) { return MakeCall(s, seed, pages); };
    row.peer = {{"op", "cache_write"},        {"mode", ModeName(s.mode)}, {"kv_heads", s.kvHeads},
                {"head_size", s.headSize},    {"tokens", s.tokens},       {"block_size", s.blockSize},
                {"dtype", DtypeName(s.dtype)}};
    return row;
}

}  // namespace atbx::cli::bench
