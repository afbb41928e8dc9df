// RacSubject: what ReshapeAndCache's rules and planner see of a call: the param and the tensors by role.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H

#include <cstdint>
#include <span>
#include <vector>

#include "atbx/infer_op_params.h"
#include "rules/role_subject.h"

namespace atbx::ops::rac {

using Param = infer::ReshapeAndCacheParam;

// Input tensors by role, in ATB's order (docs/spec/self_attention.md 4.1).
enum class Input : uint8_t {
    kKey,
    kValue,  // absent for K_CACHE_V_BYPASS
    kKeyCache,
    kValueCache,  // absent for K_CACHE_V_BYPASS
    kSlotMapping,
    kWins,         // compressType KVHEAD and KVHEAD_ROPE
    kSeqLen,       // compressType KVHEAD and KVHEAD_ROPE
    kOffsetIndex,  // compressType KVHEAD_ROPE
    kCount,
};

const char* InputName(Input input);

// Width of a FRACTAL_NZ cache tile: 16 channels, or 32 for int8 keys on Atlas A2 (K_CACHE_V_CACHE_NZ).
constexpr int64_t kNzTile = 16;
constexpr int64_t kNzTileInt8 = 32;

// Item i = b * Nh + h of a compress call, read from slotMapping, wins, seqLen and offsetIndex.
struct HeadWindow {
    int64_t item = 0;        // i
    int64_t batch = 0;       // b
    int64_t head = 0;        // h
    int64_t firstToken = 0;  // key row of token 0 of sequence b: seqLen[0] + ... + seqLen[b - 1]
    int64_t length = 0;      // L = seqLen[b]
    int64_t window = 0;      // w = wins[i]
    int64_t offset = -1;     // o = offsetIndex[i] (KVHEAD_ROPE); -1 (no mean) for KVHEAD
    int64_t slot = 0;        // slotMapping[i]: cache row of the first row written; negative: skipped
};

// Cache rows [slot, slot + rows) written from slotMapping[index].
struct SlotRun {
    int64_t index;
    int64_t slot;
    int64_t rows;
};

struct RacSubject : rules::RoleSubject<Input> {
    const Param* param = nullptr;

    // Compress modes: every item, in order; read when Stage::kDeviceValues starts (LoadDeviceValues).
    std::vector<HeadWindow> windows;
    // Scratch of the rule that finds cache rows written twice. Kept here, with the windows, so that the
    // checks Execute runs again reuse the storage of Setup's validation and allocate nothing.
    mutable std::vector<uint64_t> writtenRowBits;
    mutable std::vector<SlotRun> writtenRuns;

    // A 1-D int32 device tensor's values; readable from Stage::kDeviceValues on (its dtype, rank, length and
    // size are checked by then).
    std::span<const int32_t> Values(Input input) const {
        return {static_cast<const int32_t*>(Data(input)), static_cast<size_t>(Dim(input, 0))};
    }

    // The mode, from the param and the profile (valid once the param stage passed).
    bool KeyOnly() const { return param->kvCacheCfg == Param::K_CACHE_V_BYPASS; }
    bool Compressed() const { return param->compressType != Param::COMPRESS_TYPE_UNDEFINED; }
    bool Rope() const { return param->compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE; }
    // FRACTAL_NZ caches: every call on Atlas inference and training products, K_CACHE_V_CACHE_NZ on Atlas A2.
    bool NzCaches() const;
    bool A2Nz() const { return param->kvCacheCfg == Param::K_CACHE_V_CACHE_NZ; }

    // Dims; valid once the ranks are checked (Stage::kShape on).
    int64_t Tokens() const { return Dim(Input::kKey, 0); }       // T
    int64_t Heads() const { return Dim(Input::kKey, 1); }        // Nh
    int64_t HeadSizeK() const { return Dim(Input::kKey, 2); }    // Dk
    int64_t HeadSizeV() const { return Dim(Input::kValue, 2); }  // Dv
    int64_t NumBlocks() const { return Dim(Input::kKeyCache, 0); }
    // ND caches [NB, BS, heads, D]; FRACTAL_NZ caches [NB, heads * D / tile, BS, tile].
    int64_t BlockSize(Input cache) const { return Dim(cache, NzCaches() ? 2 : 1); }
    int64_t CacheSlots() const { return NumBlocks() * BlockSize(Input::kKeyCache); }  // NB * BS
    int64_t Batch() const { return Dim(Input::kSeqLen, 0); }                          // B (compress modes)
    // Channels of a FRACTAL_NZ cache tile: 32 for an int8 key cache on Atlas A2, else 16.
    int64_t NzTile(Input cache) const;
};

RacSubject MakeSubject(const Param& param, Platform platform);

// ReshapeAndCache has no host tensors: every value it reads (slots, windows, lengths) lives in device
// tensors.
inline void LoadHostValues(RacSubject&) {}

// Reads the compress modes' windows (RacSubject::windows) from the device tensors, whose lengths the shape
// and memory stages checked.
void LoadDeviceValues(RacSubject& s);

// Input index each output (keyCache, valueCache) aliases: the outputs are the caches, updated in place.
std::vector<int> OutputAliases(const Param& param);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H
