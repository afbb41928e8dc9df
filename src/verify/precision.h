// ATB's precision standard (docs/spec/DECISIONS.md): an output passes iff every element satisfies
//   |out - ref| <= eps * max(1, |ref|)
// with eps = 2^-8 (fp16) / 2^-7 (bf16) when head_dim * max_kv_len + 4 < 2048, else 2^-7 / 2^-6; fp32 2^-11.
// NaN never passes.
#ifndef ATBX_VERIFY_PRECISION_H
#define ATBX_VERIFY_PRECISION_H

#include <cstdint>
#include <string>
#include <vector>

#include "atbx/types.h"

namespace atbx::verify {

double PrecisionEpsilon(aclDataType outputType, int64_t headDim, int64_t maxKvLen);

struct PrecisionReport {
    bool pass = true;
    int64_t checked = 0;   // elements compared (reference not NaN)
    int64_t failures = 0;  // elements over the bound
    double epsilon = 0.0;
    double worstRatio = 0.0;  // max |out - ref| / (eps * max(1, |ref|))
    int64_t worstIndex = -1;
    double worstOut = 0.0;
    double worstRef = 0.0;
    std::string Summary() const;
};

// Compares an output buffer (count elements of `outputType`) with the float64 reference. Reference elements
// that are NaN mark elements the operation does not write; they are skipped.
PrecisionReport CheckPrecision(const void* output, aclDataType outputType,
                               const std::vector<double>& reference, double epsilon);

}  // namespace atbx::verify

#endif  // ATBX_VERIFY_PRECISION_H
