// ReshapeAndCache cache writes, every mode and profile, compared bit for bit with the caches computed here by
// direct loops over docs/spec/self_attention.md 4.2: the caches start with random data, the outputs are
// poisoned, slots are distinct and random with negative ones (skipped), and sizes are odd.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

#include "atbx/operation.h"
#include "support/rac_calls.h"
#include "support/run_call.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

// fp16, bf16 and fp32 conversions written here, not the library's. IEEE binary16: a sign bit, 5 exponent bits
// (bias 15) and 10 mantissa bits; exponent 0 holds the subnormals (steps of 2^-24), 31 infinity and NaN.
float HalfToFloat(uint16_t bits) {
    const float sign = (bits & 0x8000u) != 0 ? -1.0f : 1.0f;
    const int exponent = (bits >> 10) & 0x1F;
    const int mantissa = bits & 0x3FF;
    if (exponent == 0x1F)
        return mantissa != 0 ? std::numeric_limits<float>::quiet_NaN()
                             : sign * std::numeric_limits<float>::infinity();
    if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
    return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

// Round to nearest even (std::nearbyint in the default rounding mode): the magnitude in steps of its binade's
// spacing, 2^(e-10) for 2^e <= |value| (e >= -14, the subnormals share the spacing 2^-24). Added to the
// binade's encoded start, a carry into the next binade (or into infinity) lands on the right code.
uint16_t FloatToHalf(float value) {
    const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
    const float magnitude = std::fabs(value);
    if (std::isnan(value)) return sign | 0x7E00u;
    if (std::isinf(value)) return sign | 0x7C00u;
    if (magnitude == 0.0f) return sign;
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
    const int step = std::max(exponent - 1, -14) - 10;
    const auto steps = static_cast<int64_t>(std::nearbyint(std::ldexp(magnitude, -step)));
    const int64_t bits = (int64_t{step + 24} << 10) + steps;
    return static_cast<uint16_t>(sign | std::min<int64_t>(bits, 0x7C00));
}

float ToFloat(const uint8_t* element, aclDataType dtype) {
    uint16_t bits;
    std::memcpy(&bits, element, 2);
    if (dtype == ACL_FLOAT16) return HalfToFloat(bits);
    const uint32_t wide = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
}

void FromFloat(float value, aclDataType dtype, uint8_t* element) {
    if (dtype == ACL_FLOAT16) {
        const uint16_t h = FloatToHalf(value);
        std::memcpy(element, &h, 2);
        return;
    }
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const auto rounded = static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    std::memcpy(element, &rounded, 2);
}

// A cache the test fills: a copy of the cache input, and its addressing (docs/spec/self_attention.md 4.1).
class ExpectedCache {
  public:
    explicit ExpectedCache(const io::HostTensor& cache) : desc_(cache.desc), bytes_(cache.bytes) {}

    // Element index of (slot, head, d) for a tensor row of `headSize` channels per head.
    int64_t Index(int64_t slot, int64_t head, int64_t d, int64_t headSize) const {
        const int64_t* dims = desc_.shape.dims;
        if (desc_.format == ACL_FORMAT_FRACTAL_NZ) {  // [NB, heads * D / c, BS, c]
            const int64_t tiles = dims[1], blockSize = dims[2], c = dims[3];
            const int64_t block = slot / blockSize, off = slot % blockSize, f = head * headSize + d;
            return ((block * tiles + f / c) * blockSize + off) * c + f % c;
        }
        const int64_t blockSize = dims[1], heads = dims[2];  // [NB, BS, heads, D]
        return (((slot / blockSize) * blockSize + slot % blockSize) * heads + head) * headSize + d;
    }

    uint8_t* At(int64_t index) { return bytes_.data() + index * Size(); }
    size_t Size() const { return DataTypeSize(desc_.dtype); }
    const std::vector<uint8_t>& bytes() const { return bytes_; }

  private:
    TensorDesc desc_;
    std::vector<uint8_t> bytes_;
};

// The tensor a cache stores: key or value [T, Nh, D].
struct Source {
    const io::HostTensor& tensor;
    int64_t heads, headSize;
    const uint8_t* At(int64_t token, int64_t head, int64_t d) const {
        return tensor.bytes.data() +
               ((token * heads + head) * headSize + d) * DataTypeSize(tensor.desc.dtype);
    }
};

// Copies row (token, head) of the source to cache row `slot` (cache head `cacheHead`).
void CopyRow(const Source& src, int64_t token, int64_t head, ExpectedCache& cache, int64_t slot,
             int64_t cacheHead) {
    for (int64_t d = 0; d < src.headSize; ++d)
        std::memcpy(cache.At(cache.Index(slot, cacheHead, d, src.headSize)), src.At(token, head, d),
                    cache.Size());
}

// The fp32 sum of rows [first, first + count) of head `head`, divided by count in fp32, rounded to the dtype.
void MeanRow(const Source& src, int64_t first, int64_t count, int64_t head, ExpectedCache& cache,
             int64_t slot) {
    for (int64_t d = 0; d < src.headSize; ++d) {
        float sum = 0.0f;
        for (int64_t r = 0; r < count; ++r)
            sum += ToFloat(src.At(first + r, head, d), src.tensor.desc.dtype);
        FromFloat(sum / static_cast<float>(count), src.tensor.desc.dtype,
                  cache.At(cache.Index(slot, 0, d, src.headSize)));
    }
}

struct Counts {
    int64_t rows = 0;   // cache rows written
    int64_t means = 0;  // rows that are a mean of 2 or more tokens
};

// ND, NZ and key-only: token t, every head, to slot slotMapping[t] (negative: skipped).
void WriteTokens(TestCall& call, const Source& src, ExpectedCache& cache, Counts* counts) {
    const auto slots = Elements<int32_t>(call.In("slotMapping"));
    for (size_t t = 0; t < slots.size(); ++t) {
        if (slots[t] < 0) continue;
        for (int64_t h = 0; h < src.heads; ++h)
            CopyRow(src, static_cast<int64_t>(t), h, cache, slots[t], h);
        ++counts->rows;
    }
}

// KVHEAD: head h of sequence b writes its last w tokens to w rows from slotMapping[b * Nh + h]. KVHEAD_ROPE
// (offset o != -1, w > 0): tokens before o, the mean of tokens [o, o + w), then tokens from o + w; else every
// token of the sequence.
void WriteHeads(TestCall& call, const Source& src, ExpectedCache& cache, Counts* counts) {
    const bool rope = call.Param<Param>().compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE;
    const auto slots = Elements<int32_t>(call.In("slotMapping"));
    const auto wins = Elements<int32_t>(call.In("wins"));
    const auto seqLen = Elements<int32_t>(call.In("seqLen"));
    int64_t start = 0;
    for (size_t b = 0; b < seqLen.size(); ++b) {
        for (int64_t h = 0; h < src.heads; ++h) {
            const size_t i = b * src.heads + h;
            int64_t slot = slots[i];
            const int64_t length = seqLen[b], w = wins[i];
            if (slot < 0) continue;
            if (!rope) {
                for (int64_t t = 0; t < w; ++t)
                    CopyRow(src, start + length - w + t, h, cache, slot + t, 0);
                counts->rows += w;
                continue;
            }
            const int64_t o = Elements<int32_t>(call.In("offsetIndex"))[i];
            for (int64_t j = 0; j < length; ++j) {
                if (o != -1 && w > 0 && j == o) {
                    MeanRow(src, start + j, w, h, cache, slot++);
                    counts->means += w > 1;
                    j += w - 1;
                } else {
                    CopyRow(src, start + j, h, cache, slot++, 0);
                }
                ++counts->rows;
            }
        }
        start += seqLen[b];
    }
}

struct Expected {
    std::vector<ExpectedCache> caches;  // keyCache, then valueCache
    Counts counts;
};

Expected ExpectedCaches(TestCall& call) {
    Expected expected;
    const bool compressed = call.Param<Param>().compressType != Param::COMPRESS_TYPE_UNDEFINED;
    for (auto [cacheName, srcName] : {std::pair{"keyCache", "key"}, {"valueCache", "value"}}) {
        if (call.IndexOf(cacheName) < 0) continue;
        const io::HostTensor& stored = call.In(srcName);
        const Source src{stored, stored.desc.shape.dims[1], stored.desc.shape.dims[2]};
        ExpectedCache cache(call.In(cacheName));
        Counts counts;
        if (compressed) {
            WriteHeads(call, src, cache, &counts);
        } else {
            WriteTokens(call, src, cache, &counts);
        }
        expected.counts = counts;
        expected.caches.push_back(std::move(cache));
    }
    return expected;
}

// "" when the bytes are equal, else where they first differ.
std::string FirstDifference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                            size_t elementSize) {
    if (got.size() != want.size()) return "sizes differ";
    for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i]) return "element " + std::to_string(i / elementSize) + " differs";
    }
    return "";
}

struct WriteCase {
    const char* name;
    Param param;
    Platform platform;
    RacShape shape;
    friend void PrintTo(const WriteCase& c, std::ostream* out) { *out << c.name; }
};

const Param kNd = RacParam(0);
const Param kKeyOnly = RacParam(0, Param::K_CACHE_V_BYPASS);
const Param kNzA2 = RacParam(0, Param::K_CACHE_V_CACHE_NZ);
const Param kKvHead = RacParam(Param::COMPRESS_TYPE_KVHEAD);
const Param kRope = RacParam(Param::COMPRESS_TYPE_KVHEAD_ROPE);
constexpr Platform kA2 = Platform::kAtlasA2;

std::vector<WriteCase> Cases() {
    return {
        {"nd_fp16_dk_ne_dv", kNd, kA2, MakeRacShape(23, 3, 48, 80, 7, 9, ACL_FLOAT16)},
        {"nd_bf16_one_token", kNd, kA2, MakeRacShape(1, 1, 40, 40, 16, 1, ACL_BF16, ACL_DT_UNDEFINED, {}, 2)},
        {"nd_int8_many_heads", kNd, kA2, MakeRacShape(37, 5, 24, 8, 5, 11, ACL_INT8)},
        {"nd_atlas_350_bf16", kNd, Platform::kAtlas350, MakeRacShape(30, 2, 72, 72, 13, 3, ACL_BF16)},
        {"key_only_fp16", kKeyOnly, kA2, MakeRacShape(19, 3, 56, 56, 9, 4, ACL_FLOAT16)},
        {"key_only_int8", kKeyOnly, kA2, MakeRacShape(12, 1, 200, 200, 3, 5, ACL_INT8)},
        {"key_only_bf16", kKeyOnly, kA2, MakeRacShape(64, 4, 32, 32, 128, 1, ACL_BF16)},
        {"nz_inference", kNd, Platform::kAtlasInference, MakeRacShape(29, 3, 48, 48, 32, 3, ACL_FLOAT16)},
        {"nz_training", kNd, Platform::kAtlasTraining, MakeRacShape(17, 1, 80, 80, 16, 2, ACL_FLOAT16)},
        {"nz_a2_int8_key", kNzA2, kA2, MakeRacShape(41, 2, 48, 24, 48, 2, ACL_INT8, ACL_FLOAT16)},
        {"nz_a2_int8_key_bf16_value", kNzA2, kA2, MakeRacShape(20, 1, 64, 16, 16, 3, ACL_INT8, ACL_BF16)},
        {"nz_a2_bf16_key_fp16_value", kNzA2, kA2, MakeRacShape(33, 3, 16, 32, 32, 2, ACL_BF16, ACL_FLOAT16)},
        {"nz_a2_fp16", kNzA2, kA2, MakeRacShape(9, 6, 8, 8, 16, 1, ACL_FLOAT16)},
        {"kvhead_fp16", kKvHead, kA2,
         MakeRacShape(26, 3, 64, 64, 5, 40, ACL_FLOAT16, ACL_DT_UNDEFINED, {9, 1, 0, 14})},
        {"kvhead_int8", kKvHead, kA2, MakeRacShape(30, 4, 32, 32, 16, 9, ACL_INT8, ACL_DT_UNDEFINED, {30})},
        {"kvhead_bf16", kKvHead, kA2,
         MakeRacShape(21, 1, 96, 96, 7, 5, ACL_BF16, ACL_DT_UNDEFINED, {3, 11, 6})},
        {"rope_fp16", kRope, kA2,
         MakeRacShape(49, 2, 96, 96, 16, 12, ACL_FLOAT16, ACL_DT_UNDEFINED, {12, 7, 30})},
        {"rope_bf16", kRope, kA2, MakeRacShape(40, 5, 32, 32, 128, 2, ACL_BF16, ACL_DT_UNDEFINED, {40}, 3)},
        {"rope_fp16_many_batches", kRope, kA2,
         MakeRacShape(60, 3, 64, 64, 9, 30, ACL_FLOAT16, ACL_DT_UNDEFINED, {1, 17, 2, 0, 25, 13}, 11)},
    };
}

class RacWriteTest : public testing::TestWithParam<WriteCase> {
  protected:
    TestCall MakeCall() const { return MakeRacCall(GetParam().param, GetParam().shape, GetParam().platform); }
};

void ExpectOutputsEqual(TestCall& call, const Expected& expected) {
    ASSERT_EQ(call.outputs.size(), expected.caches.size());
    for (size_t k = 0; k < expected.caches.size(); ++k) {
        EXPECT_EQ(
            FirstDifference(call.outputs[k].bytes, expected.caches[k].bytes(), expected.caches[k].Size()), "")
            << "output " << k;
    }
}

TEST_P(RacWriteTest, EveryBackendWritesExactlyTheSpecifiedRows) {
    for (Backend backend : {Backend::kReference, Backend::kCpu}) {
        TestCall call = MakeCall();
        const Expected expected = ExpectedCaches(call);
        ASSERT_GT(expected.counts.rows, 0) << "the case writes nothing";
        if (GetParam().param.compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE) {
            ASSERT_GT(expected.counts.means, 0) << "the case averages no window of 2 or more tokens";
        }
        const RunResult run = Execute(call, backend);
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, backend == Backend::kCpu ? "cpu:copy" : "reference");
        ExpectOutputsEqual(call, expected);
    }
}

// ATB's callers pass the caches as the outputs too: the op updates them in place.
TEST_P(RacWriteTest, OutputsAliasingTheCachesAreUpdatedInPlace) {
    TestCall call = MakeCall();
    const Expected expected = ExpectedCaches(call);
    VariantPack pack = call.Pack();
    for (size_t k = 0; k < pack.outTensors.size(); ++k)
        pack.outTensors[k] = pack.inTensors[call.IndexOf(k == 0 ? "keyCache" : "valueCache")];
    Operation* raw = nullptr;
    ASSERT_TRUE(CreateOperation(GetParam().param, &raw, GetParam().platform).ok());
    std::unique_ptr<Operation> op(raw);
    Context context{GetParam().platform, 1, Backend::kAuto};
    uint64_t workspace = 0;
    ASSERT_TRUE(op->Setup(pack, workspace, &context).ok());
    ASSERT_TRUE(op->Execute(pack, nullptr, workspace, &context).ok());
    for (size_t k = 0; k < expected.caches.size(); ++k) {
        const io::HostTensor& cache = call.In(k == 0 ? "keyCache" : "valueCache");
        EXPECT_EQ(FirstDifference(cache.bytes, expected.caches[k].bytes(), expected.caches[k].Size()), "")
            << "cache " << k;
    }
}

std::string CaseName(const testing::TestParamInfo<WriteCase>& c) {
    return c.param.name;
}

INSTANTIATE_TEST_SUITE_P(Modes, RacWriteTest, testing::ValuesIn(Cases()), CaseName);

// Caches given as separate outputs: the output is the whole updated cache, the cache input is left as it was.
TEST(RacWrite, SeparateOutputsLeaveTheCacheInputsUnchanged) {
    TestCall call = MakeRacCall(kNd);
    const std::vector<uint8_t> keyCache = call.In("keyCache").bytes;
    ASSERT_TRUE(Execute(call, Backend::kAuto).status.ok());
    EXPECT_EQ(call.In("keyCache").bytes, keyCache);
    EXPECT_NE(call.outputs[0].bytes, keyCache);
}

TEST(RacWrite, AllSlotsNegativeLeaveTheCachesUnchanged) {
    TestCall call = MakeRacCall(kNd);
    for (int32_t& slot : Elements<int32_t>(call.In("slotMapping")))
        slot = -1 - slot * slot;
    ASSERT_TRUE(Execute(call, Backend::kAuto).status.ok());
    EXPECT_EQ(call.outputs[0].bytes, call.In("keyCache").bytes);
    EXPECT_EQ(call.outputs[1].bytes, call.In("valueCache").bytes);
}

// Slots are device data: Execute writes the slots it is given, not the ones Setup saw, and checks them again.
TEST(RacWrite, ExecuteUsesAndChecksTheSlotsItIsGiven) {
    TestCall call = MakeRacCall(kNd);
    VariantPack pack = call.Pack();
    Operation* raw = nullptr;
    ASSERT_TRUE(CreateOperation(kNd, &raw).ok());
    std::unique_ptr<Operation> op(raw);
    Context context;
    uint64_t workspace = 0;
    ASSERT_TRUE(op->Setup(pack, workspace, &context).ok());

    auto slots = Elements<int32_t>(call.In("slotMapping"));
    std::reverse(slots.begin(), slots.end());
    const Expected expected = ExpectedCaches(call);
    ASSERT_TRUE(op->Execute(pack, nullptr, workspace, &context).ok());
    ExpectOutputsEqual(call, expected);

    slots[0] = 5 * 16;  // num_blocks * block_size of the default shape
    const Status st = op->Execute(pack, nullptr, workspace, &context);
    EXPECT_EQ(st.rule(), "rac.device.slots_in_range") << st.ToString();
}

}  // namespace
}  // namespace atbx::test
