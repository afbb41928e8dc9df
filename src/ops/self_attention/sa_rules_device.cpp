// SelfAttention device-value rules (Setup and Execute): indices read from device tensors, layerId and the
// PREFIX_ENCODER block ids, are checked before anything is read with them.
#include <algorithm>
#include <cstring>

#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

// Element i of an int32 (or uint32, read as int32: values above INT32_MAX turn negative) device tensor.
int32_t ReadInt32(const S& s, Input input, int64_t i) {
    int32_t value = 0;
    std::memcpy(&value, static_cast<const char*>(s.Data(input)) + i * sizeof(int32_t), sizeof(int32_t));
    return value;
}

Verdict LayerIdInRange(const S& s) {
    if (!s.Has(Input::kLayerId)) return Pass();
    const CacheShape cache = CacheShapeOf(s, Input::kCacheK);
    if (!cache.hasLayers) return Pass();  // the dynamic-batch cache has no layer dim; layerId is not read
    const int32_t layer = ReadInt32(s, Input::kLayerId, 0);
    return Require(layer >= 0 && layer < cache.layers, "layerId[0] must be in [0, layers = ", cache.layers,
                   "), got ", AsGiven(s, layer));
}

Verdict BlockIdsInRange(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    const int64_t numBlocks = s.Dim(Input::kKey, 0);
    const int64_t blockSize = s.Dim(Input::kKey, 1);
    const int64_t width = s.Dim(Input::kBlockTables, 1);
    const int64_t rows =
        std::min<int64_t>(s.Dim(Input::kBlockTables, 0), static_cast<int64_t>(s.kvSeqLen.size()));
    for (int64_t b = 0; b < rows; ++b) {
        const int64_t used = std::min(width, CeilDiv(std::max<int64_t>(s.kvSeqLen[b], 0), blockSize));
        for (int64_t k = 0; k < used; ++k) {
            const int32_t id = ReadInt32(s, Input::kBlockTables, b * width + k);
            if (id < 0 || id >= numBlocks) {
                return Fail("blockTables[", b, "][", k, "] must be in [0, num_blocks = ", numBlocks,
                            "), got ", id);
            }
        }
    }
    return Pass();
}

}  // namespace

std::vector<SaRule> DeviceRules() {
    const Stage d = Stage::kDeviceValues;
    return {
        MakeRule("sa.device.layer_id_in_range", d, kAllProfiles, ERROR_INVALID_PARAM,
                 "layerId[0] in [0, layers) of the caches (read from the device tensor)",
                 "docs/spec/self_attention.md 2.1 (layerId selects the cache's layer slice)", LayerIdInRange),
        MakeRule("sa.device.block_ids_in_range", d, kAllProfiles, ERROR_INVALID_PARAM,
                 "PREFIX_ENCODER: every blockTables entry read (logical block < ceil(kvSeqLen[b] / block "
                 "size)) in "
                 "[0, num_blocks)",
                 "docs/spec/self_attention.md 2.5, 3.2; docs/spec/DECISIONS.md 4 (the same rule for "
                 "PagedAttention)",
                 BlockIdsInRange),
    };
}

}  // namespace atbx::ops::sa
