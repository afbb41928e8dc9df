#include "kernels/ref/attention_ref.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/parallel.h"
#include "plan/element.h"

#define ATBX_KERNEL_NAMESPACE atbx::kernels::ref
#include "kernels/common/online_softmax.inl"

namespace atbx::kernels::ref {
namespace {

using plan::AttentionPlan;
using plan::QuantPolicy;
using plan::WorkItem;

constexpr int kRowBlock = 64;  // query rows whose softmax state is kept at once
constexpr int kKeyTile = 128;  // keys loaded at once; also ATB's P-quantisation tile
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Task {
    const WorkItem* item;
    int32_t rowBegin;
    int32_t rowEnd;
};

std::vector<Task> MakeTasks(const AttentionPlan& plan) {
    std::vector<Task> tasks;
    for (const WorkItem& item : plan.items) {
        for (int32_t r = 0; r < item.qLen; r += kRowBlock)
            tasks.push_back({&item, r, std::min(item.qLen, r + kRowBlock)});
    }
    return tasks;
}

// Online-softmax state of `rows` query rows for every head of a task: running max m, running sum l of the
// unquantised weights, the weighted sum of values, and the largest tile maximum of the unquantised weights
// seen so far (SelfAttention's online P quantisation scales by it).
struct SoftmaxState {
    std::vector<double> max, sum, acc, weightMax;
    SoftmaxState(int64_t lanes, int64_t headDimV)
        : max(lanes, kNegInf), sum(lanes, 0.0), acc(lanes * headDimV, 0.0), weightMax(lanes, 0.0) {}
};

// Computes one task: rows [rowBegin, rowEnd) of one item, all of its heads.
class TaskRunner {
  public:
    TaskRunner(const AttentionPlan& plan, const Task& task)
        : plan_(plan),
          item_(*task.item),
          rowBegin_(task.rowBegin),
          rows_(task.rowEnd - task.rowBegin),
          lanes_(static_cast<int64_t>(item_.headCount) * rows_),
          q_(lanes_ * plan.headDim),
          keys_(kKeyTile * static_cast<int64_t>(plan.headDim)),
          values_(kKeyTile * static_cast<int64_t>(plan.headDimV)),
          logits_(kKeyTile),
          state_(lanes_, plan.headDimV) {}

    template <class Sink>
    void Run(Sink&& sink) {
        if (item_.zeroOutput) {
            for (int64_t lane = 0; lane < lanes_; ++lane) {
                for (int32_t c = 0; c < plan_.headDimV; ++c)
                    sink(OutputOffset(lane) + c, 0.0);
            }
            return;
        }
        LoadQueries();
        for (int32_t t0 = item_.kvBegin; t0 < item_.kvEnd; t0 += kKeyTile) {
            const int32_t count = std::min(kKeyTile, item_.kvEnd - t0);
            LoadKeyTile(t0, count);
            for (int64_t lane = 0; lane < lanes_; ++lane) {
                ComputeLogits(lane, t0, count);
                UpdateState(lane, count);
            }
        }
        // A NaN anywhere in a row makes the whole row NaN (docs/decisions.md).
        for (int64_t lane = 0; lane < lanes_; ++lane) {
            const double* acc = &state_.acc[lane * plan_.headDimV];
            const bool nan = std::isnan(state_.sum[lane]) ||
                             std::any_of(acc, acc + plan_.headDimV, [](double x) { return std::isnan(x); });
            for (int32_t c = 0; c < plan_.headDimV; ++c)
                sink(OutputOffset(lane) + c,
                     nan ? std::numeric_limits<double>::quiet_NaN() : acc[c] / state_.sum[lane]);
        }
    }

  private:
    // A lane is one (head, row) pair of the task: lane = headIndex * rows + row.
    int64_t HeadOf(int64_t lane) const { return item_.headBegin + lane / rows_; }
    int64_t RowOf(int64_t lane) const { return rowBegin_ + lane % rows_; }
    int64_t OutputOffset(int64_t lane) const {
        return plan_.output.Offset(item_.outOffset, RowOf(lane), HeadOf(lane));
    }

    void LoadQueries() {
        const plan::RowAccess& query = plan_.query;
        for (int64_t lane = 0; lane < lanes_; ++lane) {
            const int64_t base = query.Offset(item_.qOffset, RowOf(lane), HeadOf(lane));
            double* q = &q_[lane * plan_.headDim];
            for (int32_t c = 0; c < plan_.headDim; ++c) {
                q[c] = plan::LoadElement(query.data, query.dtype, base + c);
                if (plan_.qPreScale) q[c] = plan::RoundToDtype(q[c] * *plan_.qPreScale, query.dtype);
            }
        }
    }

    void LoadKeyTile(int32_t t0, int32_t count) {
        LoadRows(plan_.key, t0, count, keys_.data());
        LoadRows(plan_.value, t0, count, values_.data());
    }

    void LoadRows(const plan::KvSource& source, int32_t t0, int32_t count, double* out) const {
        for (int32_t t = 0; t < count; ++t) {
            const int64_t row = source.RowOffset(item_.kvSequence, t0 + t, item_.kvHead);
            for (int32_t c = 0; c < source.headDim; ++c) {
                const double raw = plan::LoadElement(source.data, source.dtype, source.ChannelAt(row, c));
                out[static_cast<int64_t>(t) * source.headDim + c] =
                    source.Dequantise(raw, item_.logicalKvHead, c);
            }
        }
    }

    void ComputeLogits(int64_t lane, int32_t t0, int32_t count) {
        const int64_t head = HeadOf(lane);
        const int64_t row = RowOf(lane);
        const double* q = &q_[lane * plan_.headDim];
        const double rowScale = plan_.scale.RowScale(item_, row);
        const double descale = plan_.quant.enabled() ? plan_.quant.kDescale[head] : 1.0;
        for (int32_t t = 0; t < count; ++t) {
            const double* k = &keys_[static_cast<int64_t>(t) * plan_.headDim];
            double dot = 0.0;
            for (int32_t c = 0; c < plan_.headDim; ++c)
                dot += q[c] * k[c];
            dot = dot * descale + RazorOffset(t0 + t);
            logits_[t] = plan_.scale.Clamp(InFloatRange(dot * rowScale));
        }
        // A -inf term hides its key whatever its score (docs/decisions.md, numeric semantics).
        std::visit(
            [&](const auto& mask) {
                for (int32_t t = 0; t < count; ++t) {
                    const double term = mask.Term(item_, head, row, t0 + t);
                    logits_[t] = term == kNegInf ? kNegInf : logits_[t] + term;
                }
            },
            plan_.mask);
    }

    // Scores are formed in fp32 range: beyond FLT_MAX they are +-inf, as on every backend.
    static double InFloatRange(double score) {
        return std::abs(score) > FLT_MAX ? std::copysign(std::numeric_limits<double>::infinity(), score)
                                         : score;
    }

    double RazorOffset(int64_t j) const {
        const plan::ScalePolicy& scale = plan_.scale;
        if (scale.razorOffset == nullptr) return 0.0;
        const int64_t block = plan_.key.BlockOf(item_.kvSequence, j);
        return scale.razorOffset[block * scale.razorBlockStride + j % plan_.key.blockSize];
    }

    // Folds the tile's logits into the lane's online-softmax state (kernels/common/online_softmax.inl): a NaN
    // logit makes the row NaN.
    void UpdateState(int64_t lane, int32_t count) {
        double tileMax = kNegInf;
        for (int32_t t = 0; t < count && !std::isnan(tileMax); ++t)
            tileMax = std::isnan(logits_[t]) ? logits_[t] : std::max(tileMax, logits_[t]);
        const SoftmaxStep<double> step = StepSoftmax(state_.max[lane], tileMax);
        if (!step.visible) return;  // every key so far is hidden by -inf
        const double newMax = step.newMax;
        const double rescale = step.rescale;
        double* acc = &state_.acc[lane * plan_.headDimV];
        for (int32_t c = 0; c < plan_.headDimV; ++c)
            acc[c] *= rescale;
        double tileSum = 0.0;
        for (int32_t t = 0; t < count; ++t) {
            logits_[t] = std::exp(logits_[t] - newMax);  // logits_ now holds the unquantised weights
            tileSum += logits_[t];
        }
        state_.sum[lane] = state_.sum[lane] * rescale + tileSum;
        state_.max[lane] = newMax;
        if (plan_.quant.selfAttention()) {
            AccumulateSelfQuantised(lane, count, tileMax, newMax, acc);
        } else if (plan_.quant.enabled()) {
            AccumulateQuantised(lane, count, tileMax, newMax, acc);
        } else {
            AccumulateValues(count, 1.0, acc);
        }
    }

    // A key of weight 0 takes no part, even with a NaN value.
    void AccumulateValues(int32_t count, double factor, double* acc) const {
        for (int32_t t = 0; t < count; ++t) {
            const double weight = logits_[t] * factor;
            if (weight == 0.0) continue;
            const double* v = &values_[static_cast<int64_t>(t) * plan_.headDimV];
            for (int32_t c = 0; c < plan_.headDimV; ++c)
                acc[c] += weight * v[c];
        }
    }

    // int8 P.V: the weights are quantised to int8 as ATB's kernels do, multiplied with the int8 values, and
    // the integer sums scaled back.
    void AccumulateQuantised(int64_t lane, int32_t count, double tileMax, double newMax, double* acc) {
        const QuantPolicy& quant = plan_.quant;
        const int64_t head = HeadOf(lane);
        double pFactor = 0.0;    // weight -> int8 scale
        double outFactor = 0.0;  // integer sum -> output scale
        switch (quant.mode) {
            case QuantPolicy::Mode::kPagedOnline: {
                if (tileMax == kNegInf) return;
                const double sigma = std::exp(tileMax - newMax) / 127.0;
                pFactor = 1.0 / sigma;
                outFactor = quant.vDescale[head] * sigma;
                break;
            }
            case QuantPolicy::Mode::kPagedOffline:
                pFactor = quant.pScale[head];
                outFactor = quant.vDescale[head];
                break;
            case QuantPolicy::Mode::kNone:
            case QuantPolicy::Mode::kSelfOnline:
            case QuantPolicy::Mode::kSelfOffline:
                return;
        }
        QuantiseWeights(count, pFactor);
        AccumulateValues(count, outFactor, acc);
    }

    // SelfAttention's int8 P.V (docs/spec/self_attention.md 3.8): online, the weights are scaled by the
    // largest tile maximum of the row so far (which is 1 from the first tile on, as ATB's golden computes
    // it); offline, by the caller's pScale, which the result multiplies back in.
    void AccumulateSelfQuantised(int64_t lane, int32_t count, double tileMax, double newMax, double* acc) {
        const QuantPolicy& quant = plan_.quant;
        const int64_t head = HeadOf(lane);
        double step = 0.0;  // weight of one int8 step
        if (quant.mode == QuantPolicy::Mode::kSelfOnline) {
            if (tileMax == kNegInf) return;  // every key of the tile is hidden: its weights are all 0
            state_.weightMax[lane] = std::max(state_.weightMax[lane], std::exp(tileMax - newMax));
            step = state_.weightMax[lane] / 127.0;
        } else {
            step = quant.pScale[head];
        }
        QuantiseWeights(count, 1.0 / step);
        AccumulateValues(count, quant.vDescale[head] * step, acc);
    }

    // Weights times `factor`, rounded to fp16 and then to int8 as the kernels convert them.
    void QuantiseWeights(int32_t count, double factor) {
        for (int32_t t = 0; t < count; ++t) {
            const double scaled = plan::RoundToDtype(logits_[t] * factor, ACL_FLOAT16);
            logits_[t] = std::clamp(std::nearbyint(scaled), -128.0, 127.0);
        }
    }

    const AttentionPlan& plan_;
    const WorkItem& item_;
    const int32_t rowBegin_;
    const int32_t rows_;
    const int64_t lanes_;
    std::vector<double> q_;       // [lanes, headDim]
    std::vector<double> keys_;    // [kKeyTile, headDim]
    std::vector<double> values_;  // [kKeyTile, headDimV]
    std::vector<double> logits_;  // [kKeyTile]
    SoftmaxState state_;
};

template <class Sink>
void RunTasks(const AttentionPlan& plan, int threads, Sink&& sink) {
    const std::vector<Task> tasks = MakeTasks(plan);
    auto body = [&](int64_t t, int) { TaskRunner(plan, tasks[t]).Run(sink); };
    core::ParallelFor(static_cast<int64_t>(tasks.size()), threads, body);
}

}  // namespace

std::vector<double> ComputeAttention(const AttentionPlan& plan, int threads) {
    std::vector<double> result(plan.outputElements, std::numeric_limits<double>::quiet_NaN());
    RunTasks(plan, threads, [&](int64_t offset, double value) { result[offset] = value; });
    return result;
}

void ExecuteAttention(const AttentionPlan& plan, int threads) {
    const plan::RowAccess& output = plan.output;
    RunTasks(plan, threads, [&](int64_t offset, double value) {
        plan::StoreElement(output.out, output.dtype, offset, value);
    });
}

}  // namespace atbx::kernels::ref
