// PageBuffer: the memory a benchmark reads, on the pages the run asks Linux for. Which pages back a large
// buffer changes what a cold decode step costs: a step that reads a 2 KiB row of each key's kv heads touches
// a new 4 KiB page every other key, and each page is a TLB miss (a nested page walk in a virtual machine).
// The default is what the allocator gives (4 KiB pages, or 2 MiB ones where transparent huge pages are
// "always"); kHuge asks for 2 MiB pages by madvise(MADV_HUGEPAGE), granted where the mode is "always" or
// "madvise", as a serving engine that keeps its KV pool on huge pages would.
#ifndef ATBX_PERF_PAGE_BUFFER_H
#define ATBX_PERF_PAGE_BUFFER_H

#include <cstdint>
#include <string>

namespace atbx::perf {

enum class Pages { kDefault, kHuge };

inline constexpr int64_t kHugePageBytes = int64_t{2} << 20;  // what kHuge asks for

// "default" or "huge".
const char* PagesName(Pages pages);

// The mode of Linux's transparent huge pages: "always", "madvise", "never", or "unknown".
std::string TransparentHugePages();

// An uninitialised buffer of `bytes` bytes (at least one), freed with the object.
class PageBuffer {
  public:
    PageBuffer(int64_t bytes, Pages pages);
    ~PageBuffer();
    PageBuffer(PageBuffer&& other) noexcept;
    PageBuffer& operator=(PageBuffer&& other) noexcept;
    PageBuffer(const PageBuffer&) = delete;
    PageBuffer& operator=(const PageBuffer&) = delete;

    uint8_t* data() const { return data_; }

  private:
    uint8_t* data_ = nullptr;
};

}  // namespace atbx::perf

#endif  // ATBX_PERF_PAGE_BUFFER_H
