// SelfAttention host-value rules (Setup): seqLen, kvSeqLen, tokenOffset and batchRunStatus are non-negative,
// consistent with each other and with the tensors they index (docs/spec/self_attention.md 2, 3.2, 3.10, 5.3
// kernel checks; the seed's nTokens and atlas-inference sentences). Every rule here that reads a length
// assumes the lengths are non-negative and passes otherwise: the *_non_negative rules report those.
#include <algorithm>
#include <climits>
#include <numeric>
#include <string>

#include "core/str_cat.h"
#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

constexpr int64_t kPrefixBlock = 128;

bool Flash(const S& s) {
    return s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
}

bool NonNegative(const std::vector<int32_t>& values) {
    return std::all_of(values.begin(), values.end(), [](int32_t v) { return v >= 0; });
}

// Every length the call has is >= 0.
bool LengthsValid(const S& s) {
    return NonNegative(s.seqLen) && NonNegative(s.kvSeqLen) && NonNegative(s.tokenOffset);
}

int64_t Sum(const std::vector<int32_t>& values) {
    return std::accumulate(values.begin(), values.end(), int64_t{0});
}

int64_t SumRoundedUp16(const std::vector<int32_t>& values) {
    int64_t total = 0;
    for (int32_t v : values)
        total += RoundUp16(v);
    return total;
}

// A uint32 length above INT32_MAX reads as negative: its message names the value given.
Verdict AllNonNegative(const S& s, const std::vector<int32_t>& values, const char* name) {
    for (size_t b = 0; b < values.size(); ++b) {
        if (values[b] >= 0) continue;
        if (s.unsignedLengths) {
            return Fail(name, "[", b, "] must be <= INT32_MAX (", INT32_MAX, "), got ",
                        AsGiven(s, values[b]));
        }
        return Fail(name, "[", b, "] must be >= 0, got ", values[b]);
    }
    return Pass();
}

Verdict SeqLenNonNegative(const S& s) {
    return AllNonNegative(s, s.seqLen, "seqLen");
}

Verdict KvSeqLenNonNegative(const S& s) {
    const bool separate =
        s.Has(Input::kKvSeqLen) || (s.mode == Mode::kPaEncoder && s.Rank(Input::kSeqLen) == 2);
    if (!separate) return Pass();
    return AllNonNegative(s, s.kvSeqLen, s.Has(Input::kKvSeqLen) ? "kvSeqLen" : "seqLen[1]");
}

Verdict TokenOffsetNonNegative(const S& s) {
    return AllNonNegative(s, s.tokenOffset, "tokenOffset");
}

// What a message about a batch's tokenOffset adds under dynamic batch: the batch runs, and why a skipped
// one would not have been checked.
std::string RunningNote(const S& s, size_t b) {
    if (!s.param->batchRunStatusEnable) return "";
    return core::StrCat(" (batch ", b, " runs: batchRunStatus[", b,
                        "] = 1; a batch with batchRunStatus 0 writes and reads no keys and is not checked)");
}

// Dynamic batch: a skipped batch writes no tokens and attends to nothing, so ATB never reads its tokenOffset
// there (its kernels skip the batch; ATB has no tokenOffset >= seqLen check at all).
Verdict TokenOffsetCoversSeqLen(const S& s) {
    if (!Flash(s) || !LengthsValid(s)) return Pass();
    for (size_t b = 0; b < s.seqLen.size() && b < s.tokenOffset.size(); ++b) {
        if (!BatchSkipped(s, b) && s.tokenOffset[b] < s.seqLen[b]) {
            return Fail("tokenOffset[", b, "] (keys after this step) must be >= seqLen[", b,
                        "] = ", s.seqLen[b], ", got ", s.tokenOffset[b], RunningNote(s, b));
        }
    }
    return Pass();
}

Verdict TokenOffsetWithinCache(const S& s) {
    if (!Flash(s)) return Pass();
    const int64_t maxSeq = CacheShapeOf(s, Input::kCacheK).maxSeq;
    for (size_t b = 0; b < s.tokenOffset.size(); ++b) {
        if (!BatchSkipped(s, b) && s.tokenOffset[b] > maxSeq) {
            return Fail("tokenOffset[", b, "] must be <= the cache's max sequence length ", maxSeq, ", got ",
                        AsGiven(s, s.tokenOffset[b]), RunningNote(s, b));
        }
    }
    return Pass();
}

Verdict BatchRunStatusFlags(const S& s) {
    for (size_t b = 0; b < s.batchRunStatus.size(); ++b) {
        const int32_t v = s.batchRunStatus[b];
        if (v != 0 && v != 1) return Fail("batchRunStatus[", b, "] must be 0 or 1, got ", AsGiven(s, v));
    }
    return Pass();
}

Verdict DecoderSingleQuery(const S& s) {
    if (s.param->calcType != Param::DECODER || !LengthsValid(s)) return Pass();
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        if (s.seqLen[b] != 1)
            return Fail("calcType DECODER takes one query per sequence: seqLen[", b, "] must be 1, got ",
                        s.seqLen[b],
                        s.param->batchRunStatusEnable ? " (skipped batches too: their rows count)" : "");
    }
    return Pass();
}

Verdict FlashTokenRows(const S& s) {
    if (!Flash(s) || s.Bnsd() || !LengthsValid(s)) return Pass();
    const bool padded = NzPlatform(s.platform);
    const int64_t want = padded ? SumRoundedUp16(s.seqLen) : Sum(s.seqLen);
    const int64_t rows = TokenRows(s, Input::kQuery);
    return Require(rows == want, "query must have ",
                   padded ? "sum(roundup16(seqLen)) = " : "sum(seqLen) = ", want, " token rows, got ", rows,
                   " (shape ", ShapeToString(s.Desc(Input::kQuery).shape), ")");
}

Verdict BnsdQueryRows(const S& s) {
    if (!Flash(s) || !s.Bnsd() || !LengthsValid(s)) return Pass();
    const int64_t capacity = s.Dim(Input::kQuery, 2);
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        if (s.seqLen[b] > capacity) {
            return Fail("seqLen[", b, "] must be <= query.dims[2] = ", capacity, ", got ", s.seqLen[b]);
        }
    }
    return Pass();
}

Verdict PackedRows(const S& s, Input input, const std::vector<int32_t>& lens, const char* what) {
    const bool padded = NzPlatform(s.platform);
    const int64_t sum = Sum(lens);
    const int64_t want = padded ? RoundUp16(sum) : sum;
    const int64_t rows = s.Dim(input, 0);
    return Require(rows == want, InputName(input), " must have ", padded ? "roundup16(sum(" : "sum(", what,
                   padded ? ")) = " : ") = ", want, " token rows, got shape ",
                   ShapeToString(s.Desc(input).shape));
}

Verdict PaTokenRows(const S& s) {
    if (s.mode != Mode::kPaEncoder || s.Bnsd() || !LengthsValid(s)) return Pass();
    if (auto v = PackedRows(s, Input::kQuery, s.seqLen, "query lengths")) return v;
    return PackedRows(s, Input::kKey, s.kvSeqLen, "key lengths");
}

Verdict PaBnsdLengths(const S& s) {
    if (s.mode != Mode::kPaEncoder || !s.Bnsd() || !LengthsValid(s)) return Pass();
    const int64_t qCapacity = s.Dim(Input::kQuery, 2);
    const int64_t kvCapacity = s.Dim(Input::kKey, 2);
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        if (s.seqLen[b] > qCapacity || s.kvSeqLen[b] > kvCapacity) {
            return Fail("sequence ", b, " needs query.dims[2] >= ", s.seqLen[b],
                        " and key.dims[2] >= ", s.kvSeqLen[b], ", got ", qCapacity, " and ", kvCapacity);
        }
    }
    return Pass();
}

Verdict NzEncoderQkv3d(const S& s) {
    if (s.mode != Mode::kPaEncoder || s.Bnsd()) return Pass();
    for (Input input : {Input::kQuery, Input::kKey, Input::kValue}) {
        if (s.Rank(input) != 3) {
            return Fail(PlatformName(s.platform),
                        " runs PA_ENCODER on 3-D [nTokens, heads, head_size] tensors: ", InputName(input),
                        " has shape ", ShapeToString(s.Desc(input).shape));
        }
    }
    return Pass();
}

Verdict PrefixTokenRows(const S& s) {
    if (s.mode != Mode::kPrefixEncoder || !LengthsValid(s)) return Pass();
    const int64_t want = Sum(s.seqLen);
    return Require(s.Dim(Input::kQuery, 0) == want, "query must have sum(seqLen) = ", want,
                   " token rows, got shape ", ShapeToString(s.Desc(Input::kQuery).shape));
}

Verdict PrefixKvCoversQ(const S& s) {
    if (s.mode != Mode::kPrefixEncoder || !LengthsValid(s)) return Pass();
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        if (s.kvSeqLen[b] < s.seqLen[b]) {
            return Fail("kvSeqLen[", b, "] (prefix plus new tokens) must be >= seqLen[", b,
                        "] = ", s.seqLen[b], ", got ", s.kvSeqLen[b]);
        }
    }
    return Pass();
}

Verdict PrefixAligned(const S& s) {
    if (s.mode != Mode::kPrefixEncoder || !LengthsValid(s)) return Pass();
    for (size_t b = 0; b < s.seqLen.size(); ++b) {
        const int64_t prefix = int64_t{s.kvSeqLen[b]} - s.seqLen[b];
        if (prefix >= 0 && prefix % kPrefixBlock != 0) {
            return Fail("the prefix kvSeqLen[", b, "] - seqLen[", b, "] must be a multiple of 128, got ",
                        s.kvSeqLen[b], " - ", s.seqLen[b], " = ", prefix);
        }
    }
    return Pass();
}

Verdict PrefixBlockSize(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    return Require(s.Dim(Input::kKey, 1) == kPrefixBlock,
                   "PREFIX_ENCODER needs block size 128 (key.dims[1]), got ", s.Dim(Input::kKey, 1));
}

Verdict PrefixBlockTableWidth(const S& s) {
    if (s.mode != Mode::kPrefixEncoder || !LengthsValid(s)) return Pass();
    const int64_t blockSize = s.Dim(Input::kKey, 1);
    const int64_t need = CeilDiv(MaxOf(s.kvSeqLen), blockSize);
    return Require(s.Dim(Input::kBlockTables, 1) >= need,
                   "blockTables.dims[1] must be >= ceil(max(kvSeqLen) / ", blockSize, ") = ", need, ", got ",
                   s.Dim(Input::kBlockTables, 1));
}

Verdict QEqualsKvInference(const S& s) {
    const bool paEncoder = s.mode == Mode::kPaEncoder;
    const bool flashEncoder = Flash(s) && s.param->calcType == Param::ENCODER;
    if ((!paEncoder && !flashEncoder) || !LengthsValid(s)) return Pass();
    const std::vector<int32_t>& kv = KeyLens(s);
    for (size_t b = 0; b < s.seqLen.size() && b < kv.size(); ++b) {
        if (s.seqLen[b] != kv[b]) {
            return Fail("atlas-inference prefill needs q_seq_len == kv_seq_len: sequence ", b, " has ",
                        s.seqLen[b], " query and ", kv[b], " key tokens");
        }
    }
    return Pass();
}

// Sequences the packed kernels compute: a [q, kv] pair with q == kv or q == 1 (empty ones aside). ATB's
// tiling checks every sequence, skipped (batchRunStatus 0) or not.
bool PackedPairOk(int32_t q, int32_t kv) {
    return q == 0 || kv == 0 || q == kv || q == 1;
}

Verdict PackedKernelQKv(const S& s) {
    if (!LengthsValid(s)) return Pass();
    const bool paDefault = s.mode == Mode::kPaEncoder && !s.Bnsd() && !s.Mla() &&
                           s.param->kernelType == Param::KERNELTYPE_DEFAULT;
    const bool dynamicEncoder =
        s.mode == Mode::kFaCache && s.param->batchRunStatusEnable && s.param->calcType != Param::DECODER;
    if (!paDefault && !dynamicEncoder) return Pass();
    const std::vector<int32_t>& kv = KeyLens(s);
    for (size_t b = 0; b < s.seqLen.size() && b < kv.size(); ++b) {
        if (!PackedPairOk(s.seqLen[b], kv[b])) {
            return Fail(paDefault ? "PA_ENCODER with KERNELTYPE_DEFAULT" : "dynamic batch (encoder)",
                        " needs each sequence's query length to be its key length or 1: sequence ", b,
                        " has ", s.seqLen[b], " and ", kv[b],
                        BatchSkipped(s, b) ? " (ATB's tiling checks skipped sequences too)" : "");
        }
    }
    return Pass();
}

Verdict LognCoversRows(const S& s) {
    if (!s.Has(Input::kLogN) || !LengthsValid(s)) return Pass();
    const int64_t length = s.Dim(Input::kLogN, 0);
    if (s.param->calcType == Param::DECODER) {
        const int64_t batch = BatchOf(s);
        return Require(length >= batch, "logN (one factor per sequence in DECODER) needs >= ", batch,
                       " entries, got ", length);
    }
    const int64_t rows = MaxOf(s.seqLen);
    return Require(length >= rows, "logN (one factor per query row) needs >= ", rows,
                   " entries (the longest ", "query), got ", length);
}

constexpr std::string_view kNTokens =
    "seed: 'nTokens in the tensor dimension: - Atlas A2 inference products: The value is the sum of seq_len "
    "of "
    "each batch. - Atlas inference products: In PA_ENCODER, the value is the sum of seq_len of all batches "
    "rounded up to an integer multiple of 16. - In other cases, the value is the sum of the seq_len values "
    "of all "
    "batches rounded up to an integer multiple of 16.'; docs/spec/self_attention.md 3.10";
constexpr std::string_view kPaTokens =
    "seed nTokens sentence (A2: sum; Atlas inference products, PA_ENCODER: sum rounded up to 16); "
    "docs/spec/self_attention.md 3.10, 5.3 (950 Setup: sum(seqLen) matches the token dims); "
    "docs/decisions.md";

}  // namespace

std::vector<SaRule> HostRules() {
    const Stage h = Stage::kHostValues;
    const ErrorType param = ERROR_INVALID_PARAM;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        MakeRule("sa.host.seq_len_non_negative", h, kAllProfiles, param,
                 "every seqLen entry (query length) >= 0",
                 "docs/spec/self_attention.md 3.2; kernel (qSeqLen min >= 0)", SeqLenNonNegative),
        MakeRule("sa.host.kv_seq_len_non_negative", h, kAllProfiles, param,
                 "every key length (kvSeqLen, row 1 of a [2, B] seqLen) >= 0",
                 "docs/spec/self_attention.md 3.2; kernel (kvSeqLen min >= 0)", KvSeqLenNonNegative),
        MakeRule("sa.host.token_offset_non_negative", h, kAllProfiles, param, "every tokenOffset entry >= 0",
                 "docs/spec/self_attention.md 2.1", TokenOffsetNonNegative),
        MakeRule("sa.host.token_offset_covers_seq_len", h, kAllProfiles, param,
                 "FA modes: tokenOffset[b] >= seqLen[b] for every batch that runs (dynamic batch: not for a "
                 "batch with batchRunStatus[b] == 0, which writes and reads no keys)",
                 "docs/spec/self_attention.md 3.2 (constraint tokenOffset >= seqLen: where a running batch "
                 "writes its new tokens), 3.9; docs/decisions.md",
                 TokenOffsetCoversSeqLen),
        MakeRule(
            "sa.host.token_offset_within_cache", h, kAllProfiles, param,
            "tokenOffset[b] <= the cache's max sequence length S for every batch that runs (dynamic "
            "batch: not for a batch with batchRunStatus[b] == 0, whose cache is never read)",
            "docs/spec/self_attention.md 2.1 (caches hold positions [0, tokenOffset)), 3.9; no read past "
            "the cache; docs/decisions.md",
            TokenOffsetWithinCache),
        MakeRule("sa.host.batch_run_status_flags", h, kAllProfiles, param,
                 "every batchRunStatus entry is 0 or 1",
                 "docs/spec/self_attention.md 3.9; docs/spec/DECISIONS.md 15", BatchRunStatusFlags),
        MakeRule("sa.host.decoder_single_query", h, kAllProfiles, param,
                 "calcType DECODER: every seqLen[b] == 1",
                 "docs/spec/self_attention.md 2.1 (seqLen 1 for DECODER); kernel (decoder types need q > 0)",
                 DecoderSingleQuery),
        MakeRule("sa.host.fa_token_rows", h, kAllProfiles, dim,
                 "BSND FA modes: query token rows == sum(seqLen) (atlas-inference/training: "
                 "sum(roundup16(seqLen)))",
                 kNTokens, FlashTokenRows),
        MakeRule("sa.host.bnsd_query_rows", h, kAllProfiles, dim, "BNSD FA modes: seqLen[b] <= query.dims[2]",
                 "docs/spec/self_attention.md 2.3 (rows 0..seqLen[b]-1 of q[b] are used)", BnsdQueryRows),
        MakeRule(
            "sa.host.pa_token_rows", h, kAllProfiles, dim,
            "PA_ENCODER (BSND): query rows == sum(query lengths), key and value rows == sum(key lengths) "
            "(atlas-inference/training: rounded up to 16)",
            kPaTokens, PaTokenRows),
        MakeRule("sa.host.pa_bnsd_lengths", h, kAllProfiles, dim,
                 "PA_ENCODER with TYPE_BNSD: query lengths <= query.dims[2], key lengths <= key.dims[2]",
                 "docs/spec/self_attention.md 2.4", PaBnsdLengths),
        MakeRule(
            "sa.host.nz_encoder_qkv_3d", h, kNzProfiles, ERROR_INVALID_TENSOR_DIM_NUM,
            "atlas-inference and atlas-training PA_ENCODER (BSND): query, key and value 3 dims (checked at "
            "Setup, where ATB's NZ runner builds its kernels)",
            "ATB SelfAttentionEncoderFusionOpsRunner910A (q/k/v must be [nTokens, headNum, headSize])",
            NzEncoderQkv3d),
        MakeRule("sa.host.prefix_token_rows", h, kAllProfiles, dim,
                 "PREFIX_ENCODER: query rows == sum(seqLen)",
                 "docs/spec/self_attention.md 2.5 (Nq = sum seqLen)", PrefixTokenRows),
        MakeRule("sa.host.prefix_kv_covers_q", h, kAllProfiles, param,
                 "PREFIX_ENCODER: kvSeqLen[b] >= seqLen[b]",
                 "docs/spec/self_attention.md 2.5 (kvSeqLen = prefix + new tokens)", PrefixKvCoversQ),
        MakeRule("sa.host.prefix_aligned", h, kAllProfiles, param,
                 "PREFIX_ENCODER: (kvSeqLen[b] - seqLen[b]) % 128 == 0",
                 "docs/spec/self_attention.md 3.2, 5.3 (kernel)", PrefixAligned),
        MakeRule("sa.host.prefix_block_size", h, kAllProfiles, dim, "PREFIX_ENCODER: block size 128",
                 "docs/spec/self_attention.md 2.5, 5.3 (kernel: blockSize == 128)", PrefixBlockSize),
        MakeRule("sa.host.prefix_block_table_width", h, kAllProfiles, dim,
                 "PREFIX_ENCODER: blockTables.dims[1] >= ceil(max(kvSeqLen) / block size)",
                 "docs/spec/self_attention.md 3.2 (K_b[j] = key[blockTables[b][j / 128]][j % 128])",
                 PrefixBlockTableWidth),
        MakeRule(
            "sa.host.q_equals_kv_inference", h, kInferenceOnly, param,
            "atlas-inference prefill (PA_ENCODER, calcType ENCODER): query length == key length per sequence",
            "seed: 'Atlas inference products: q_seq_len must be equal to kv_seq_len.'; docs/decisions.md",
            QEqualsKvInference),
        MakeRule(
            "sa.host.packed_kernel_q_kv", h, kA2Only, param,
            "atlas-a2 PA_ENCODER with KERNELTYPE_DEFAULT (BSND, not MLA) and dynamic-batch encoders: each "
            "non-empty sequence, skipped (batchRunStatus 0) or not, has query length == key length, or 1",
            "docs/spec/self_attention.md 3.2 (kernel type 10), 3.9 (kernel type 4)", PackedKernelQKv),
        MakeRule("sa.host.logn_covers_rows", h, kAllProfiles, dim,
                 "logN has an entry per query row read (PA_ENCODER: longest query; DECODER: batch)",
                 "docs/spec/self_attention.md 3.1 step 4, 5.3 (kernel logN length checks)", LognCoversRows),
    };
}

}  // namespace atbx::ops::sa
