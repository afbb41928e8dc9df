// The non-temporal copies of large cache writes (kernels/cpu/stream_copy.h), each instruction set's that the
// CPU runs (the others skipped by name): every length from 0 to 300 bytes and some long ones, at destination
// offsets across a 64-byte line and a few source offsets; the bytes copied equal the source and the bytes
// around the destination keep their poison.
#include <gtest/gtest.h>

#include <xmmintrin.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "kernels/cpu/stream_copy.h"

namespace atbx::test {
namespace {

using kernels::cpu::StreamCopyFn;

struct CopyPath {
    std::string name;
    StreamCopyFn copy;
    bool core::CpuFeatures::*feature;  // null: every x86-64 CPU
    friend void PrintTo(const CopyPath& p, std::ostream* out) { *out << p.name; }
};

std::vector<CopyPath> Paths() {
    return {{"sse2", kernels::cpu::baseline::StreamCopy, nullptr},
            {"avx2", kernels::cpu::avx2::StreamCopy, &core::CpuFeatures::avx2},
            {"avx512", kernels::cpu::avx512::StreamCopy, &core::CpuFeatures::avx512f}};
}

class StreamCopyTest : public testing::TestWithParam<CopyPath> {
  protected:
    void SetUp() override {
        const CopyPath& path = GetParam();
        if (path.feature != nullptr && !(core::HostCpu().*path.feature))
            GTEST_SKIP() << path.name << " does not run here: this CPU lacks " << path.name;
    }
};

constexpr uint8_t kPoison = 0xA5;
constexpr size_t kGuard = 128;

// Copies `bytes` bytes from source offset `from` to destination offset `to` (from a 64-byte boundary) and
// checks the destination buffer: the copy in place, the poison around it.
void ExpectCopies(StreamCopyFn copy, const std::vector<uint8_t>& source, size_t from, size_t to,
                  size_t bytes) {
    alignas(64) static uint8_t buffer[kGuard + 8192 + 64 + kGuard];
    ASSERT_LE(to + bytes, 8192 + 64);
    const size_t end = kGuard + to + bytes + kGuard;
    std::fill(buffer, buffer + end, kPoison);
    copy(reinterpret_cast<char*>(buffer + kGuard + to), reinterpret_cast<const char*>(source.data() + from),
         bytes);
    _mm_sfence();
    for (size_t i = 0; i < end; ++i) {
        const bool inside = i >= kGuard + to && i < kGuard + to + bytes;
        const uint8_t expected = inside ? source[from + i - kGuard - to] : kPoison;
        ASSERT_EQ(buffer[i], expected)
            << bytes << " bytes from offset " << from << " to offset " << to << ": byte "
            << static_cast<int64_t>(i) - static_cast<int64_t>(kGuard + to);
    }
}

TEST_P(StreamCopyTest, CopiesEveryLengthAtEveryAlignment) {
    std::vector<uint8_t> source(8192 + 64);
    std::mt19937 rng(7);
    for (uint8_t& byte : source)
        byte = static_cast<uint8_t>(rng());
    for (size_t to : {0, 1, 15, 16, 31, 32, 48, 63}) {
        for (size_t from : {size_t{0}, size_t{1}, size_t{17}}) {
            for (size_t bytes = 0; bytes <= 300; ++bytes)
                ExpectCopies(GetParam().copy, source, from, to, bytes);
            for (size_t bytes : {size_t{2048}, size_t{4096 + 17}, size_t{8192 - 64}})
                ExpectCopies(GetParam().copy, source, from, to, bytes);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, StreamCopyTest, testing::ValuesIn(Paths()), testing::PrintToStringParamName());

TEST(StreamCopy, TheHostCopyIsTheWidestTheCpuRuns) {
    const core::CpuFeatures& cpu = core::HostCpu();
    const StreamCopyFn expected = cpu.avx512f ? kernels::cpu::avx512::StreamCopy
                                  : cpu.avx2  ? kernels::cpu::avx2::StreamCopy
                                              : kernels::cpu::baseline::StreamCopy;
    EXPECT_EQ(kernels::cpu::HostStreamCopy(), expected);
}

}  // namespace
}  // namespace atbx::test
