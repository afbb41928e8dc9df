#include "plan/kv_source.h"

namespace atbx::plan {

void DecodeDequantisation(KvSource& source, int64_t kvHeads) {
    source.dequantScaleF32.clear();
    source.dequantOffsetF32.clear();
    if (!source.dequantised()) return;
    const int64_t channels = kvHeads * source.headDim;
    source.dequantScaleF32.resize(channels);
    source.dequantOffsetF32.resize(channels, 0.0f);
    for (int64_t ch = 0; ch < channels; ++ch) {
        source.dequantScaleF32[ch] =
            static_cast<float>(LoadScale(source.dequantScale, source.dequantScaleType, ch));
        if (source.dequantOffset != nullptr)
            source.dequantOffsetF32[ch] = static_cast<float>(source.dequantOffset[ch]);
    }
}

}  // namespace atbx::plan
