#include "verify/precision.h"

#include <cmath>

#include "core/str_cat.h"
#include "plan/element.h"

namespace atbx::verify {

double PrecisionEpsilon(aclDataType outputType, int64_t headDim, int64_t maxKvLen) {
    const bool small = headDim * maxKvLen + 4 < 2048;
    switch (outputType) {
        case ACL_FLOAT16:
            return small ? 0x1p-8 : 0x1p-7;
        case ACL_BF16:
            return small ? 0x1p-7 : 0x1p-6;
        default:
            return 0x1p-11;
    }
}

PrecisionReport CheckPrecision(const void* output, aclDataType outputType,
                               const std::vector<double>& reference, double epsilon) {
    PrecisionReport report;
    report.epsilon = epsilon;
    for (int64_t i = 0; i < static_cast<int64_t>(reference.size()); ++i) {
        const double ref = reference[i];
        if (std::isnan(ref)) continue;
        ++report.checked;
        const double out = plan::LoadElement(output, outputType, i);
        const double bound = epsilon * std::max(1.0, std::fabs(ref));
        const double ratio = std::isnan(out) ? INFINITY : std::fabs(out - ref) / bound;
        if (!(ratio <= 1.0)) ++report.failures;
        if (!(ratio <= report.worstRatio)) {
            report.worstRatio = ratio;
            report.worstIndex = i;
            report.worstOut = out;
            report.worstRef = ref;
        }
    }
    report.pass = report.failures == 0;
    return report;
}

std::string PrecisionReport::Summary() const {
    return core::StrCat(pass ? "PASS" : "FAIL", ": ", checked, " elements, ", failures,
                        " over the bound; worst ", worstRatio, " of the bound (eps ", epsilon,
                        ") at element ", worstIndex, ": out ", worstOut, ", reference ", worstRef);
}

}  // namespace atbx::verify
