#include "core/parallel.h"

#include <omp.h>

#include <algorithm>

namespace atbx::core {

int ResolveThreads(int requested) {
    return requested > 0 ? requested : omp_get_max_threads();
}

void ParallelFor(int64_t count, int threads, void (*body)(void* context, int64_t task, int thread),
                 void* context) {
    const int teamSize = ResolveThreads(threads);
    if (count <= 1 || teamSize == 1) {
        for (int64_t task = 0; task < count; ++task)
            body(context, task, 0);
        return;
    }
#pragma omp parallel for schedule(dynamic) num_threads(teamSize)
    for (int64_t task = 0; task < count; ++task)
        body(context, task, omp_get_thread_num());
}

namespace {

// One thread's share: tasks from the shared counter, each followed by the one its body claimed (or the next
// one free when it claimed none).
void RunClaiming(std::atomic<int64_t>& counter, int64_t count, int thread,
                 void (*body)(void* context, int64_t task, int thread, NextTask& next), void* context) {
    for (int64_t task = counter.fetch_add(1, std::memory_order_relaxed); task >= 0 && task < count;) {
        NextTask next(counter, count);
        body(context, task, thread, next);
        task = next.Claim();
    }
}

}  // namespace

void ParallelForAhead(int64_t count, int threads,
                      void (*body)(void* context, int64_t task, int thread, NextTask& next), void* context) {
    std::atomic<int64_t> counter{0};
    const int teamSize = ResolveThreads(threads);
    if (count <= 1 || teamSize == 1) return RunClaiming(counter, count, 0, body, context);
    const auto busy = static_cast<int>(std::min<int64_t>(teamSize, count));
#pragma omp parallel num_threads(busy)
    RunClaiming(counter, count, omp_get_thread_num(), body, context);
}

}  // namespace atbx::core
