#include "bench/row_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <variant>
#include <vector>

#include "atbx/atbx.h"
#include "core/str_cat.h"

namespace atbx::cli::bench {
namespace {

struct Layer {
    BenchCall call;
    std::unique_ptr<Operation> op;
};

Status CreateFor(const io::OpParam& param, std::unique_ptr<Operation>* op) {
    Operation* raw = nullptr;
    const Status st = std::visit([&raw](const auto& p) { return CreateOperation(p, &raw); }, param);
    op->reset(raw);
    return st;
}

double Elapsed(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double Median(std::vector<double> values) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

// At least one timed call; calls until timedSeconds have passed; more until minRuns, within four times that.
bool KeepTiming(int runs, double elapsed, const RunLimits& limits) {
    if (runs == 0 || elapsed < limits.timedSeconds) return true;
    return runs < limits.minRuns && elapsed < 4 * limits.timedSeconds;
}

// Median time of Setup on the row's calls, the layers in turn, as many times as the calls were timed (at
// least 20, at most 1000).
double SetupSeconds(std::vector<Layer>& layers, Context& context, int runs) {
    std::vector<double> times;
    uint64_t workspaceSize = 0;
    for (int i = 0; i < std::clamp(runs, 20, 1000); ++i) {
        Layer& layer = layers[static_cast<size_t>(i) % layers.size()];
        const auto start = std::chrono::steady_clock::now();
        const Status st = layer.op->Setup(layer.call.pack(), workspaceSize, &context);
        times.push_back(Elapsed(start));
        if (!st.ok()) return 0.0;
    }
    return Median(times);
}

}  // namespace

int LayerCount(const RowSpec& row, const RunLimits& limits) {
    const int64_t fit = limits.memoryBytes / std::max<int64_t>(row.layerBytes, 1);
    if (fit < 1) return 0;
    if (!row.cold) return 1;
    const int64_t wanted = (limits.coldBytes + row.kvBytes - 1) / std::max<int64_t>(row.kvBytes, 1);
    return static_cast<int>(std::clamp<int64_t>(wanted, 1, fit));
}

RowOutcome RunRow(const RowSpec& row, const RunLimits& limits) {
    RowOutcome outcome;
    const int layerCount = LayerCount(row, limits);
    if (layerCount == 0) {
        outcome.skipped = core::StrCat("one layer needs ", row.layerBytes >> 20, " MiB, more than the ",
                                       limits.memoryBytes >> 20, " MiB memory bound");
        return outcome;
    }
    Context context{row.platform, limits.threads, limits.backend};
    std::vector<Layer> layers;
    for (int l = 0; l < layerCount; ++l) {
        Layer layer{row.make(static_cast<uint64_t>(l) + 1, limits.pages), nullptr};
        uint64_t workspaceSize = 0;
        Status st = CreateFor(layer.call.param(), &layer.op);
        if (st.ok()) st = layer.op->Setup(layer.call.pack(), workspaceSize, &context);
        if (!st.ok()) {
            outcome.skipped = st.ToString();
            return outcome;
        }
        layers.push_back(std::move(layer));
    }
    RowTiming timing;
    timing.kernel = layers.front().op->KernelName();
    timing.layers = layerCount;
    // One call first: thread start-up, first touch of the outputs and the workspace.
    Status st = layers.front().op->Execute(layers.front().call.pack(), nullptr, 0, &context);
    std::vector<double> times;
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 1; st.ok() && KeepTiming(static_cast<int>(times.size()), Elapsed(start), limits); ++i) {
        Layer& layer = layers[i % layers.size()];
        const auto callStart = std::chrono::steady_clock::now();
        st = layer.op->Execute(layer.call.pack(), nullptr, 0, &context);
        times.push_back(Elapsed(callStart));
    }
    if (!st.ok()) {
        outcome.skipped = st.ToString();
        return outcome;
    }
    timing.seconds = Median(times);
    timing.runs = static_cast<int>(times.size());
    timing.setupSeconds = SetupSeconds(layers, context, timing.runs);
    outcome.timing = timing;
    return outcome;
}

}  // namespace atbx::cli::bench
