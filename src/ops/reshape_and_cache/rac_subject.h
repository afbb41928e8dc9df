// RacSubject: what ReshapeAndCache's rules and planner see of a call: the param and the tensors by role.
#ifndef ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H
#define ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H

#include <array>
#include <cstdint>

#include "atbx/infer_op_params.h"
#include "rules/call_subject.h"

namespace atbx::ops::rac {

using Param = infer::ReshapeAndCacheParam;

// Input tensors by role, in ATB's order (self_attention.md 4.1).
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

struct RacSubject : rules::CallSubject {
    const Param* param = nullptr;
    std::array<int, static_cast<size_t>(Input::kCount)> index{};  // position of each role, -1 when absent

    bool Has(Input input) const { return index[static_cast<size_t>(input)] >= 0; }
    int IndexOf(Input input) const { return index[static_cast<size_t>(input)]; }
    const TensorDesc& Desc(Input input) const { return inputs[IndexOf(input)]; }
    int64_t Dim(Input input, int d) const { return Desc(input).shape.dims[d]; }
    uint64_t Rank(Input input) const { return Desc(input).shape.dimNum; }
    const void* Data(Input input) const { return InputData(IndexOf(input)); }
    bool KeyOnly() const { return param->kvCacheCfg == Param::K_CACHE_V_BYPASS; }
    bool Compressed() const { return param->compressType != Param::COMPRESS_TYPE_UNDEFINED; }
};

RacSubject MakeSubject(const Param& param, Platform platform);

// ReshapeAndCache has no host tensors: every value it reads (slots, windows, lengths) lives in device
// tensors.
inline void LoadHostValues(RacSubject&) {}

// Input index each output (keyCache, valueCache) aliases: the outputs are the caches, updated in place.
std::vector<int> OutputAliases(const Param& param);

}  // namespace atbx::ops::rac

#endif  // ATBX_OPS_RESHAPE_AND_CACHE_RAC_SUBJECT_H
