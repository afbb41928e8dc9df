// perf::PageBuffer (the memory `atbx bench` times on): 2 MiB pages where a run asks for them and Linux
// grants them, plain allocations otherwise.
#include "perf/page_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace atbx::perf {
namespace {

// kB of AnonHugePages in /proc/self/smaps for the mapping that holds `address`.
int64_t HugeKibAt(const void* address) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        uintptr_t begin = 0, end = 0;
        char dash = 0;
        std::istringstream header(line);
        if (header >> std::hex >> begin >> dash >> end && dash == '-') {
            inside = begin <= at && at < end;
            continue;
        }
        if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stoll(line.substr(14));
    }
    return -1;
}

TEST(PageBufferTest, HugeBuffersAreAlignedWritableAndOnHugePagesWhereLinuxGrantsThem) {
    const int64_t bytes = 3 * kHugePageBytes + 12345;  // a partial last page: the buffer rounds up
    const PageBuffer buffer(bytes, Pages::kHuge);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % kHugePageBytes, 0u);
    std::memset(buffer.data(), 0x5a, bytes);
    EXPECT_EQ(buffer.data()[bytes - 1], 0x5a);
    const std::string mode = TransparentHugePages();
    if (mode != "always" && mode != "madvise") GTEST_SKIP() << "transparent huge pages are '" << mode << "'";
    EXPECT_GT(HugeKibAt(buffer.data()), 0)
        << "no huge page backs a buffer that asked for them (mode " << mode << ")";
}

TEST(PageBufferTest, DefaultBuffersAreWritable) {
    for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{5} << 20}) {
        const PageBuffer buffer(bytes, Pages::kDefault);
        ASSERT_NE(buffer.data(), nullptr);
        std::memset(buffer.data(), 1, bytes > 0 ? bytes : 1);
    }
}

TEST(PageBufferTest, MovingHandsTheMemoryOver) {
    PageBuffer a(4096, Pages::kDefault);
    uint8_t* const data = a.data();
    PageBuffer b(std::move(a));
    EXPECT_EQ(b.data(), data);
    PageBuffer c(16, Pages::kHuge);
    c = std::move(b);
    EXPECT_EQ(c.data(), data);
}

TEST(PageBufferTest, TheModeIsOneLinuxNames) {
    const std::string mode = TransparentHugePages();
    EXPECT_TRUE(mode == "always" || mode == "madvise" || mode == "never" || mode == "unknown") << mode;
}

}  // namespace
}  // namespace atbx::perf
