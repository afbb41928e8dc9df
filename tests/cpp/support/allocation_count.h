// Counting the allocations a call makes: the test binary's operator new (support/allocation_count.cpp)
// counts, while an AllocationCount is alive, every allocation of at least its minimum size by any thread (a
// kernel's tasks run on the thread pool's threads). Comparing addresses cannot tell, since the allocator
// hands a freed block straight back.
#ifndef ATBX_TESTS_SUPPORT_ALLOCATION_COUNT_H
#define ATBX_TESTS_SUPPORT_ALLOCATION_COUNT_H

#include <cstddef>

namespace atbx::test {

class AllocationCount {
  public:
    explicit AllocationCount(std::size_t minBytes = 1);
    ~AllocationCount();
    AllocationCount(const AllocationCount&) = delete;
    AllocationCount& operator=(const AllocationCount&) = delete;

    // Allocations counted so far.
    int count() const;
};

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_ALLOCATION_COUNT_H
