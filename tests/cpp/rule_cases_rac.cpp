// ReshapeAndCache rule cases: for every rule, a valid call and the change that breaks only that rule.
#include <gtest/gtest.h>

#include "support/rac_calls.h"
#include "support/rule_case.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

constexpr int kKvHead = Param::COMPRESS_TYPE_KVHEAD;
constexpr int kRope = Param::COMPRESS_TYPE_KVHEAD_ROPE;

// Valid calls of each mode.
TestCall Nd() {
    return MakeRacCall({});
}
TestCall NdAtlas350() {
    return MakeRacCall({}, {}, Platform::kAtlas350);
}
TestCall KeyOnly() {
    return MakeRacCall(RacParam(0, Param::K_CACHE_V_BYPASS));
}
TestCall NzInference() {
    return MakeRacCall({}, {}, Platform::kAtlasInference);
}
TestCall NzTraining() {
    return MakeRacCall({}, {}, Platform::kAtlasTraining);
}
TestCall NzA2() {
    return MakeRacCall(RacParam(0, Param::K_CACHE_V_CACHE_NZ));
}
TestCall NzA2Int8Key() {
    RacShape shape;
    shape.dtype = ACL_INT8;
    shape.valueDtype = ACL_FLOAT16;
    return MakeRacCall(RacParam(0, Param::K_CACHE_V_CACHE_NZ), shape);
}
TestCall KvHead() {
    return MakeRacCall(RacParam(kKvHead));
}
TestCall Rope() {
    return MakeRacCall(RacParam(kRope));
}

template <class F>
std::function<void(TestCall&)> WithParam(F change) {
    return [change](TestCall& c) { change(c.Param<Param>()); };
}

Dims& ShapeOf(TestCall& c, const char* input) {
    return c.In(input).desc.shape;
}
void SetDim(TestCall& c, const char* input, int dim, int64_t value) {
    ShapeOf(c, input).dims[dim] = value;
}
void AddDim(TestCall& c, const char* input) {
    ShapeOf(c, input).dims[ShapeOf(c, input).dimNum++] = 1;
}
void SetDtypes(TestCall& c, aclDataType dtype) {
    for (const char* name : {"key", "value", "keyCache", "valueCache"})
        c.In(name).desc.dtype = dtype;
}
// Sets dims[dim] of key and value to `keyValue` and dims[cacheDim] of both caches to `cacheValue`.
void SetKvDims(TestCall& c, int dim, int64_t keyValue, int cacheDim, int64_t cacheValue) {
    for (const char* name : {"key", "value"})
        SetDim(c, name, dim, keyValue);
    for (const char* name : {"keyCache", "valueCache"})
        SetDim(c, name, cacheDim, cacheValue);
}

std::span<int32_t> Values(TestCall& c, const char* input) {
    return Elements<int32_t>(c.In(input));
}
int64_t CacheSlots(TestCall& c) {
    const Dims& cache = ShapeOf(c, "keyCache");
    const bool nz = c.In("keyCache").desc.format == ACL_FORMAT_FRACTAL_NZ;
    return cache.dims[0] * cache.dims[nz ? 2 : 1];
}

// Index of the n-th non-negative slot of a call without compression.
size_t NonNegativeSlot(TestCall& c, int n) {
    std::span<int32_t> slots = Values(c, "slotMapping");
    for (size_t t = 0; t < slots.size(); ++t) {
        if (slots[t] >= 0 && n-- == 0) return t;
    }
    ADD_FAILURE() << "the call has too few non-negative slots";
    return 0;
}

// Cache rows item i of a compress call writes (docs/spec/self_attention.md 4.2), computed here from the
// inputs.
int64_t HeadRows(TestCall& c, size_t i) {
    const int64_t heads = ShapeOf(c, "key").dims[1];
    const int64_t length = Values(c, "seqLen")[i / heads];
    const int64_t win = Values(c, "wins")[i];
    if (c.Param<Param>().compressType == kKvHead) return win;
    const int64_t offset = Values(c, "offsetIndex")[i];
    return (offset != -1 && win > 0) ? length - win + 1 : length;
}

// A compress item whose slot is non-negative and that writes at least one row.
size_t WritingHead(TestCall& c, int n) {
    std::span<int32_t> slots = Values(c, "slotMapping");
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0 && HeadRows(c, i) > 0 && n-- == 0) return i;
    }
    ADD_FAILURE() << "the call has too few writing heads";
    return 0;
}

void SlotOutOfRange(TestCall& c) {
    Values(c, "slotMapping")[NonNegativeSlot(c, 0)] = static_cast<int32_t>(CacheSlots(c));
}

void DuplicateSlot(TestCall& c) {
    Values(c, "slotMapping")[NonNegativeSlot(c, 1)] = Values(c, "slotMapping")[NonNegativeSlot(c, 0)];
}

// The last row of a writing head one past the cache.
void HeadRunOutOfRange(TestCall& c) {
    const size_t i = WritingHead(c, 0);
    Values(c, "slotMapping")[i] = static_cast<int32_t>(CacheSlots(c) - HeadRows(c, i) + 1);
}

// Two writing heads start at the same row (the shorter run moved onto the longer one, so both stay in range).
void HeadRunsOverlap(TestCall& c) {
    size_t a = WritingHead(c, 0), b = WritingHead(c, 1);
    if (HeadRows(c, a) < HeadRows(c, b)) std::swap(a, b);
    Values(c, "slotMapping")[b] = Values(c, "slotMapping")[a];
}

TestCall TwoWritingHeads(int compressType) {
    RacShape shape;
    shape.seqLens = {5, 6, 4};
    shape.tokens = 16;
    shape.numBlocks = 8;
    TestCall c;
    for (uint64_t seed = 1; seed < 100;
         ++seed) {  // the first seed whose random windows give two writing heads
        shape.seed = seed;
        c = MakeRacCall(RacParam(compressType), shape);
        int writing = 0;
        for (size_t i = 0; i < Values(c, "slotMapping").size(); ++i)
            writing += Values(c, "slotMapping")[i] >= 0 && HeadRows(c, i) > 0;
        if (writing >= 2) return c;
    }
    ADD_FAILURE() << "no seed gives two writing heads";
    return c;
}

std::vector<RuleCase> ParamCases() {
    const ErrorType kCode = ERROR_INVALID_PARAM;
    return {
        {"rac.param.rsv_zero", kCode, "", Nd, WithParam([](Param& p) { p.rsv[15] = 1; })},
        {"rac.param.compress_type_range", kCode, "5", Nd,
         WithParam([](Param& p) { p.compressType = static_cast<Param::CompressType>(5); })},
        {"rac.param.compress_type_range", kCode, "negative", Nd,
         WithParam([](Param& p) { p.compressType = static_cast<Param::CompressType>(-1); })},
        {"rac.param.kv_cache_cfg_range", kCode, "3", Nd,
         WithParam([](Param& p) { p.kvCacheCfg = static_cast<Param::KvCacheCfg>(3); })},
        {"rac.param.kv_cache_cfg_range", kCode, "negative", Nd,
         WithParam([](Param& p) { p.kvCacheCfg = static_cast<Param::KvCacheCfg>(-1); })},
        {"rac.param.compress_platform", kCode, "inference", NzInference,
         WithParam([](Param& p) { p.compressType = Param::COMPRESS_TYPE_KVHEAD; })},
        {"rac.param.compress_platform", kCode, "atlas_350_rope", NdAtlas350,
         WithParam([](Param& p) { p.compressType = Param::COMPRESS_TYPE_KVHEAD_ROPE; })},
        {"rac.param.key_only_platform", kCode, "inference", NzInference,
         WithParam([](Param& p) { p.kvCacheCfg = Param::K_CACHE_V_BYPASS; })},
        {"rac.param.key_only_platform", kCode, "training", NzTraining,
         WithParam([](Param& p) { p.kvCacheCfg = Param::K_CACHE_V_BYPASS; })},
        {"rac.param.nz_cfg_platform", kCode, "atlas_350", NdAtlas350,
         WithParam([](Param& p) { p.kvCacheCfg = Param::K_CACHE_V_CACHE_NZ; })},
        {"rac.param.nz_cfg_platform", kCode, "inference", NzInference,
         WithParam([](Param& p) { p.kvCacheCfg = Param::K_CACHE_V_CACHE_NZ; })},
        {"rac.param.key_only_no_compress", kCode, "", KeyOnly,
         WithParam([](Param& p) { p.compressType = Param::COMPRESS_TYPE_KVHEAD; })},
        {"rac.param.nz_cfg_no_compress", kCode, "", NzA2,
         WithParam([](Param& p) { p.compressType = Param::COMPRESS_TYPE_KVHEAD_ROPE; })},
    };
}

std::vector<RuleCase> DtypeCases() {
    const ErrorType kIni = ERROR_INVALID_TENSOR_INI_MATCH;
    return {
        {"rac.dtype.index_int32", kIni, "slot_mapping_float16", Nd,
         [](TestCall& c) { c.In("slotMapping").desc.dtype = ACL_FLOAT16; }},
        {"rac.dtype.index_int32", kIni, "offset_index_int64", Rope,
         [](TestCall& c) { c.In("offsetIndex").desc.dtype = ACL_INT64; }},
        {"rac.dtype.index_int32", kIni, "seq_len_int64", KvHead,
         [](TestCall& c) { c.In("seqLen").desc.dtype = ACL_INT64; }},
        {"rac.dtype.kv_combination", kIni, "mixed_nd", Nd,
         [](TestCall& c) {
             c.In("value").desc.dtype = ACL_BF16;
             c.In("valueCache").desc.dtype = ACL_BF16;
         }},
        {"rac.dtype.kv_combination", kIni, "cache_differs", Nd,
         [](TestCall& c) { c.In("keyCache").desc.dtype = ACL_BF16; }},
        {"rac.dtype.kv_combination", kIni, "rope_int8", Rope, [](TestCall& c) { SetDtypes(c, ACL_INT8); }},
        {"rac.dtype.kv_combination", kIni, "nz_a2_int8_value", NzA2Int8Key,
         [](TestCall& c) {
             c.In("value").desc.dtype = ACL_INT8;
             c.In("valueCache").desc.dtype = ACL_INT8;
         }},
        {"rac.dtype.kv_combination", kIni, "key_only_float32", KeyOnly,
         [](TestCall& c) {
             c.In("key").desc.dtype = ACL_FLOAT;
             c.In("keyCache").desc.dtype = ACL_FLOAT;
         }},
        {"rac.format.nd_inputs", kIni, "", Nd,
         [](TestCall& c) { c.In("key").desc.format = ACL_FORMAT_FRACTAL_NZ; }},
        {"rac.format.cache", kIni, "nz_on_a2_nd", Nd,
         [](TestCall& c) { c.In("valueCache").desc.format = ACL_FORMAT_FRACTAL_NZ; }},
        {"rac.format.cache", kIni, "nd_on_inference", NzInference,
         [](TestCall& c) {
             c.In("keyCache").desc.format = ACL_FORMAT_ND;
             c.In("valueCache").desc.format = ACL_FORMAT_ND;
         }},
        {"rac.format.cache", kIni, "nd_with_nz_cfg", NzA2,
         [](TestCall& c) { c.In("keyCache").desc.format = ACL_FORMAT_ND; }},
        {"rac.dtype.nz_products_float16", ERROR_INVALID_TENSOR_DTYPE, "bf16_inference", NzInference,
         [](TestCall& c) { SetDtypes(c, ACL_BF16); }},
        {"rac.dtype.nz_products_float16", ERROR_INVALID_TENSOR_DTYPE, "int8_training", NzTraining,
         [](TestCall& c) { SetDtypes(c, ACL_INT8); }},
    };
}

std::vector<RuleCase> RankCases() {
    const ErrorType kDimNum = ERROR_INVALID_TENSOR_DIM_NUM;
    return {
        {"rac.rank.key_value", kDimNum, "", Nd, [](TestCall& c) { AddDim(c, "value"); }},
        {"rac.rank.caches", kDimNum, "", KeyOnly, [](TestCall& c) { ShapeOf(c, "keyCache").dimNum = 3; }},
        {"rac.rank.slot_mapping", kDimNum, "", Nd, [](TestCall& c) { AddDim(c, "slotMapping"); }},
        {"rac.rank.compress_lengths", kDimNum, "seq_len", KvHead, [](TestCall& c) { AddDim(c, "seqLen"); }},
        {"rac.rank.compress_lengths", kDimNum, "offset_index", Rope,
         [](TestCall& c) { AddDim(c, "offsetIndex"); }},
    };
}

std::vector<RuleCase> ShapeCases() {
    const ErrorType kDim = ERROR_INVALID_TENSOR_DIM;
    return {
        {"rac.shape.tokens_equal", kDim, "", Nd, [](TestCall& c) { SetDim(c, "value", 0, 8); }},
        {"rac.shape.heads_equal", kDim, "", Nd,
         [](TestCall& c) {
             SetDim(c, "value", 1, 3);
             SetDim(c, "valueCache", 2, 3);
         }},
        {"rac.shape.num_blocks_equal", kDim, "", Nd, [](TestCall& c) { SetDim(c, "valueCache", 0, 6); }},
        {"rac.shape.block_size_equal", kDim, "nd", Nd, [](TestCall& c) { SetDim(c, "valueCache", 1, 17); }},
        {"rac.shape.block_size_equal", kDim, "nz", NzInference,
         [](TestCall& c) { SetDim(c, "valueCache", 2, 32); }},
        {"rac.shape.cache_heads", kDim, "nd", Nd, [](TestCall& c) { SetDim(c, "keyCache", 2, 3); }},
        {"rac.shape.cache_heads", kDim, "key_only", KeyOnly,
         [](TestCall& c) { SetDim(c, "keyCache", 2, 1); }},
        {"rac.shape.cache_head_size", kDim, "nd", Nd, [](TestCall& c) { SetDim(c, "valueCache", 3, 16); }},
        {"rac.shape.cache_head_size", kDim, "key_only", KeyOnly,
         [](TestCall& c) { SetDim(c, "keyCache", 3, 64); }},
        {"rac.shape.cache_head_size", kDim, "rope", Rope, [](TestCall& c) { SetDim(c, "keyCache", 3, 33); }},
        {"rac.shape.key_value_head_size_equal", kDim, "kvhead", KvHead,
         [](TestCall& c) {
             SetDim(c, "value", 2, 64);
             SetDim(c, "valueCache", 3, 64);
         }},
        {"rac.shape.key_value_head_size_equal", kDim, "inference", NzInference,
         [](TestCall& c) {
             SetDim(c, "value", 2, 48);
             SetDim(c, "valueCache", 1, 6);
         }},
        {"rac.shape.compress_cache_heads_one", kDim, "", KvHead,
         [](TestCall& c) { SetDim(c, "valueCache", 2, 2); }},
        {"rac.shape.compress_head_size_multiple_of_32", kDim, "", KvHead,
         [](TestCall& c) { SetKvDims(c, 2, 48, 3, 48); }},
        {"rac.shape.rope_head_size_limit", kDim, "", Rope,
         [](TestCall& c) { SetKvDims(c, 2, 16416, 3, 16416); }},
        {"rac.shape.nz_block_size_multiple_of_16", kDim, "inference", NzInference,
         [](TestCall& c) {
             SetDim(c, "keyCache", 2, 24);
             SetDim(c, "valueCache", 2, 24);
         }},
        {"rac.shape.nz_block_size_multiple_of_16", kDim, "a2", NzA2,
         [](TestCall& c) {
             SetDim(c, "keyCache", 2, 8);
             SetDim(c, "valueCache", 2, 8);
         }},
        {"rac.shape.nz_key_cache_tiles", kDim, "inference_last_dim", NzInference,
         [](TestCall& c) {
             SetDim(c, "keyCache", 1, 2);
             SetDim(c, "keyCache", 3, 32);
         }},
        {"rac.shape.nz_key_cache_tiles", kDim, "a2_int8_key_16_wide", NzA2Int8Key,
         [](TestCall& c) {
             SetDim(c, "keyCache", 1, 4);
             SetDim(c, "keyCache", 3, 16);
         }},
        {"rac.shape.nz_value_cache_tiles", kDim, "", NzA2,
         [](TestCall& c) { SetDim(c, "valueCache", 1, 5); }},
        {"rac.shape.slot_mapping_length", kDim, "nd", Nd,
         [](TestCall& c) { SetDim(c, "slotMapping", 0, 8); }},
        {"rac.shape.slot_mapping_length", kDim, "key_only", KeyOnly,
         [](TestCall& c) { SetDim(c, "slotMapping", 0, 6); }},
        {"rac.shape.compress_lengths", kDim, "wins", KvHead, [](TestCall& c) { SetDim(c, "wins", 0, 5); }},
        {"rac.shape.compress_lengths", kDim, "slot_mapping", Rope,
         [](TestCall& c) { SetDim(c, "slotMapping", 0, 3); }},
        {"rac.shape.rope_offset_length", kDim, "", Rope, [](TestCall& c) { SetDim(c, "offsetIndex", 0, 5); }},
    };
}

std::vector<RuleCase> DeviceValueCases() {
    const ErrorType kCode = ERROR_INVALID_PARAM;
    return {
        {"rac.device.slots_in_range", kCode, "nd", Nd, SlotOutOfRange},
        {"rac.device.slots_in_range", kCode, "key_only", KeyOnly, SlotOutOfRange},
        {"rac.device.slots_in_range", kCode, "nz_training", NzTraining, SlotOutOfRange},
        {"rac.device.slots_in_range", kCode, "nz_a2", NzA2Int8Key, SlotOutOfRange},
        {"rac.device.slots_in_range", kCode, "kvhead_last_row", [] { return TwoWritingHeads(kKvHead); },
         HeadRunOutOfRange},
        {"rac.device.slots_in_range", kCode, "rope_last_row", [] { return TwoWritingHeads(kRope); },
         HeadRunOutOfRange},
        {"rac.device.slots_unique", kCode, "nd", Nd, DuplicateSlot},
        {"rac.device.slots_unique", kCode, "nz_inference", NzInference, DuplicateSlot},
        {"rac.device.slots_unique", kCode, "kvhead", [] { return TwoWritingHeads(kKvHead); },
         HeadRunsOverlap},
        {"rac.device.slots_unique", kCode, "rope", [] { return TwoWritingHeads(kRope); }, HeadRunsOverlap},
        {"rac.device.seq_len_total", kCode, "sum_over_tokens", KvHead,
         [](TestCall& c) { Values(c, "seqLen")[1] += 1; }},
        {"rac.device.seq_len_total", kCode, "negative", Rope,
         [](TestCall& c) { Values(c, "seqLen")[0] = -1; }},
        {"rac.device.wins_range", kCode, "over_seq_len", KvHead,
         [](TestCall& c) { Values(c, "wins")[3] = Values(c, "seqLen")[1] + 1; }},
        {"rac.device.wins_range", kCode, "negative", Rope, [](TestCall& c) { Values(c, "wins")[0] = -1; }},
        {"rac.device.offset_range", kCode, "past_window", Rope,
         [](TestCall& c) {
             Values(c, "offsetIndex")[2] = Values(c, "seqLen")[1] - Values(c, "wins")[2] + 1;
         }},
        {"rac.device.offset_range", kCode, "below_minus_one", Rope,
         [](TestCall& c) { Values(c, "offsetIndex")[1] = -2; }},
    };
}

}  // namespace

std::vector<RuleCase> ReshapeAndCacheRuleCases() {
    std::vector<RuleCase> all;
    for (auto* part : {&ParamCases, &DtypeCases, &RankCases, &ShapeCases, &DeviceValueCases}) {
        std::vector<RuleCase> cases = part();
        all.insert(all.end(), cases.begin(), cases.end());
    }
    return all;
}

}  // namespace atbx::test
