#include "rules/rule.h"

namespace atbx::rules {

const char* StageName(Stage stage) {
    switch (stage) {
        case Stage::kParam:
            return "param";
        case Stage::kTensorCount:
            return "tensor-count";
        case Stage::kDtypeFormat:
            return "dtype-format";
        case Stage::kRank:
            return "rank";
        case Stage::kShape:
            return "shape";
        case Stage::kOutput:
            return "output";
        case Stage::kMemory:
            return "memory";
        case Stage::kHostValues:
            return "host-values";
        case Stage::kDeviceValues:
            return "device-values";
    }
    return "unknown";
}

std::string ProfileSet::ToString() const {
    if (bits_ == All().bits_) return "all";
    std::string text;
    for (int i = 0; i < kPlatformCount; ++i) {
        const auto platform = static_cast<Platform>(i);
        if (!Contains(platform)) continue;
        if (!text.empty()) text += ", ";
        text += PlatformName(platform);
    }
    return text;
}

}  // namespace atbx::rules
