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

struct RacSubject : rules::RoleSubject<Input> {
    const Param* param = nullptr;

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

// Input index each output (keyCache, valueCache) aliases: the outputs are the caches, updated in place.
std::vector<int> OutputAliases(const Param& param);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H
