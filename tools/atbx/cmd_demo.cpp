// atbx demo: one PagedAttention decode step through the public path (CreateOperation, Setup, Execute),
// checked against the float64 reference under ATB's precision standard, with its time and throughput.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include "atbx/atbx.h"
#include "commands.h"
#include "demo_case.h"
#include "kernels/ref/attention_ref.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"
#include "perf/bandwidth.h"
#include "verify/precision.h"

namespace atbx::cli {
namespace {

using Spec = ops::pa::PagedAttentionSpec;

std::vector<double> Reference(const DemoCase& demo, int threads) {
    ops::CallValidation<Spec> validation(demo.param, Platform::kAtlasA2);
    validation.SetPack(demo.pack);
    validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues);
    return kernels::ref::ComputeAttention(Spec::BuildPlan(validation.subject()), threads);
}

// Median wall time of `iterations` Executes into *median; the first failing Execute stops the timing.
Status MedianSeconds(Operation& op, const VariantPack& pack, Context& context, int iterations,
                     double* median) {
    std::vector<double> times;
    for (int i = 0; i < iterations; ++i) {
        const auto start = std::chrono::steady_clock::now();
        if (Status st = op.Execute(pack, nullptr, 0, &context); !st.ok()) return st;
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + iterations / 2, times.end());
    *median = times[iterations / 2];
    return Status::Ok();
}

}  // namespace

int DemoCommand(const DemoOptions& options) {
    DemoCase demo = MakeDemoCase(20261130);
    std::cout << "PagedAttention decode: batch " << demo.contextLens.size() << ", headNum "
              << demo.param.headNum << " over kvHeadNum " << demo.param.kvHeadNum << ", head size "
              << demo.headDim << ", block size 128, fp16, contextLens";
    for (int32_t len : demo.contextLens)
        std::cout << ' ' << len;
    std::cout << '\n';

    Operation* raw = nullptr;
    Status st = CreateOperation(demo.param, &raw);
    std::unique_ptr<Operation> op(raw);
    Context context{Platform::kAtlasA2, options.threads, options.backend};
    uint64_t workspaceSize = 0;
    if (st.ok()) st = op->Setup(demo.pack, workspaceSize, &context);
    if (st.ok()) st = op->Execute(demo.pack, nullptr, workspaceSize, &context);
    if (!st.ok()) {
        std::cerr << "error: " << st.ToString() << '\n';
        return kExitRule;
    }
    std::cout << "validate -> plan -> kernel " << op->KernelName() << " (backend "
              << BackendName(options.backend) << ", platform atlas-a2)\n";

    const std::vector<double> reference = Reference(demo, options.threads);
    const int32_t longest = *std::max_element(demo.contextLens.begin(), demo.contextLens.end());
    const double epsilon = verify::PrecisionEpsilon(ACL_FLOAT16, demo.headDim, longest);
    const verify::PrecisionReport report =
        verify::CheckPrecision(demo.pack.outTensors[0].deviceData, ACL_FLOAT16, reference, epsilon);
    std::cout << "check against the float64 reference: " << report.Summary() << '\n';

    double seconds = 0;
    if (st = MedianSeconds(*op, demo.pack, context, options.iterations, &seconds); !st.ok()) {
        std::cerr << "error: " << st.ToString() << '\n';
        return kExitRule;
    }
    const double ceiling = perf::MeasureReadBandwidth(int64_t{1} << 30, options.threads, 3);
    const double achieved = static_cast<double>(demo.kvBytesRead) / seconds;
    std::cout << "time: " << seconds * 1e3 << " ms per decode step (median of " << options.iterations << "), "
              << achieved / 1e9 << " GB/s of KV (" << 100.0 * achieved / ceiling
              << " % of this machine's read ceiling, " << ceiling / 1e9 << " GB/s measured now), "
              << static_cast<double>(demo.flops) / seconds / 1e9 << " GFLOP/s\n";
    return report.pass ? kExitOk : kExitRule;
}

}  // namespace atbx::cli
