// Platform profiles: which Ascend product's rules an operation is validated against.
#ifndef ATBX_PLATFORM_H
#define ATBX_PLATFORM_H

#include <optional>
#include <string_view>

namespace atbx {

enum class Platform : int {
    kAtlasA2 = 0,  // Atlas A2/A3 training and inference (ATB's Is910B): ND caches, the full feature set
    kAtlasInference =
        1,  // Atlas inference products, 300I Duo (Is310P): fp16, NZ caches and masks, 16-row padding
    kAtlasTraining = 2,  // Atlas training products (Is910A): NZ caches, basic functions only
    kAtlas350 = 3,       // Atlas 350 accelerator cards (ASCEND_950): basic use cases only
};

constexpr int kPlatformCount = 4;

// "atlas-a2", "atlas-inference", "atlas-training", "atlas-350".
const char* PlatformName(Platform platform);
std::optional<Platform> ParsePlatform(std::string_view name);

}  // namespace atbx

#endif  // ATBX_PLATFORM_H
