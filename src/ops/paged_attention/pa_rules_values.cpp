// PagedAttention host-value and device-value rules: lengths, flags and block-table entries.
#include <algorithm>

#include "ops/paged_attention/pa_rules.h"

namespace atbx::ops::pa {
namespace {

using rules::Fail;
using rules::Pass;
using rules::ProfileSet;
using rules::Require;
using rules::Stage;
using rules::Verdict;
using S = PaSubject;

Verdict ContextLensNonNegative(const S& s) {
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (s.contextLens[b] < 0) return Fail("contextLens[", b, "] must be >= 0, got ", s.contextLens[b]);
    }
    return Pass();
}

int64_t BlocksNeeded(int64_t length, int64_t blockSize) {
    return (length + blockSize - 1) / blockSize;
}

Verdict MaxBlocksCoverContext(const S& s) {
    const int32_t longest =
        s.contextLens.empty() ? 0 : *std::max_element(s.contextLens.begin(), s.contextLens.end());
    const int64_t need = BlocksNeeded(longest, s.BlockSize());
    return Require(s.MaxBlocksPerSeq() >= need, "max_num_blocks_per_seq (blockTables.dims[1]) must be >= ",
                   "ceil(max(contextLens) / block_size) = ceil(", longest, " / ", s.BlockSize(), ") = ", need,
                   ", got ", s.MaxBlocksPerSeq());
}

Verdict BlockIdsInRange(const S& s) {
    const auto* table = static_cast<const int32_t*>(s.Data(Input::kBlockTables));
    const int64_t width = s.MaxBlocksPerSeq();
    const int64_t rows =
        std::min<int64_t>(s.Dim(Input::kBlockTables, 0), static_cast<int64_t>(s.contextLens.size()));
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t used = std::min(width, BlocksNeeded(s.contextLens[r], s.BlockSize()));
        for (int64_t k = 0; k < used; ++k) {
            const int32_t id = table[r * width + k];
            if (id < 0 || id >= s.NumBlocks()) {
                return Fail("blockTables[", r, "][", k, "] must be in [0, num_blocks = ", s.NumBlocks(),
                            "), got ", id);
            }
        }
    }
    return Pass();
}

}  // namespace

std::vector<PaRule> ValueRules() {
    const auto kAll = ProfileSet::All();
    return {
        {{"pa.host.context_lens_non_negative", "PagedAttention", Stage::kHostValues, kAll,
          ERROR_INVALID_PARAM, "every contextLens[b] >= 0", "paged_attention.md 4.5 (kvSeqLen min >= 0)"},
         ContextLensNonNegative},
        {{"pa.host.max_blocks_cover_context", "PagedAttention", Stage::kHostValues, kAll,
          ERROR_INVALID_TENSOR_DIM, "max_num_blocks_per_seq >= ceil(max(contextLens) / block_size)",
          "seed: 'max_num_blocks_per_seq >= (max(contextLens) + block_size - 1) // block_size.'"},
         MaxBlocksCoverContext},
        {{"pa.device.block_ids_in_range", "PagedAttention", Stage::kDeviceValues, kAll, ERROR_INVALID_PARAM,
          "every blockTables entry that is read lies in [0, num_blocks)",
          "seed: 'The value of each element in blockTables must be in the range of [0, num_blocks).'; "
          "DECISIONS 4"},
         BlockIdsInRange},
    };
}

}  // namespace atbx::ops::pa
