#include "perf/page_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <fstream>
#include <new>
#include <utility>

namespace atbx::perf {

const char* PagesName(Pages pages) {
    return pages == Pages::kHuge ? "huge" : "default";
}

// sysfs shows the modes with the active one in brackets: "always [madvise] never".
std::string TransparentHugePages() {
    std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(file, modes);
    const size_t open = modes.find('['), close = modes.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
    return modes.substr(open + 1, close - open - 1);
}

PageBuffer::PageBuffer(int64_t bytes, Pages pages) {
    const int64_t size = bytes > 0 ? bytes : 1;
    if (pages == Pages::kHuge) {
        // Whole 2 MiB pages, aligned: a huge page backs only an aligned 2 MiB range the buffer covers
        // entirely.
        const int64_t rounded = (size + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
        data_ = static_cast<uint8_t*>(std::aligned_alloc(kHugePageBytes, static_cast<size_t>(rounded)));
        // A refusal (no transparent huge pages in this kernel) leaves the buffer on ordinary pages.
        if (data_ != nullptr) madvise(data_, static_cast<size_t>(rounded), MADV_HUGEPAGE);
    } else {
        data_ = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(size)));
    }
    if (data_ == nullptr) throw std::bad_alloc();
}

PageBuffer::~PageBuffer() {
    std::free(data_);
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
}

}  // namespace atbx::perf
