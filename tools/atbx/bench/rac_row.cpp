#include "bench/rac_row.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "atbx/infer_op_params.h"
#include "bench/decode_row.h"
#include "core/str_cat.h"

namespace atbx::cli::bench {
namespace {

int64_t Blocks(const RacShape& s) {
    return (s.tokens + s.blockSize - 1) / s.blockSize;
}

// Token t goes to slot t % blockSize of the sequence's (t / blockSize)-th block; blocks are shuffled, as an
// allocator hands them out.
std::vector<int32_t> Slots(const RacShape& s, std::mt19937_64& rng) {
    std::vector<int32_t> blocks(Blocks(s));
    std::iota(blocks.begin(), blocks.end(), 0);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    std::vector<int32_t> slots(s.tokens);
    for (int32_t t = 0; t < s.tokens; ++t)
        slots[t] = blocks[t / s.blockSize] * s.blockSize + t % s.blockSize;
    return slots;
}

BenchCall MakeCall(const RacShape& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    BenchCall call{infer::ReshapeAndCacheParam{}};
    const double range = s.dtype == ACL_INT8 ? 100.0 : 1.0;
    for (int i = 0; i < 2; ++i)
        call.AddRandomInput(Desc(s.dtype, {s.tokens, s.kvHeads, s.headSize}), -range, range, rng());
    for (int i = 0; i < 2; ++i)
        call.AddRandomInput(Desc(s.dtype, {Blocks(s), s.blockSize, s.kvHeads, s.headSize}), -range, range,
                            rng());
    const std::vector<int32_t> slots = Slots(s, rng);
    auto* slotData = reinterpret_cast<int32_t*>(call.AddInput(Desc(ACL_INT32, {s.tokens})));
    std::copy(slots.begin(), slots.end(), slotData);
    call.AddAliasOutput(2);
    call.AddAliasOutput(3);
    return call;
}

}  // namespace

RowSpec RacRow(const RacShape& s) {
    RowSpec row;
    row.op = "ReshapeAndCache";
    row.family = s.family;
    row.shape = core::StrCat(s.family, " t", s.tokens, " bs", s.blockSize);
    row.dtype = DtypeName(s.dtype);
    row.cold = s.cold;
    const int64_t newBytes = int64_t{2} * s.tokens * s.kvHeads * s.headSize * DataTypeSize(s.dtype);
    row.kvBytes = 2 * newBytes;  // read from key and value, written into the caches
    row.bytes = row.kvBytes;
    row.copyBound = true;
    row.layerBytes = newBytes + 2 * Blocks(s) * s.blockSize * s.kvHeads * s.headSize * DataTypeSize(s.dtype);
    row.make = [s](uint64_t seed) { return MakeCall(s, seed); };
    row.peer = {{"op", "cache_write"}, {"kv_heads", s.kvHeads},     {"head_size", s.headSize},
                {"tokens", s.tokens},  {"block_size", s.blockSize}, {"dtype", DtypeName(s.dtype)}};
    return row;
}

}  // namespace atbx::cli::bench
