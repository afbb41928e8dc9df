// A rule is one constraint of an operation: a stable id, the validation stage it belongs to, the platform
// profiles it applies to, the status code it fails with, the condition in words, where it comes from, and a
// check. Every seed sentence and every ATB check becomes one or more rules; validation is running them.
#ifndef ATBX_RULES_RULE_H
#define ATBX_RULES_RULE_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "atbx/platform.h"
#include "atbx/status.h"
#include "core/str_cat.h"

namespace atbx::rules {

// Stages run in this order; a stage runs only when every earlier stage passed, so a check may rely on what
// the earlier stages established (a shape check on the ranks, a host-value check on the data sizes).
enum class Stage : uint8_t {
    kParam,         // the param struct alone (CreateOperation)
    kTensorCount,   // number of input and output tensors
    kDtypeFormat,   // dtypes and formats (ATB's ini tables)
    kRank,          // number of dims
    kShape,         // dims and their relations (InferShape)
    kOutput,        // output descriptors against the inferred ones (Setup)
    kMemory,        // data pointers and sizes (Setup)
    kHostValues,    // contents of host tensors: lengths, flags (Setup)
    kDeviceValues,  // indices read from device tensors: block ids, slots (Setup and Execute)
};
constexpr int kStageCount = 9;
const char* StageName(Stage stage);

// Set of platform profiles a rule applies to.
class ProfileSet {
  public:
    constexpr ProfileSet() = default;
    constexpr ProfileSet(std::initializer_list<Platform> platforms) {
        for (Platform p : platforms)
            bits_ |= Bit(p);
    }
    static constexpr ProfileSet All() { return ProfileSet(0xFu); }
    // Every profile except the given ones.
    static constexpr ProfileSet AllBut(std::initializer_list<Platform> excluded) {
        return ProfileSet(static_cast<uint8_t>(0xFu & ~ProfileSet(excluded).bits_));
    }
    // False for a value outside the four profiles (call.param.platform_known reports it).
    constexpr bool Contains(Platform p) const {
        const int value = static_cast<int>(p);
        return value >= 0 && value < kPlatformCount && (bits_ & Bit(p)) != 0;
    }
    // "atlas-a2, atlas-350" or "all".
    std::string ToString() const;

  private:
    constexpr explicit ProfileSet(uint8_t bits) : bits_(bits) {}
    static constexpr uint8_t Bit(Platform p) { return static_cast<uint8_t>(1u << static_cast<int>(p)); }
    uint8_t bits_ = 0;
};

// The check's answer: nothing when the rule holds, else what was expected and what was given.
using Verdict = std::optional<std::string>;
inline Verdict Pass() {
    return std::nullopt;
}
template <class... Args>
Verdict Fail(const Args&... args) {
    return core::StrCat(args...);
}
// Fails with the message unless the condition holds.
template <class... Args>
Verdict Require(bool condition, const Args&... args) {
    return condition ? Pass() : Fail(args...);
}

// ATB's OP_PARAM_RSV_CHECK: every reserved byte of a param struct is zero.
template <size_t N>
Verdict RequireReservedZero(const uint8_t (&rsv)[N]) {
    for (size_t i = 0; i < N; ++i) {
        if (rsv[i] != 0) return Fail("rsv must be all zero, rsv[", i, "] is ", static_cast<int>(rsv[i]));
    }
    return Pass();
}

// What the rule table prints and the docs list.
struct RuleInfo {
    std::string_view id;  // "pa.param.head_num_positive"; stable, never reused
    std::string_view op;  // "PagedAttention", "SelfAttention", "ReshapeAndCache" or "*" (every op)
    Stage stage;
    ProfileSet profiles;
    ErrorType code;
    std::string_view condition;  // what must hold, in words
    std::string_view source;     // seed sentence or spec section
};

template <class Subject>
struct Rule {
    RuleInfo info;
    Verdict (*check)(const Subject&);
};

struct Violation {
    const RuleInfo* rule;
    std::string message;
    Status ToStatus() const { return Status(rule->code, std::string(rule->id), message); }
};

}  // namespace atbx::rules

#endif  // ATBX_RULES_RULE_H
