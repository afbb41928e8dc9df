#include "bench/bench_call.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "verify/random_fill.h"

namespace atbx::cli::bench {
namespace {

// 64 Ki elements of random values, repeated over the tensor from a shifting start (up to 257 elements in) so
// that neighbouring repeats differ.
constexpr int64_t kChunkElements = int64_t{1} << 16;
constexpr int64_t kMaxShift = 257;

void FillRepeated(uint8_t* data, aclDataType dtype, int64_t count, double low, double high, uint64_t seed) {
    const int64_t element = DataTypeSize(dtype);
    const int64_t chunk = std::min(count, kChunkElements);
    const int64_t slack = std::min(count - chunk, kMaxShift);
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> pattern((chunk + slack) * element);
    verify::FillUniform(pattern.data(), dtype, chunk + slack, low, high, rng);
    int64_t repeat = 0;
    for (int64_t done = 0; done < count; ++repeat) {
        const int64_t shift = (repeat * 31) % (slack + 1);
        const int64_t n = std::min(chunk, count - done);
        std::memcpy(data + done * element, pattern.data() + shift * element, n * element);
        done += n;
    }
}

}  // namespace

TensorDesc Desc(aclDataType dtype, std::initializer_list<int64_t> dims) {
    TensorDesc desc;
    desc.dtype = dtype;
    desc.format = ACL_FORMAT_ND;
    for (int64_t d : dims)
        desc.shape.dims[desc.shape.dimNum++] = d;
    return desc;
}

int64_t ByteSize(const TensorDesc& desc) {
    return static_cast<int64_t>(ElementCount(desc) * DataTypeSize(desc.dtype));
}

uint8_t* BenchCall::Allocate(int64_t bytes) {
    // Uninitialised: every byte is written by a fill or by the caller before the first call.
    buffers_.emplace_back(bytes, pages_);
    allocated_ += bytes;
    return buffers_.back().data();
}

uint8_t* BenchCall::AddInput(const TensorDesc& desc, bool host) {
    const int64_t bytes = ByteSize(desc);
    uint8_t* data = Allocate(bytes);
    std::memset(data, 0, bytes);
    pack_.inTensors.push_back(Tensor{desc, data, host ? data : nullptr, static_cast<uint64_t>(bytes)});
    return data;
}

uint8_t* BenchCall::AddRandomInput(const TensorDesc& desc, double low, double high, uint64_t seed) {
    const int64_t bytes = ByteSize(desc);
    uint8_t* data = Allocate(bytes);
    FillRepeated(data, desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, seed);
    pack_.inTensors.push_back(Tensor{desc, data, nullptr, static_cast<uint64_t>(bytes)});
    return data;
}

void BenchCall::AddHostInt32(const std::vector<int32_t>& values) {
    uint8_t* data = AddInput(Desc(ACL_INT32, {static_cast<int64_t>(values.size())}), true);
    std::memcpy(data, values.data(), values.size() * sizeof(int32_t));
}

void BenchCall::AddOutput(const TensorDesc& desc) {
    const int64_t bytes = ByteSize(desc);
    uint8_t* data = Allocate(bytes);
    std::memset(data, 0, bytes);
    pack_.outTensors.push_back(Tensor{desc, data, nullptr, static_cast<uint64_t>(bytes)});
}

void BenchCall::AddAliasOutput(int index) {
    pack_.outTensors.push_back(pack_.inTensors.at(index));
}

}  // namespace atbx::cli::bench
