// KvSource: where key or value channel c of kv head h at position j of a work item lives, for every cache
// layout ATB has: paged (BSND, BNSD, FRACTAL_NZ), packed token rows, and per-layer caches. Element offsets
// are in elements of `dtype`.
#ifndef ATBX_PLAN_KV_SOURCE_H
#define ATBX_PLAN_KV_SOURCE_H

#include <cstdint>
#include <vector>

#include "atbx/types.h"
#include "plan/element.h"

namespace atbx::plan {

struct KvSource {
    const void* data = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    int headDim = 0;  // channels read per head (V of an MLA cache reads the first mlaVHeadSize channels of K)

    int64_t slotStride = 0;  // between consecutive positions (inside a block when paged)
    int64_t headStride = 0;  // between kv heads
    int channelTile = 0;     // 0: channels contiguous; 16 or 32: FRACTAL_NZ tiles of this many channels
    int64_t channelTileStride = 0;

    // Paged sources: position j of sequence r is slot j % blockSize of block blockTable[r * tableStride + j /
    // blockSize]. Non-paged sources (blockTable == nullptr) start at element kvSequence * sequenceStride of
    // the work item, so that a key and a value source with different row widths can share the item's
    // kvSequence (a token row, or a layer-and-batch index).
    const int32_t* blockTable = nullptr;
    int64_t tableStride = 0;
    int blockSize = 0;
    int64_t blockStride = 0;
    int64_t sequenceStride = 1;  // non-paged sources: elements per kvSequence unit

    // int8 caches read by a floating-point query (DEQUANT_FUSION): value = (x + offset[ch]) * scale[ch] with
    // ch = logicalKvHead * headDim + c. The scale is fp32, or int64/uint64 holding fp32 bits in its low 32
    // bits; no scale: no dequantisation; no offset: offset 0.
    const void* dequantScale = nullptr;
    aclDataType dequantScaleType = ACL_DT_UNDEFINED;
    const int32_t* dequantOffset = nullptr;
    // The same decoded once at plan time for vectorised kernels: fp32 [kvHeads * headDim] each (offsets 0
    // when the call has none); empty when the source is not dequantised.
    std::vector<float> dequantScaleF32;
    std::vector<float> dequantOffsetF32;

    bool paged() const { return blockTable != nullptr; }

    // Physical block of position j of sequence r (paged sources only).
    int64_t BlockOf(int64_t sequence, int64_t j) const {
        return blockTable[sequence * tableStride + j / blockSize];
    }

    // Element offset of channel 0 of head h at position j; `sequence` is a block-table row when paged, else
    // position 0 starts at element sequence * sequenceStride.
    int64_t RowOffset(int64_t sequence, int64_t j, int64_t h) const {
        if (paged())
            return BlockOf(sequence, j) * blockStride + (j % blockSize) * slotStride + h * headStride;
        return sequence * sequenceStride + j * slotStride + h * headStride;
    }

    int64_t ChannelAt(int64_t rowOffset, int64_t c) const {
        return ChannelOffset(rowOffset, c, channelTile, channelTileStride);
    }

    // Dequantised value of channel c (already loaded as `raw`) for the given logical kv head.
    bool dequantised() const { return dequantScale != nullptr; }

    double Dequantise(double raw, int64_t logicalKvHead, int64_t c) const {
        if (dequantScale == nullptr) return raw;
        const int64_t ch = logicalKvHead * headDim + c;
        const double offset = dequantOffset == nullptr ? 0.0 : dequantOffset[ch];
        return (raw + offset) * LoadScale(dequantScale, dequantScaleType, ch);
    }
};

// Fills dequantScaleF32 and dequantOffsetF32 of a dequantised source for `kvHeads` logical kv heads.
void DecodeDequantisation(KvSource& source, int64_t kvHeads);

}  // namespace atbx::plan

#endif  // ATBX_PLAN_KV_SOURCE_H
