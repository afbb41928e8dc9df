// Paged K/V addressing and dequantisation (docs/spec/paged_attention.md 2.2, 2.3, 3.1, 3.4, 3.7, 3.9).
#include "ops/paged_attention/pa_plan_parts.h"

namespace atbx::ops::pa {
namespace {

using plan::KvSource;

// Cache layouts, with Hc the kv heads stored in the cache (1 under KV-head compression) and Dc the cache's
// head size (MLA: the key cache's, of which V reads the first mlaVHeadSize channels):
//   BSND [NB, BS, Hc, Dc], BNSD [NB, Hc, BS, Dc], FRACTAL_NZ [NB, Hc*Dc/16, BS, 16] where element (block p,
//   slot s, head h, channel d) sits at [p, (h*Dc + d) / 16, s, (h*Dc + d) % 16].
KvSource PagedSource(const PaSubject& s, Input cache, int64_t channels) {
    const TensorDesc& desc = s.Desc(cache);
    const int64_t blockSize = s.BlockSize();
    const int64_t heads = s.CacheKvHeads();
    KvSource source;
    source.data = s.Data(cache);
    source.dtype = desc.dtype;
    source.headDim = static_cast<int>(channels);
    source.blockTable = static_cast<const int32_t*>(s.Data(Input::kBlockTables));
    source.tableStride = s.MaxBlocksPerSeq();
    source.blockSize = static_cast<int>(blockSize);
    if (s.Nz()) {
        const int64_t cacheHeadDim = desc.shape.dims[1] * 16 / heads;
        source.blockStride = desc.shape.dims[1] * blockSize * 16;
        source.slotStride = 16;
        source.headStride = cacheHeadDim * blockSize;
        source.channelTile = 16;
        source.channelTileStride = blockSize * 16;
    } else if (s.Bnsd()) {
        const int64_t cacheHeadDim = desc.shape.dims[3];
        source.blockStride = heads * blockSize * cacheHeadDim;
        source.slotStride = cacheHeadDim;
        source.headStride = blockSize * cacheHeadDim;
    } else {
        const int64_t cacheHeadDim = desc.shape.dims[3];
        source.blockStride = blockSize * heads * cacheHeadDim;
        source.slotStride = heads * cacheHeadDim;
        source.headStride = cacheHeadDim;
    }
    return source;
}

// DEQUANT_FUSION: x = (int8 + offset[k*D + c]) * descale[k*D + c] for logical kv head k; the descale is fp32,
// or int64 holding fp32 bits in its low 32 bits.
void AddDequant(const PaSubject& s, Input descale, Input offset, KvSource& source) {
    if (!s.Dequant()) return;
    source.dequantScale = s.Data(descale);
    source.dequantScaleType = s.Desc(descale).dtype;
    if (s.Has(offset)) source.dequantOffset = static_cast<const int32_t*>(s.Data(offset));
    plan::DecodeDequantisation(source, s.KvHeadNum());
}

}  // namespace

KvSource KeySource(const PaSubject& s) {
    KvSource source = PagedSource(s, Input::kKeyCache, s.HeadSizeK());
    AddDequant(s, Input::kKDescale, Input::kKOffset, source);
    return source;
}

KvSource ValueSource(const PaSubject& s) {
    KvSource source = PagedSource(s, s.Mla() ? Input::kKeyCache : Input::kValueCache, s.HeadSizeV());
    AddDequant(s, Input::kVDescale, Input::kVOffset, source);
    return source;
}

}  // namespace atbx::ops::pa
