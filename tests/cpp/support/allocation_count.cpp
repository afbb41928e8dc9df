#include "support/allocation_count.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace atbx::test {
namespace {

std::atomic<bool> gCounting{false};
std::atomic<std::size_t> gMinBytes{1};
std::atomic<int> gAllocations{0};

}  // namespace

AllocationCount::AllocationCount(std::size_t minBytes) {
    gAllocations = 0;
    gMinBytes = minBytes;
    gCounting = true;
}

AllocationCount::~AllocationCount() {
    gCounting = false;
}

int AllocationCount::count() const {
    return gAllocations;
}

}  // namespace atbx::test

// Out of line, so that the compiler does not pair a new expression with the free() below (it warns of a
// mismatch where it sees both).
[[gnu::noinline]] void* operator new(std::size_t size) {
    if (atbx::test::gCounting && size >= atbx::test::gMinBytes) ++atbx::test::gAllocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}

// The nothrow form too (CreateContext's), so that every new the delete below frees is this file's: a
// sanitizer that supplies the others reports its own new freed here as a mismatch.
[[gnu::noinline]] void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    if (atbx::test::gCounting && size >= atbx::test::gMinBytes) ++atbx::test::gAllocations;
    return std::malloc(size == 0 ? 1 : size);
}

[[gnu::noinline]] void operator delete(void* p) noexcept {
    std::free(p);
}

[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}

[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
