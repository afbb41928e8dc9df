// Context: where and how an operation runs. It carries the platform profile whose rules apply, the number of
// threads and the backend.
#ifndef ATBX_CONTEXT_H
#define ATBX_CONTEXT_H

#include <optional>
#include <string_view>

#include "atbx/platform.h"
#include "atbx/status.h"

namespace atbx {

enum class Backend : int {
    kAuto = 0,       // the fastest kernel that supports the call, else the reference
    kReference = 1,  // float64 reference kernels: every feature, slow, the yardstick for the others
    kCpu = 2,        // optimised CPU kernels; a call they do not support fails with the reason
};

// "auto", "ref", "cpu".
const char* BackendName(Backend backend);
std::optional<Backend> ParseBackend(std::string_view name);

struct Context {
    Platform platform = Platform::kAtlasA2;
    int threads = 0;  // 0: every hardware thread
    Backend backend = Backend::kAuto;
    // Forces one CPU kernel path ("avx512", "avx2", "scalar", or with the "cpu:" prefix); null or empty:
    // the environment variable ATBX_CPU_PATH when set, else the fastest path that supports the call.
    const char* cpuPath = nullptr;
};

// ATB-style creation, for code ported from ATB.
Status CreateContext(Context** context);
Status DestroyContext(Context* context);

}  // namespace atbx

#endif  // ATBX_CONTEXT_H
