// PagedAttention host-value rules (Setup): contextLens, qSeqLen and batchRunStatus, the query rows they
// imply, the block tables they need, and ATB's parallel-decoding limits; and the device-value rule on
// block-table entries (docs/spec/paged_attention.md 3.6, 3.10, 4.4 MASK_FREE, 4.5 kvSeqLen/qSeqLen, 4.6
// tiling; the seed; DECISIONS 2, 3, 4, 10).
#include <algorithm>
#include <numeric>

#include "ops/paged_attention/pa_rule_support.h"

namespace atbx::ops::pa {
namespace {

constexpr auto kHost = Stage::kHostValues;

Verdict ContextLensNonNegative(const S& s) {
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (s.contextLens[b] < 0) return Fail("contextLens[", b, "] must be >= 0, got ", s.contextLens[b]);
    }
    return Pass();
}

Verdict ContextLensPositive(const S& s) {
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (s.contextLens[b] == 0) {
            return Fail("contextLens[", b, "] must be > 0 on ", PlatformName(s.platform),
                        " (batches are skipped on atlas-a2 only), got 0");
        }
    }
    return Pass();
}

Verdict QSeqLenRange(const S& s) {
    const int32_t low = s.platform == kInference ? 1 : 0;
    for (size_t b = 0; b < s.qSeqLen.size(); ++b) {
        if (s.qSeqLen[b] < low)
            return Fail("qSeqLen[", b, "] must be >= ", low, " on ", PlatformName(s.platform), ", got ",
                        s.qSeqLen[b]);
    }
    return Pass();
}

Verdict BatchRunStatusValues(const S& s) {
    for (size_t b = 0; b < s.batchRunStatus.size(); ++b) {
        const int32_t v = s.batchRunStatus[b];
        if (v != 0 && v != 1) return Fail("batchRunStatus[", b, "] must be 0 or 1, got ", v);
    }
    return Pass();
}

Verdict CompressAllSequencesRun(const S& s) {
    if (!s.Compressed()) return Pass();
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (s.contextLens[b] == 0)
            return Fail("under KV-head compression every sequence runs: contextLens[", b,
                        "] must be > 0, got 0");
        if (s.param->batchRunStatusEnable && s.batchRunStatus[b] == 0)
            return Fail("under KV-head compression every sequence runs: batchRunStatus[", b,
                        "] must be 1, got 0");
    }
    return Pass();
}

// Rows are packed over the batches that run; rows past them are left untouched
// (docs/spec/paged_attention.md 3.10), so query.dims[0] may exceed the running rows, up to one row per batch
// (decode) or sum(qSeqLen) (SPEC).
Verdict QueryRows(const S& s) {
    if (s.Compressed() || !HostLengthsNonNegative(s)) return Pass();
    const int64_t running = RunningRows(s);
    int64_t all = s.Batch();
    if (s.Spec()) all = std::accumulate(s.qSeqLen.begin(), s.qSeqLen.end(), int64_t{0});
    return Require(running <= s.Tokens() && s.Tokens() <= all,
                   "query.dims[0] must be at least the query rows of ", "the batches that run (",
                   s.Spec() ? "qSeqLen" : "one", " each over batches with contextLens > 0 ",
                   "and batchRunStatus != 0) = ", running, " and at most ",
                   s.Spec() ? "sum(qSeqLen)" : "the batch size", " = ", all, ", got ", s.Tokens());
}

Verdict SpecKvCoversQuery(const S& s) {
    if (!s.Spec() || !HostLengthsNonNegative(s)) return Pass();
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        if (BatchRuns(s, b) && s.contextLens[b] < s.qSeqLen[b]) {
            return Fail("contextLens[", b, "] counts the new tokens and must be >= qSeqLen[", b, "], got ",
                        s.contextLens[b], " < ", s.qSeqLen[b]);
        }
    }
    return Pass();
}

Verdict MaskFreePrefixAligned(const S& s) {
    if (!MaskFree(s) || !HostLengthsNonNegative(s)) return Pass();
    for (size_t b = 0; b < s.contextLens.size(); ++b) {
        const int64_t prefix = int64_t{s.contextLens[b]} - s.qSeqLen[b];
        if (BatchRuns(s, b) && prefix >= 0 && prefix % 128 != 0) {
            return Fail("maskType MASK_TYPE_MASK_FREE requires (contextLens[", b, "] - qSeqLen[", b,
                        "]) % 128 == 0, got ", s.contextLens[b], " - ", s.qSeqLen[b], " = ", prefix);
        }
    }
    return Pass();
}

Verdict MaxBlocksCoverContext(const S& s) {
    const int32_t longest =
        s.contextLens.empty() ? 0 : *std::max_element(s.contextLens.begin(), s.contextLens.end());
    const int64_t need = BlocksNeeded(std::max(longest, 0), s.BlockSize());
    return Require(s.MaxBlocksPerSeq() >= need, "max_num_blocks_per_seq (blockTables.dims[1]) must be >= ",
                   "ceil(max(contextLens) / block_size) = ceil(", longest, " / ", s.BlockSize(), ") = ", need,
                   ", got ", s.MaxBlocksPerSeq());
}

Verdict ParallelBatchMax(const S& s) {
    if (!HostLengthsNonNegative(s) || !Parallel(s)) return Pass();
    return Require(s.Batch() <= kParallelBatchMax,
                   "with parallel decoding the batch (contextLens.dims[0]) must be <= ", kParallelBatchMax,
                   ", got ", s.Batch());
}

Verdict ParallelHeadNumMax(const S& s) {
    if (!HostLengthsNonNegative(s) || !Parallel(s)) return Pass();
    return Require(s.HeadNum() <= kParallelHeadNumMax,
                   "with parallel decoding headNum must be <= ", kParallelHeadNumMax, ", got ", s.HeadNum());
}

Verdict ParallelHeadSizeProduct(const S& s) {
    if (!HostLengthsNonNegative(s) || !Parallel(s) || (s.Mla() && s.Spec())) return Pass();
    const int64_t product = s.HeadSizeK() * s.HeadNum();
    return Require(product <= kBlockHeadProductMax,
                   "with parallel decoding head_size * headNum must be <= 16384, ", "got ", s.HeadSizeK(),
                   " * ", s.HeadNum(), " = ", product);
}

Verdict Atlas350NumBlocksCover(const S& s) {
    int64_t need = 0;
    for (int32_t length : s.contextLens)
        need += BlocksNeeded(std::max(length, 0), s.BlockSize());
    return Require(s.NumBlocks() >= need,
                   "num_blocks (keyCache.dims[0]) must be >= sum of ceil(contextLens[b] / ",
                   "block_size) = ", need, " on atlas-350, got ", s.NumBlocks());
}

Verdict BlockIdsInRange(const S& s) {
    const auto* table = static_cast<const int32_t*>(s.Data(Input::kBlockTables));
    const int64_t width = s.MaxBlocksPerSeq();
    for (size_t r = 0; r < s.contextLens.size(); ++r) {
        if (!BatchRuns(s, r)) continue;
        const int64_t used = std::min(width, BlocksNeeded(s.contextLens[r], s.BlockSize()));
        for (int64_t k = 0; k < used; ++k) {
            const int32_t id = table[static_cast<int64_t>(r) * width + k];
            if (id < 0 || id >= s.NumBlocks()) {
                return Fail("blockTables[", r, "][", k, "] must be in [0, num_blocks = ", s.NumBlocks(),
                            "), got ", id);
            }
        }
    }
    return Pass();
}

constexpr std::string_view kParallelSource =
    "docs/spec/paged_attention.md 4.6 (GetPaParallelCheck); DECISIONS 2";

}  // namespace

std::vector<PaRule> HostValueRules() {
    const auto rule = [](std::string_view id, ProfileSet profiles, ErrorType code, std::string_view condition,
                         std::string_view source, Verdict (*check)(const S&)) {
        return MakeRule(id, kHost, profiles, code, condition, source, check);
    };
    const ProfileSet noSkipProfiles{kInference, kTraining, k350};
    return {
        rule("pa.host.context_lens_non_negative", kAll, ERROR_INVALID_PARAM, "every contextLens[b] >= 0",
             "docs/spec/paged_attention.md 4.5 (kvSeqLen min >= 0)", ContextLensNonNegative),
        rule("pa.host.context_lens_positive", noSkipProfiles, ERROR_INVALID_PARAM,
             "every contextLens[b] > 0 (no skipped batches)",
             "docs/spec/paged_attention.md 7.17 (310P with contextLens 0 unspecified), 4.3 (950: batch == "
             "query rows)",
             ContextLensPositive),
        rule("pa.host.q_seq_len_range", kA2AndInference, ERROR_INVALID_PARAM,
             "every qSeqLen[b] >= 0 (atlas-a2), > 0 (atlas-inference)",
             "docs/spec/paged_attention.md 2.2, 4.5 (qSeqLen min >= 0), 4.6 (NZ: every qSeqLen > 0)",
             QSeqLenRange),
        rule("pa.host.batch_run_status_values", kA2Only, ERROR_INVALID_PARAM,
             "every batchRunStatus[b] is 0 or 1",
             "docs/spec/paged_attention.md 2.2 ([B] int32 0/1); DECISIONS 3", BatchRunStatusValues),
        rule("pa.host.compress_all_sequences_run", kA2Only, ERROR_INVALID_PARAM,
             "under KV-head compression every contextLens[b] > 0 and every batchRunStatus[b] == 1",
             "docs/spec/paged_attention.md 3.4, 4.5 (T * kvHeadNum == contextLens.size(): no row is skipped)",
             CompressAllSequencesRun),
        rule("pa.host.query_rows", kAll, ERROR_INVALID_TENSOR_DIM,
             "rows of the batches that run (1 each, qSeqLen[b] with SPEC) <= query.dims[0] <= batch "
             "(sum(qSeqLen) with SPEC)",
             "DECISIONS 3, 10 (T == sum(qSeqLen)); docs/spec/paged_attention.md 3.10", QueryRows),
        rule("pa.host.spec_kv_covers_query", kA2AndInference, ERROR_INVALID_PARAM,
             "calcType SPEC: contextLens[b] >= qSeqLen[b] for every batch that runs",
             "seed: 'qseqlen <= kvsqlen' (maskType 4) and 'kvSeqLen (that is, contextLens) must meet the "
             "condition: "
             "kvSeqLen >= qSeqLen' (NORM_COMPRESS); docs/spec/paged_attention.md 3.6, 4.4",
             SpecKvCoversQuery),
        rule("pa.host.mask_free_prefix_aligned", kInferenceOnly, ERROR_INVALID_PARAM,
             "maskType MASK_FREE: (contextLens[b] - qSeqLen[b]) % 128 == 0",
             "seed: 'When maskType is set to 4 ... (kvsqlen - qseqlen) % 128 = 0'; "
             "docs/spec/paged_attention.md 4.4",
             MaskFreePrefixAligned),
        rule("pa.host.max_blocks_cover_context", kAll, ERROR_INVALID_TENSOR_DIM,
             "max_num_blocks_per_seq >= ceil(max(contextLens) / block_size)",
             "seed: 'max_num_blocks_per_seq >= (max(contextLens) + block_size - 1) // block_size.'; "
             "DECISIONS 4",
             MaxBlocksCoverContext),
        rule("pa.host.parallel_batch_max", kA2AndInference, ERROR_INVALID_TENSOR_DIM,
             "parallel decoding: contextLens.dims[0] <= 2000", kParallelSource, ParallelBatchMax),
        rule("pa.host.parallel_head_num_max", kA2AndInference, ERROR_INVALID_PARAM,
             "parallel decoding: headNum <= 256", kParallelSource, ParallelHeadNumMax),
        rule("pa.host.parallel_head_size_product", kA2AndInference, ERROR_INVALID_TENSOR_DIM,
             "parallel decoding (except MLA with SPEC): head_size * headNum <= 16384", kParallelSource,
             ParallelHeadSizeProduct),
        rule("pa.host.atlas350_num_blocks_cover", k350Only, ERROR_INVALID_TENSOR_DIM,
             "num_blocks >= sum of ceil(contextLens[b] / block_size)",
             "docs/spec/paged_attention.md 4.4 (950), 5.3 (950 sheet)", Atlas350NumBlocksCover),
    };
}

std::vector<PaRule> DeviceValueRules() {
    return {
        MakeRule("pa.device.block_ids_in_range", Stage::kDeviceValues, kAll, ERROR_INVALID_PARAM,
                 "every blockTables entry that is read lies in [0, num_blocks)",
                 "seed: 'The value of each element in blockTables must be in the range of [0, num_blocks).'; "
                 "DECISIONS 4",
                 BlockIdsInRange),
    };
}

}  // namespace atbx::ops::pa
