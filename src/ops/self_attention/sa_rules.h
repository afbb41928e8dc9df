// SelfAttention's rules: every sentence of the seed constraint page and every ATB check
// (docs/spec/self_attention.md 5), with the decisions of docs/spec/DECISIONS.md and docs/decisions.md. One
// file per concern.
#ifndef ATBX_OPS_SELF_ATTENTION_SA_RULES_H
#define ATBX_OPS_SELF_ATTENTION_SA_RULES_H

#include <span>
#include <string_view>
#include <vector>

#include "ops/self_attention/sa_subject.h"
#include "rules/rule.h"

namespace atbx::ops::sa {

using SaRule = rules::Rule<SaSubject>;

// A rule of the SelfAttention table.
inline SaRule MakeRule(std::string_view id, rules::Stage stage, rules::ProfileSet profiles, ErrorType code,
                       std::string_view condition, std::string_view source,
                       rules::Verdict (*check)(const SaSubject&)) {
    return {{id, "SelfAttention", stage, profiles, code, condition, source}, check};
}

// Profile sets the rules use.
inline constexpr rules::ProfileSet kAllProfiles = rules::ProfileSet::All();
inline constexpr rules::ProfileSet kA2Only{Platform::kAtlasA2};
inline constexpr rules::ProfileSet kNzProfiles{Platform::kAtlasInference, Platform::kAtlasTraining};
inline constexpr rules::ProfileSet kNotA2 = rules::ProfileSet::AllBut({Platform::kAtlasA2});
inline constexpr rules::ProfileSet kInferenceOnly{Platform::kAtlasInference};
inline constexpr rules::ProfileSet k350Only{Platform::kAtlas350};

std::vector<SaRule> ParamRules();     // sa_rules_param.cpp: ranges and the common CreateOperation checks
std::vector<SaRule> ModeRules();      // sa_rules_modes.cpp: BNSD, MLA, SWA, PREFIX_ENCODER, EXP_M8V2, logN
std::vector<SaRule> PlatformRules();  // sa_rules_platform.cpp: what each profile does not support
std::vector<SaRule> DtypeRules();     // sa_rules_dtype.cpp: dtypes and formats (ATB's ini tables)
std::vector<SaRule> RankRules();      // sa_rules_rank.cpp: number of dims
std::vector<SaRule> ShapeRules();     // sa_rules_shape.cpp: dims of q/k/v, caches and length tensors
std::vector<SaRule> HeadSizeRules();  // sa_rules_head_size.cpp: head sizes and their limits
std::vector<SaRule> MaskRules();      // sa_rules_mask.cpp: mask layouts and the rows and columns read
std::vector<SaRule> HostRules();      // sa_rules_host.cpp: seqLen, kvSeqLen, tokenOffset, batchRunStatus
std::vector<SaRule> DeviceRules();    // sa_rules_device.cpp: layerId and block ids read from device tensors

std::span<const SaRule> Rules();

}  // namespace atbx::ops::sa

#endif  // ATBX_OPS_SELF_ATTENTION_SA_RULES_H
