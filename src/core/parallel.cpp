#include "core/parallel.h"

#include <omp.h>

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

}  // namespace atbx::core
