// ParallelFor (and ParallelForAhead, whose tasks may claim their successor): the library's one way to run
// work on several threads. Kernels hand it a task count and a body; how threads are made (OpenMP today) stays
// inside core/parallel.cpp.
#ifndef ATBX_CORE_PARALLEL_H
#define ATBX_CORE_PARALLEL_H

#include <atomic>
#include <cstdint>

namespace atbx::core {

// Threads a call with `requested` threads runs on: requested when > 0, else every hardware thread.
int ResolveThreads(int requested);

// Runs body(context, task, thread) for task in [0, count) on up to `threads` threads (0: every hardware
// thread), with thread in [0, ResolveThreads(threads)). Tasks are handed out dynamically; a task's result
// must not depend on the thread that runs it.
void ParallelFor(int64_t count, int threads, void (*body)(void* context, int64_t task, int thread),
                 void* context);

// The same with any callable f(task, thread).
template <class Body>
void ParallelFor(int64_t count, int threads, Body& body) {
    ParallelFor(
        count, threads,
        [](void* context, int64_t task, int thread) { (*static_cast<Body*>(context))(task, thread); }, &body);
}

// The task a thread of ParallelForAhead runs after its current one. A body that can use its successor's
// identity early (to request the successor's data while it finishes its own) claims it; the thread then runs
// the claimed task next. A body that does not claim gets its successor claimed when it returns, as in
// ParallelFor, so that claiming late (near the end of the task) keeps the hand-out close to dynamic.
class NextTask {
  public:
    NextTask(std::atomic<int64_t>& counter, int64_t count) : counter_(counter), count_(count) {}
    NextTask(const NextTask&) = delete;
    NextTask& operator=(const NextTask&) = delete;

    // The task this thread runs next, or -1 when none is left; the first call claims it.
    int64_t Claim() {
        if (claimed_ == kUnclaimed) {
            const int64_t task = counter_.fetch_add(1, std::memory_order_relaxed);
            claimed_ = task < count_ ? task : -1;
        }
        return claimed_;
    }

  private:
    static constexpr int64_t kUnclaimed = -2;
    std::atomic<int64_t>& counter_;
    int64_t count_;
    int64_t claimed_ = kUnclaimed;
};

// ParallelFor whose body(context, task, thread, next) may claim the task its thread runs next.
void ParallelForAhead(int64_t count, int threads,
                      void (*body)(void* context, int64_t task, int thread, NextTask& next), void* context);

// The same with any callable f(task, thread, next).
template <class Body>
void ParallelForAhead(int64_t count, int threads, Body& body) {
    ParallelForAhead(
        count, threads,
        [](void* context, int64_t task, int thread, NextTask& next) {
            (*static_cast<Body*>(context))(task, thread, next);
        },
        &body);
}

}  // namespace atbx::core

#endif  // ATBX_CORE_PARALLEL_H
