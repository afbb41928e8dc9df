#include "kernels/cpu/query_prescale.h"

#include "core/cpu_features.h"
#include "core/float16.h"

namespace atbx::kernels::cpu {
namespace baseline {

void PrescaleQueries(const void* query, aclDataType dtype, int64_t n, float scale, float* out) {
    const auto* half = static_cast<const uint16_t*>(query);
    switch (dtype) {
        case ACL_FLOAT16:
            for (int64_t i = 0; i < n; ++i) {
                const double product = double{core::HalfToFloat(half[i])} * scale;
                out[i] = core::HalfToFloat(core::FloatToHalf(core::RoundToOddFloat(product)));
            }
            return;
        case ACL_BF16:
            for (int64_t i = 0; i < n; ++i) {
                const double product = double{core::Bf16ToFloat(half[i])} * scale;
                out[i] = core::Bf16ToFloat(core::FloatToBf16(core::RoundToOddFloat(product)));
            }
            return;
        default:
            for (int64_t i = 0; i < n; ++i)
                out[i] = static_cast<float>(double{static_cast<const float*>(query)[i]} * scale);
    }
}

}  // namespace baseline

PrescaleFn HostPrescaleQueries() {
    const core::CpuFeatures& cpu = core::HostCpu();
    if (cpu.avx512f) return avx512::PrescaleQueries;
    if (cpu.avx2 && cpu.f16c) return avx2::PrescaleQueries;
    return baseline::PrescaleQueries;
}

}  // namespace atbx::kernels::cpu
