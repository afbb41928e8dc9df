#include "atbx/platform.h"

namespace atbx {

const char* PlatformName(Platform platform) {
    switch (platform) {
        case Platform::kAtlasA2:
            return "atlas-a2";
        case Platform::kAtlasInference:
            return "atlas-inference";
        case Platform::kAtlasTraining:
            return "atlas-training";
        case Platform::kAtlas350:
            return "atlas-350";
    }
    return "unknown";
}

std::optional<Platform> ParsePlatform(std::string_view name) {
    for (int i = 0; i < kPlatformCount; ++i) {
        const auto platform = static_cast<Platform>(i);
        if (name == PlatformName(platform)) return platform;
    }
    return std::nullopt;
}

}  // namespace atbx
