// SelfAttention host-value and device-value rules: lengths, offsets, flags, block-table entries.
#include "ops/self_attention/sa_rules.h"

namespace atbx::ops::sa {
namespace {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Stage;
using rules::Verdict;
using S = SaSubject;

Verdict SeqLenNonNegative(const S& s) {
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        if (s.seqLen[b] < 0) return Fail("seqLen[", b, "] must be >= 0, got ", s.seqLen[b]);
    }
    return Pass();
}

}  // namespace

std::vector<SaRule> ValueRules() {
    return {
        {{"sa.host.seq_len_non_negative", "SelfAttention", Stage::kHostValues, ProfileSet::All(),
          ERROR_INVALID_PARAM, "every seqLen entry is >= 0", "self_attention.md 3.2"},
         SeqLenNonNegative},
    };
}

}  // namespace atbx::ops::sa
