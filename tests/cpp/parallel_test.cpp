// core::ParallelForAhead (src/core/parallel.h): every task runs exactly once whatever the body claims and
// when, a thread runs the task it claimed right after the one that claimed it, and a claim is made once.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "core/parallel.h"

namespace atbx::core {
namespace {

// When a body claims its successor: never (the loop claims after it), before its work, after it, or on odd
// tasks only.
enum class Claiming { kNever, kFirst, kLast, kOddTasks };

struct TaskRun {
    int64_t task;
    int64_t claimed;  // -2: the body did not claim
};

struct Record {
    explicit Record(int64_t count, int threads)
        : runs(static_cast<size_t>(count)), byThread(static_cast<size_t>(ResolveThreads(threads))) {}
    std::vector<std::atomic<int>> runs;
    std::vector<std::vector<TaskRun>> byThread;  // each thread's tasks in the order it ran them
};

void RunAll(int64_t count, int threads, Claiming claiming, Record& record) {
    auto body = [&](int64_t task, int thread, NextTask& next) {
        ASSERT_GE(thread, 0);
        ASSERT_LT(thread, static_cast<int>(record.byThread.size()));
        const bool claims = claiming == Claiming::kFirst || claiming == Claiming::kLast ||
                            (claiming == Claiming::kOddTasks && task % 2 == 1);
        int64_t claimed = -2;
        if (claims && claiming != Claiming::kLast) claimed = next.Claim();
        record.runs[static_cast<size_t>(task)].fetch_add(1);
        if (claims && claiming == Claiming::kLast) claimed = next.Claim();
        if (claimed != -2) {
            EXPECT_EQ(next.Claim(), claimed) << "a second claim returns the first one's task";
        }
        record.byThread[static_cast<size_t>(thread)].push_back({task, claimed});
    };
    ParallelForAhead(count, threads, body);
}

TEST(ParallelForAhead, RunsEveryTaskOnceAndTheClaimedOneNext) {
    for (const int64_t count : {0, 1, 2, 3, 7, 64, 257}) {
        for (const int threads : {1, 2, 3}) {
            for (const Claiming claiming :
                 {Claiming::kNever, Claiming::kFirst, Claiming::kLast, Claiming::kOddTasks}) {
                SCOPED_TRACE(testing::Message() << "count " << count << ", threads " << threads
                                                << ", claiming " << static_cast<int>(claiming));
                Record record(count, threads);
                RunAll(count, threads, claiming, record);
                for (int64_t task = 0; task < count; ++task)
                    EXPECT_EQ(record.runs[static_cast<size_t>(task)].load(), 1) << "task " << task;
                for (const std::vector<TaskRun>& runs : record.byThread) {
                    for (size_t i = 0; i < runs.size(); ++i) {
                        if (runs[i].claimed == -2) continue;
                        const int64_t after = i + 1 < runs.size() ? runs[i + 1].task : -1;
                        EXPECT_EQ(runs[i].claimed, after)
                            << "task " << runs[i].task << " claimed its successor";
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace atbx::core
