// Executing a TestCall: through the public API on a backend, or as the float64 reference result.
#ifndef ATBX_TESTS_SUPPORT_RUN_CALL_H
#define ATBX_TESTS_SUPPORT_RUN_CALL_H

#include <functional>
#include <string>
#include <vector>

#include "atbx/context.h"
#include "atbx/status.h"
#include "support/test_call.h"

namespace atbx::test {

struct RunResult {
    Status status;
    std::string kernel;  // the kernel that ran
};

// Poisons the outputs, then CreateOperation, Setup, Execute on the backend with a workspace of the size Setup
// asks for whose every byte is 0xFF (a NaN in every float: a kernel that reads scratch before writing it
// spoils its result, where the operation's own zeroed workspace would hide it); cpuPath forces a CPU path
// ("cpu:avx2" ...), else ATBX_CPU_PATH may.
RunResult Execute(TestCall& call, Backend backend, int threads = 2, const char* cpuPath = nullptr);

// Runs the call twice on CPU path `path` (2 threads) through one Operation and one workspace (of NaNs, as
// Execute's): as it is, then after change(call), its outputs poisoned before each Execute, each Execute after
// a Setup (whose workspace size must not change), so that a test can check that the second Execute took
// nothing from the first (a thread's cached key norms, queries or converted tiles). Returns the first status
// that is not OK, else OK.
Status ExecuteTwiceOnOneWorkspace(TestCall& call, const char* path,
                                  const std::function<void(TestCall&)>& change);

// The CPU attention paths of the registry, fastest first ("cpu:avx512", ...).
std::vector<std::string> CpuPaths();

// The CPU feature this machine lacks for the path ("this CPU lacks AVX-512F"), empty when it runs here.
std::string MissingCpuFeature(const std::string& path);

// The exact float64 result of an attention call, indexed like output 0; NaN where the op writes nothing.
std::vector<double> ReferenceResult(TestCall& call);

// ATB's precision standard for output 0 of an attention call against the reference; the report's summary on
// failure, empty on success.
std::string PrecisionFailure(TestCall& call, const std::vector<double>& reference, int64_t headDim,
                             int64_t maxKvLen);

// Runs the call on CPU path `path` with 1, 2 and 3 threads: each run must succeed and give output 0 the bytes
// of the first (gtest expectations; the schedule's grouping depends on the thread count, the results must
// not).
void ExpectIdenticalBitsOnOneTwoAndThreeThreads(TestCall& call, const char* path);

// 'n' NaN, 'i' infinite, 'f' finite for every element of output 0.
std::string OutputClasses(const TestCall& call);

// Per row of `width` elements of output 0: 'n' every element NaN, 'f' every element finite, '?' otherwise.
std::string RowClasses(const TestCall& call, int64_t width);

// Runs a valid attention call on the reference backend, then on every CPU path this machine has, each forced
// in turn: the reference must run and write the exact result rounded to the output dtype wherever it writes;
// every CPU path must run the call and meet the precision standard (its looser, long-context epsilon: the
// dedicated kernel tests check each feature at its own bound). Returns what went wrong, empty when nothing
// did.
std::string RunOnEveryBackend(TestCall& call);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_RUN_CALL_H
