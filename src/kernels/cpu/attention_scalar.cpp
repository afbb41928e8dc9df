#include "kernels/cpu/attention_scalar.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/float16.h"
#include "kernels/ref/cache_write_ref.h"
#include "plan/element.h"

namespace atbx::kernels::cpu {
namespace {

using plan::AttentionPlan;
using plan::KvSource;
using plan::WorkItem;

constexpr int kKeyTile = 64;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

bool FloatType(aclDataType dtype) {
    return dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_FLOAT;
}

// Converts rows [j0, j0 + count) of one kv head to fp32, [count, headDim]; the dtype is resolved once,
// outside the loops, and each row's channels are contiguous (FRACTAL_NZ sources are refused).
template <class Element, class Widen>
void LoadRowsAs(const KvSource& source, const WorkItem& item, int32_t j0, int32_t count, float* out,
                Widen widen) {
    const auto* data = static_cast<const Element*>(source.data);
    for (int32_t t = 0; t < count; ++t) {
        const Element* row = data + source.RowOffset(item.kvSequence, j0 + t, item.kvHead);
        float* dst = out + static_cast<int64_t>(t) * source.headDim;
        for (int32_t c = 0; c < source.headDim; ++c)
            dst[c] = widen(row[c]);
    }
}

void LoadRows(const KvSource& source, const WorkItem& item, int32_t j0, int32_t count, float* out) {
    switch (source.dtype) {
        case ACL_FLOAT16:
            return LoadRowsAs<uint16_t>(source, item, j0, count, out, core::HalfToFloat);
        case ACL_BF16:
            return LoadRowsAs<uint16_t>(source, item, j0, count, out, core::Bf16ToFloat);
        default:
            return LoadRowsAs<float>(source, item, j0, count, out, [](float x) { return x; });
    }
}

float LoadFloat(const void* data, aclDataType dtype, int64_t offset) {
    switch (dtype) {
        case ACL_FLOAT16:
            return core::HalfToFloat(static_cast<const uint16_t*>(data)[offset]);
        case ACL_BF16:
            return core::Bf16ToFloat(static_cast<const uint16_t*>(data)[offset]);
        default:
            return static_cast<const float*>(data)[offset];
    }
}

// q . k over n channels, in eight interleaved partial sums so that the compiler can keep them in vector
// lanes.
float Dot(const float* q, const float* k, int32_t n) {
    constexpr int kLanes = 8;
    float partial[kLanes] = {};
    int32_t c = 0;
    for (; c + kLanes <= n; c += kLanes) {
        for (int l = 0; l < kLanes; ++l)
            partial[l] += q[c + l] * k[c + l];
    }
    float sum = 0.0f;
    for (; c < n; ++c)
        sum += q[c] * k[c];
    for (float p : partial)
        sum += p;
    return sum;
}

class ItemKernel {
  public:
    ItemKernel(const AttentionPlan& plan, const WorkItem& item)
        : plan_(plan),
          item_(item),
          lanes_(static_cast<int64_t>(item.headCount) * item.qLen),
          q_(lanes_ * plan.headDim),
          keys_(static_cast<int64_t>(kKeyTile) * plan.headDim),
          values_(static_cast<int64_t>(kKeyTile) * plan.headDimV),
          scores_(kKeyTile),
          max_(lanes_, kNegInf),
          sum_(lanes_, 0.0f),
          acc_(lanes_ * plan.headDimV, 0.0f) {}

    void Run() {
        if (item_.zeroOutput) return Store(/*zero=*/true);
        LoadQueries();
        for (int32_t j0 = item_.kvBegin; j0 < item_.kvEnd; j0 += kKeyTile) {
            const int32_t count = std::min(kKeyTile, item_.kvEnd - j0);
            LoadRows(plan_.key, item_, j0, count, keys_.data());
            LoadRows(plan_.value, item_, j0, count, values_.data());
            for (int64_t lane = 0; lane < lanes_; ++lane)
                Accumulate(lane, j0, count);
        }
        Store(/*zero=*/false);
    }

  private:
    int64_t HeadOf(int64_t lane) const { return item_.headBegin + lane / item_.qLen; }
    int64_t RowOf(int64_t lane) const { return lane % item_.qLen; }

    void LoadQueries() {
        for (int64_t lane = 0; lane < lanes_; ++lane) {
            const int64_t base = plan_.query.Offset(item_.qOffset, RowOf(lane), HeadOf(lane));
            float* q = &q_[lane * plan_.headDim];
            for (int32_t c = 0; c < plan_.headDim; ++c) {
                q[c] = LoadFloat(plan_.query.data, plan_.query.dtype, base + c);
                if (plan_.qPreScale) {
                    q[c] = static_cast<float>(plan::RoundToDtype(q[c] * *plan_.qPreScale, plan_.query.dtype));
                }
            }
        }
    }

    void Accumulate(int64_t lane, int32_t j0, int32_t count) {
        const int64_t head = HeadOf(lane);
        const int64_t row = RowOf(lane);
        const float* q = &q_[lane * plan_.headDim];
        const auto rowScale = static_cast<float>(plan_.scale.RowScale(item_, row));
        for (int32_t t = 0; t < count; ++t) {
            const float dot = Dot(q, &keys_[static_cast<int64_t>(t) * plan_.headDim], plan_.headDim);
            scores_[t] = static_cast<float>(plan_.scale.Clamp(dot * rowScale));
        }
        std::visit(
            [&](const auto& mask) {
                for (int32_t t = 0; t < count; ++t) {
                    scores_[t] += static_cast<float>(mask.Term(item_, head, row, j0 + t));
                }
            },
            plan_.mask);
        const float newMax =
            std::max(max_[lane], *std::max_element(scores_.begin(), scores_.begin() + count));
        if (newMax == kNegInf) return;
        const float rescale = max_[lane] == kNegInf ? 0.0f : std::exp(max_[lane] - newMax);
        float* acc = &acc_[lane * plan_.headDimV];
        for (int32_t c = 0; c < plan_.headDimV; ++c)
            acc[c] *= rescale;
        float tileSum = 0.0f;
        for (int32_t t = 0; t < count; ++t) {
            const float weight = std::exp(scores_[t] - newMax);
            tileSum += weight;
            const float* v = &values_[static_cast<int64_t>(t) * plan_.headDimV];
            for (int32_t c = 0; c < plan_.headDimV; ++c)
                acc[c] += weight * v[c];
        }
        sum_[lane] = sum_[lane] * rescale + tileSum;
        max_[lane] = newMax;
    }

    void Store(bool zero) {
        const plan::RowAccess& out = plan_.output;
        for (int64_t lane = 0; lane < lanes_; ++lane) {
            const int64_t base = out.Offset(item_.outOffset, RowOf(lane), HeadOf(lane));
            const float* acc = &acc_[lane * plan_.headDimV];
            for (int32_t c = 0; c < plan_.headDimV; ++c) {
                plan::StoreElement(out.out, out.dtype, base + c, zero ? 0.0 : acc[c] / sum_[lane]);
            }
        }
    }

    const AttentionPlan& plan_;
    const WorkItem& item_;
    const int64_t lanes_;
    std::vector<float> q_;       // [lanes, headDim]
    std::vector<float> keys_;    // [kKeyTile, headDim]
    std::vector<float> values_;  // [kKeyTile, headDimV]
    std::vector<float> scores_;  // [kKeyTile]
    std::vector<float> max_;     // [lanes]
    std::vector<float> sum_;     // [lanes]
    std::vector<float> acc_;     // [lanes, headDimV]
};

}  // namespace

std::optional<std::string> ScalarAttentionRefusal(const AttentionPlan& plan) {
    if (plan.quant.enabled()) return "int8 QKV quantisation is not implemented on this path";
    if (!FloatType(plan.query.dtype) || !FloatType(plan.key.dtype) || !FloatType(plan.value.dtype)) {
        return "only float16, bfloat16 and float32 queries and caches are implemented on this path";
    }
    if (plan.key.dequantised() || plan.value.dequantised()) {
        return "int8 cache dequantisation is not implemented on this path";
    }
    if (plan.key.channelTile != 0 || plan.value.channelTile != 0) {
        return "FRACTAL_NZ caches are not implemented on this path";
    }
    if (plan.scale.razorOffset != nullptr) return "razor offsets are not implemented on this path";
    return std::nullopt;
}

void ScalarAttention(const AttentionPlan& plan, int threads) {
    ref::ExecuteCacheWrites(plan.preWrites);
    const auto count = static_cast<int64_t>(plan.items.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads > 0 ? threads : omp_get_max_threads())
    for (int64_t i = 0; i < count; ++i)
        ItemKernel(plan, plan.items[i]).Run();
}

}  // namespace atbx::kernels::cpu
