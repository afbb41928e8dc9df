// ParallelFor: the library's one way to run work on several threads. Kernels hand it a task count and a body;
// how threads are made (OpenMP today) stays inside core/parallel.cpp.
#ifndef ATBX_CORE_PARALLEL_H
#define ATBX_CORE_PARALLEL_H

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

}  // namespace atbx::core

#endif  // ATBX_CORE_PARALLEL_H
