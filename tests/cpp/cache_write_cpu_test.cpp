// The CPU cache-write kernel ("cpu:copy") against the reference, byte for byte: every ReshapeAndCache mode
// and SelfAttention's KV cache in the op, with sizes that give many tasks (and a whole-cache copy cut into
// pieces), on 1, 2 and 3 threads; caches pre-filled with random data and outputs poisoned, slots distinct and
// random with negative ones (skipped). Plans written here reach what the operations never build: NZ rows
// ending inside a tile, means over rows long enough to be cut into pieces, fp32 and int8 means.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>

#include "atbx/operation.h"
#include "core/float16.h"
#include "kernels/cpu/cache_write_cpu.h"
#include "kernels/ref/cache_write_ref.h"
#include "plan/element.h"
#include "support/rac_calls.h"
#include "support/run_call.h"
#include "support/sa_calls.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;
using Sa = infer::SelfAttentionParam;

struct KernelCase {
    const char* name;
    Param param;
    Platform platform;
    RacShape shape;
    friend void PrintTo(const KernelCase& c, std::ostream* out) { *out << c.name; }
};

constexpr Platform kA2 = Platform::kAtlasA2;

// Rows of 1-2 KiB (compression: 256-512 B): 32-256 rows a task, so each call has several tasks; caches of
// 300 KiB and more, so a separate output's whole-cache copy is cut into pieces. Calls writing 64 KiB or more
// use non-temporal stores (stream_copy.h), the _cached ones (a decode step's few rows) ordinary stores.
std::vector<KernelCase> Cases() {
    const Param nd = RacParam(0);
    const Param keyOnly = RacParam(0, Param::K_CACHE_V_BYPASS);
    const Param nzA2 = RacParam(0, Param::K_CACHE_V_CACHE_NZ);
    const Param kvHead = RacParam(Param::COMPRESS_TYPE_KVHEAD);
    const Param rope = RacParam(Param::COMPRESS_TYPE_KVHEAD_ROPE);
    return {
        {"nd_fp16", nd, kA2, MakeRacShape(301, 8, 128, 128, 16, 20, ACL_FLOAT16)},
        {"nd_bf16_dk_ne_dv", nd, kA2, MakeRacShape(257, 5, 96, 40, 13, 31, ACL_BF16)},
        {"nd_int8", nd, kA2, MakeRacShape(333, 8, 128, 128, 128, 3, ACL_INT8)},
        {"key_only_bf16", keyOnly, kA2, MakeRacShape(199, 8, 128, 128, 16, 20, ACL_BF16)},
        {"nz_inference_fp16", nd, Platform::kAtlasInference,
         MakeRacShape(211, 8, 128, 128, 32, 10, ACL_FLOAT16)},
        {"nz_a2_int8_key_bf16_value", nzA2, kA2, MakeRacShape(150, 4, 128, 64, 16, 15, ACL_INT8, ACL_BF16)},
        {"kvhead_bf16", kvHead, kA2,
         MakeRacShape(540, 4, 128, 128, 16, 200, ACL_BF16, ACL_DT_UNDEFINED, {300, 77, 1, 150})},
        {"kvhead_int8", kvHead, kA2,
         MakeRacShape(400, 3, 256, 256, 128, 10, ACL_INT8, ACL_DT_UNDEFINED, {399})},
        {"rope_fp16", rope, kA2,
         MakeRacShape(530, 4, 128, 128, 16, 200, ACL_FLOAT16, ACL_DT_UNDEFINED, {300, 77, 1, 150})},
        {"rope_bf16", rope, kA2, MakeRacShape(260, 6, 64, 64, 7, 300, ACL_BF16, ACL_DT_UNDEFINED, {19, 240})},
        // fp16 means whose rows end past the last whole 64 channels (the F16C sums' element-wise tail).
        {"rope_fp16_head96", rope, kA2,
         MakeRacShape(530, 3, 96, 96, 16, 200, ACL_FLOAT16, ACL_DT_UNDEFINED, {300, 77, 1, 150})},
        // Over 4 MiB written: many tasks per thread.
        {"nd_fp16_large", nd, kA2, MakeRacShape(2100, 8, 128, 128, 128, 20, ACL_FLOAT16)},
        {"nz_inference_fp16_large", nd, Platform::kAtlasInference,
         MakeRacShape(2100, 8, 128, 128, 128, 20, ACL_FLOAT16)},
        // Under 64 KiB written.
        {"nd_fp16_cached", nd, kA2, MakeRacShape(9, 8, 128, 128, 16, 20, ACL_FLOAT16)},
        {"nz_inference_fp16_cached", nd, Platform::kAtlasInference,
         MakeRacShape(7, 8, 128, 128, 32, 10, ACL_FLOAT16)},
        {"kvhead_bf16_cached", kvHead, kA2,
         MakeRacShape(30, 4, 128, 128, 16, 200, ACL_BF16, ACL_DT_UNDEFINED, {12, 5, 1, 9})},
    };
}

class CpuCacheWriteTest : public testing::TestWithParam<KernelCase> {
  protected:
    TestCall MakeCall() const { return MakeRacCall(GetParam().param, GetParam().shape, GetParam().platform); }
};

// The caches after a call whose outputs alias the cache inputs (ATB's in-place form).
std::vector<std::vector<uint8_t>> RunInPlace(TestCall& call, const KernelCase& c, Backend backend,
                                             int threads) {
    VariantPack pack = call.Pack();
    std::vector<int> caches;
    for (const char* name : {"keyCache", "valueCache"}) {
        if (call.IndexOf(name) >= 0) caches.push_back(call.IndexOf(name));
    }
    for (size_t k = 0; k < pack.outTensors.size(); ++k)
        pack.outTensors[k] = pack.inTensors[caches[k]];
    Operation* raw = nullptr;
    EXPECT_TRUE(CreateOperation(c.param, &raw, c.platform).ok());
    std::unique_ptr<Operation> op(raw);
    Context context{c.platform, threads, backend};
    uint64_t workspace = 0;
    EXPECT_TRUE(op->Setup(pack, workspace, &context).ok());
    EXPECT_TRUE(op->Execute(pack, nullptr, workspace, &context).ok());
    EXPECT_EQ(op->KernelName(), backend == Backend::kCpu ? "cpu:copy" : "reference");
    std::vector<std::vector<uint8_t>> bytes;
    for (int index : caches)
        bytes.push_back(call.inputs[index].bytes);
    return bytes;
}

TEST_P(CpuCacheWriteTest, SeparateOutputsEqualTheReferenceOnAnyThreadCount) {
    TestCall reference = MakeCall();
    ASSERT_TRUE(Execute(reference, Backend::kReference, 1).status.ok());
    for (int threads : {1, 2, 3}) {
        TestCall call = MakeCall();
        const RunResult run = Execute(call, Backend::kCpu, threads);
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, "cpu:copy");
        ASSERT_EQ(call.outputs.size(), reference.outputs.size());
        for (size_t k = 0; k < call.outputs.size(); ++k) {
            EXPECT_TRUE(call.outputs[k].bytes == reference.outputs[k].bytes)
                << "output " << k << " on " << threads << " threads";
        }
    }
}

TEST_P(CpuCacheWriteTest, InPlaceCachesEqualTheReferenceOnAnyThreadCount) {
    TestCall reference = MakeCall();
    const std::vector<std::vector<uint8_t>> want = RunInPlace(reference, GetParam(), Backend::kReference, 1);
    TestCall untouched = MakeCall();
    for (size_t k = 0; k < want.size(); ++k) {
        const char* name = k == 0 ? "keyCache" : "valueCache";
        ASSERT_FALSE(want[k] == untouched.In(name).bytes) << name << ": the case writes nothing";
    }
    for (int threads : {1, 2, 3}) {
        TestCall call = MakeCall();
        EXPECT_TRUE(RunInPlace(call, GetParam(), Backend::kCpu, threads) == want) << threads << " threads";
    }
}

std::string CaseName(const testing::TestParamInfo<KernelCase>& c) {
    return c.param.name;
}

INSTANTIATE_TEST_SUITE_P(Modes, CpuCacheWriteTest, testing::ValuesIn(Cases()), CaseName);

// SelfAttention with the KV cache in the op writes the new tokens' K and V into its caches before attention:
// the CPU backend's caches equal the reference's, bit for bit (ND on atlas-a2, FRACTAL_NZ on
// atlas-inference).
TEST(CpuCacheWrite, SelfAttentionCacheInTheOpEqualsTheReference) {
    for (Platform platform : {kA2, Platform::kAtlasInference}) {
        SaShape shape;
        shape.headSize = 128;
        shape.seqLen = {300, 45, 1, 77};
        const Sa param = FlashParam(Sa::ENCODER, Sa::MASK_TYPE_NORM);
        TestCall reference = MakeSaCall(param, shape, platform);
        const std::vector<uint8_t> before = reference.In("cacheK").bytes;
        ASSERT_TRUE(Execute(reference, Backend::kReference, 1).status.ok());
        ASSERT_FALSE(reference.In("cacheK").bytes == before) << "the call writes no cache row";
        for (int threads : {1, 2, 3}) {
            TestCall call = MakeSaCall(param, shape, platform);
            const RunResult run = Execute(call, Backend::kCpu, threads);
            ASSERT_TRUE(run.status.ok()) << run.status.ToString();
            for (const char* cache : {"cacheK", "cacheV"}) {
                EXPECT_TRUE(call.In(cache).bytes == reference.In(cache).bytes)
                    << cache << " on " << PlatformName(platform) << ", " << threads << " threads";
            }
        }
    }
}

// A plan written here: random source rows, a random destination, some rows the mean of several.
struct HandPlan {
    std::vector<uint8_t> src, dst;
    plan::CacheWritePlan writes;

    HandPlan(aclDataType dtype, int64_t channels, int tile, int64_t rows, int32_t meanRows, uint64_t seed) {
        std::mt19937_64 rng(seed);
        const size_t size = DataTypeSize(dtype);
        const int64_t srcRows = rows + meanRows;
        src.resize(srcRows * channels * size);
        const int64_t tiles = tile == 0 ? 1 : (channels + tile - 1) / tile;
        const int64_t dstRows = 2 * rows;  // half the rows stay as they were
        dst.resize(tile == 0 ? dstRows * channels * size : tiles * dstRows * tile * size);
        std::uniform_real_distribution<double> value(-50.0, 50.0);
        for (int64_t i = 0; i < srcRows * channels; ++i)
            plan::StoreElement(src.data(), dtype, i, value(rng));
        for (uint8_t& b : dst)
            b = static_cast<uint8_t>(rng());
        if (dtype == ACL_FLOAT16 || dtype == ACL_BF16) {  // random bits may be NaN: keep the cache finite
            for (int64_t i = 0; i < static_cast<int64_t>(dst.size() / 2); ++i)
                plan::StoreElement(dst.data(), dtype, i, value(rng));
        }
        plan::CacheWriteStream s;
        s.src = src.data();
        s.dst = dst.data();
        s.dtype = dtype;
        s.channels = channels;
        s.dstChannelTile = tile;
        s.dstChannelTileStride = dstRows * tile;
        std::vector<int64_t> slots(dstRows);
        std::iota(slots.begin(), slots.end(), 0);
        std::shuffle(slots.begin(), slots.end(), rng);
        for (int64_t r = 0; r < rows; ++r) {
            plan::RowWrite row;
            row.srcOffset = r * channels;
            row.dstOffset = tile == 0 ? slots[r] * channels : slots[r] * tile;
            if (r % 3 == 1 && meanRows > 1) {
                row.srcRows = meanRows;
                row.srcRowStride = channels;
            }
            s.rows.push_back(row);
        }
        writes.streams.push_back(s);
    }
};

TEST(CpuCacheWrite, HandWrittenPlansEqualTheReference) {
    struct Hand {
        aclDataType dtype;
        int64_t channels;
        int tile;
        int64_t rows;
        int32_t meanRows;
    };
    const Hand hands[] = {
        {ACL_FLOAT16, 40, 16, 301, 1},     // NZ rows ending inside a tile
        {ACL_INT8, 100, 32, 517, 1},       // int8 tiles of 32, the last partial
        {ACL_FLOAT, 24, 16, 90, 3},        // fp32 tiles of 64 bytes, fp32 means
        {ACL_FLOAT16, 70001, 0, 7, 5},     // rows cut into pieces, means too
        {ACL_BF16, 65536 + 16, 16, 5, 4},  // NZ rows cut into pieces of whole tiles
        {ACL_INT8, 333, 0, 200, 6},        // int8 means (rounded and saturated like the reference)
        {ACL_BF16, 1000, 0, 129, 17},
    };
    for (const Hand& h : hands) {
        HandPlan reference(h.dtype, h.channels, h.tile, h.rows, h.meanRows, 5);
        kernels::ref::ExecuteCacheWrites(reference.writes);
        for (int threads : {1, 2, 3}) {
            HandPlan cpu(h.dtype, h.channels, h.tile, h.rows, h.meanRows, 5);
            kernels::cpu::ExecuteCacheWrites(cpu.writes, threads);
            EXPECT_TRUE(cpu.dst == reference.dst) << DataTypeName(h.dtype) << " channels " << h.channels
                                                  << " tile " << h.tile << ", " << threads << " threads";
        }
    }
}

// A fp16 window whose fp32 sum depends on the order of additions: in token order, 65504 + 2^-14 rounds to
// 65504 in fp32 and adding -65504 gives 0; any other order keeps the 2^-14.
TEST(CpuCacheWrite, MeansAddInTokenOrder) {
    HandPlan cpu(ACL_FLOAT16, 64, 0, 1, 3, 1);
    plan::RowWrite& row = cpu.writes.streams[0].rows[0];
    row.srcRows = 3;
    row.srcRowStride = 64;
    auto* src = reinterpret_cast<uint16_t*>(cpu.src.data());
    for (int64_t c = 0; c < 64; ++c) {
        src[c] = core::DoubleToHalf(65504.0);
        src[64 + c] = core::DoubleToHalf(0x1p-14);
        src[128 + c] = core::DoubleToHalf(-65504.0);
    }
    kernels::cpu::ExecuteCacheWrites(cpu.writes, 2);
    const auto* dst = reinterpret_cast<const uint16_t*>(cpu.dst.data());
    for (int64_t c = 0; c < 64; ++c)
        ASSERT_EQ(dst[row.dstOffset + c], 0u) << "channel " << c;
}

}  // namespace
}  // namespace atbx::test
