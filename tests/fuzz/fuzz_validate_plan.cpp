// Fuzz target: validation and planning of every operation over arbitrary params and descriptors. A decoded
// call (fuzz_calls.h) goes through the rule stages and through the public path (CreateOperation, InferShape,
// Setup on the reference backend, which plans). Beyond the sanitizers' checks: every violation has a message,
// and Setup accepts exactly the calls the rule stages accept.
#include <cstdlib>
#include <memory>
#include <string>

#include "atbx/operation.h"
#include "fuzz_calls.h"
#include "support/validate.h"

namespace {

constexpr size_t kMaxSeedBytes = 256 << 10;

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
    const std::vector<rules::Violation> violations = test::Violations(call);
    for (const rules::Violation& v : violations) {
        if (v.message.empty()) fuzz::Fail(std::string(v.rule->id) + " has no message");
    }
    const VariantPack pack = call.Pack();
    std::visit(
        [&](const auto& param) {
            Operation* raw = nullptr;
            if (!CreateOperation(param, &raw, call.platform).ok()) return;
            const std::unique_ptr<Operation> op(raw);
            (void)op->GetInputNum();
            (void)op->GetOutputNum();
            SVector<TensorDesc> inDescs;
            for (const Tensor& t : pack.inTensors)
                inDescs.push_back(t.desc);
            SVector<TensorDesc> outDescs;
            (void)op->InferShape(inDescs, outDescs);
            Context context{call.platform, 1, Backend::kReference};
            uint64_t workspaceSize = 0;
            const Status st = op->Setup(pack, workspaceSize, &context);
            if (st.ok() != violations.empty()) {
                fuzz::Fail("Setup says " + (st.ok() ? std::string("NO_ERROR") : st.ToString()) +
                           " but the rule stages found " + std::to_string(violations.size()) + " violations");
            }
            if (!st.ok() && (st.rule().empty() || st.message().empty()))
                fuzz::Fail("a status without rule or message: " + st.ToString());
        },
        call.param);
    return 0;
}
