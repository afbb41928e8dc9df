#include "ops/reshape_and_cache/rac_subject.h"

#include <vector>

namespace atbx::ops::rac {
namespace {

std::vector<Input> InputOrder(const Param& p) {
    if (p.kvCacheCfg == Param::K_CACHE_V_BYPASS) return {Input::kKey, Input::kKeyCache, Input::kSlotMapping};
    std::vector<Input> order = {Input::kKey, Input::kValue, Input::kKeyCache, Input::kValueCache,
                                Input::kSlotMapping};
    if (p.compressType != Param::COMPRESS_TYPE_UNDEFINED)
        order.insert(order.end(), {Input::kWins, Input::kSeqLen});
    if (p.compressType == Param::COMPRESS_TYPE_KVHEAD_ROPE) order.push_back(Input::kOffsetIndex);
    return order;
}

}  // namespace

const char* InputName(Input input) {
    switch (input) {
        case Input::kKey:
            return "key";
        case Input::kValue:
            return "value";
        case Input::kKeyCache:
            return "keyCache";
        case Input::kValueCache:
            return "valueCache";
        case Input::kSlotMapping:
            return "slotMapping";
        case Input::kWins:
            return "wins";
        case Input::kSeqLen:
            return "seqLen";
        case Input::kOffsetIndex:
            return "offsetIndex";
        case Input::kCount:
            break;
    }
    return "unknown";
}

bool RacSubject::NzCaches() const {
    return A2Nz() || platform == Platform::kAtlasInference || platform == Platform::kAtlasTraining;
}

int64_t RacSubject::NzTile(Input cache) const {
    const bool int8Key = cache == Input::kKeyCache && Desc(cache).dtype == ACL_INT8;
    return A2Nz() && int8Key ? kNzTileInt8 : kNzTile;
}

RacSubject MakeSubject(const Param& param, Platform platform) {
    RacSubject s;
    s.param = &param;
    s.platform = platform;
    s.index.fill(-1);
    rules::AssignInputs(s, s.index, InputOrder(param), InputName, [](Input) { return false; });
    s.outputSlots.push_back({"keyCache", false});
    if (param.kvCacheCfg != Param::K_CACHE_V_BYPASS) s.outputSlots.push_back({"valueCache", false});
    return s;
}

std::vector<int> OutputAliases(const Param& param) {
    if (param.kvCacheCfg == Param::K_CACHE_V_BYPASS) return {1};
    return {2, 3};
}

}  // namespace atbx::ops::rac
