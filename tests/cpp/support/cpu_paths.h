// The CPU paths a call can be forced onto: every CPU kernel of the dispatch registry for the call's plan
// ("cpu:scalar", "cpu:avx2" ...), forced one at a time through ATBX_CPU_PATH (CONTRACTS 4).
#ifndef ATBX_TESTS_SUPPORT_CPU_PATHS_H
#define ATBX_TESTS_SUPPORT_CPU_PATHS_H

#include <optional>
#include <string>
#include <vector>

#include "support/test_call.h"

namespace atbx::test {

// Names of the registry's CPU kernels for the call's operation, fastest first.
std::vector<std::string> CpuPaths(const TestCall& call);

// Restricts dispatch to one CPU path for its lifetime ("cpu:avx2" sets ATBX_CPU_PATH=avx2), then restores
// the variable. Not thread-safe: the environment is process-wide.
class ScopedCpuPath {
  public:
    explicit ScopedCpuPath(const std::string& path);
    ~ScopedCpuPath();
    ScopedCpuPath(const ScopedCpuPath&) = delete;
    ScopedCpuPath& operator=(const ScopedCpuPath&) = delete;

  private:
    std::optional<std::string> previous_;
};

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_CPU_PATHS_H
