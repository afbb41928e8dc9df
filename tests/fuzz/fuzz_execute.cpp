// Fuzz target: execution of small calls that pass validation, on the reference and on every CPU path of the
// dispatch registry (forced one at a time). A decoded call (fuzz_calls.h) that passes every rule must run on
// the reference, and on each CPU path either run or be refused with dispatch.cpu.unsupported; under ASan and
// UBSan no kernel may read or write outside the tensors the rules accepted.
#include <cstdlib>
#include <string>

#include "fuzz_calls.h"
#include "support/cpu_paths.h"
#include "support/run_call.h"
#include "support/validate.h"

namespace {

// Small calls only: each input runs the call once per backend.
constexpr size_t kMaxSeedBytes = 64 << 10;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("ATBX_FUZZ_SEED_DIR")) atbx::fuzz::WriteSeedInputs(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    using namespace atbx;
    FuzzedDataProvider data(bytes, size);
    std::optional<test::TestCall> decoded = fuzz::DecodeCall(data, kMaxSeedBytes);
    if (!decoded) return -1;
    test::TestCall& call = *decoded;
    if (!test::Violations(call).empty()) return -1;  // not a valid call: keep it out of the corpus
    if (const Status st = test::Execute(call, Backend::kReference, 1).status; !st.ok())
        fuzz::Fail("a valid call fails on the reference: " + st.ToString());
    for (const std::string& path : test::CpuPaths(call)) {
        const test::ScopedCpuPath forced(path);
        const Status st = test::Execute(call, Backend::kCpu, 1).status;
        if (!st.ok() && st.rule() != "dispatch.cpu.unsupported")
            fuzz::Fail("a valid call fails on " + path + ": " + st.ToString());
    }
    return 0;
}
