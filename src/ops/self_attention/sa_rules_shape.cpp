// SelfAttention shape rules: how the dims of q/k/v, caches, block tables and length tensors relate, per mode
// (docs/spec/self_attention.md 2, 5.3). Head sizes and their limits are in sa_rules_head_size.cpp, masks in
// sa_rules_mask.cpp.
#include "ops/self_attention/sa_rule_support.h"

namespace atbx::ops::sa {
namespace {

bool Flash(const S& s) {
    return s.mode == Mode::kFaCache || s.mode == Mode::kFaBypass;
}

std::string ShapeOf(const S& s, Input input) {
    return ShapeToString(s.Desc(input).shape);
}

// Hidden size of a packed FA key or value: dims[1] of [N, Hk*D], dims[2] * dims[3] of [b, s, Hk, D].
int64_t FlashHidden(const S& s, Input input) {
    const Dims& shape = s.Desc(input).shape;
    return shape.dimNum == 4 ? SatMul(shape.dims[2], shape.dims[3]) : shape.dims[1];
}

Verdict HiddenMatchesCache(const S& s) {
    if (s.mode != Mode::kFaCache || s.Bnsd()) return Pass();
    for (auto [tokens, cache] :
         {std::pair{Input::kKey, Input::kCacheK}, std::pair{Input::kValue, Input::kCacheV}}) {
        const int64_t hidden = FlashHidden(s, tokens);
        const int64_t cacheHidden = CacheHidden(s, cache);
        if (hidden != cacheHidden) {
            return Fail(InputName(tokens), " hidden size ", hidden, " (shape ", ShapeOf(s, tokens),
                        ") must equal ", InputName(cache), "'s ", cacheHidden, " (shape ", ShapeOf(s, cache),
                        ")");
        }
    }
    return Pass();
}

Verdict HiddenMultipleOf16(const S& s) {
    if (s.mode != Mode::kFaCache) return Pass();
    for (Input input : {Input::kKey, Input::kValue}) {
        const int64_t hidden = FlashHidden(s, input);
        if (hidden % 16 != 0) {
            return Fail(InputName(input), " hidden size must be a multiple of 16, got ", hidden, " (shape ",
                        ShapeOf(s, input), ")");
        }
    }
    return Pass();
}

Verdict CachePair(const S& s) {
    if (!Flash(s)) return Pass();
    const Dims& k = s.Desc(Input::kCacheK).shape;
    const Dims& v = s.Desc(Input::kCacheV).shape;
    // ND BSND caches may differ in their hidden size (Dv != Dk); NZ and BNSD caches must be identical.
    const bool lastMayDiffer = !s.Bnsd() && !NzPlatform(s.platform);
    const uint64_t compared = lastMayDiffer ? k.dimNum - 1 : k.dimNum;
    for (uint64_t d = 0; d < compared; ++d) {
        if (k.dims[d] != v.dims[d]) {
            return Fail("cacheK and cacheV must have the same dims", lastMayDiffer ? " except the last" : "",
                        ", got ", ShapeToString(k), " and ", ShapeToString(v));
        }
    }
    return Pass();
}

Verdict NzCacheTile(const S& s) {
    if (!Flash(s)) return Pass();
    for (Input cache : {Input::kCacheK, Input::kCacheV}) {
        if (s.Desc(cache).format != ACL_FORMAT_FRACTAL_NZ) continue;
        if (s.Dim(cache, 4) != 16) {
            return Fail(InputName(cache), " is FRACTAL_NZ: its last dim must be 16, got shape ",
                        ShapeOf(s, cache));
        }
    }
    return Pass();
}

Verdict LengthsMatch(const S& s, int64_t batch, const char* what) {
    for (Input input : {Input::kTokenOffset, Input::kSeqLen, Input::kBatchRunStatus}) {
        if (!s.Has(input)) continue;
        if (s.Dim(input, 0) != batch) {
            return Fail(InputName(input), " must have ", batch, " entries (", what, "), got shape ",
                        ShapeOf(s, input));
        }
    }
    return Pass();
}

Verdict FlashBatch(const S& s) {
    if (!Flash(s) || s.Bnsd()) return Pass();
    return LengthsMatch(s, *CacheShapeOf(s, Input::kCacheK).batch, "the batch dim of cacheK");
}

Verdict BnsdBatch(const S& s) {
    if (!Flash(s) || !s.Bnsd()) return Pass();
    const int64_t batch = s.Dim(Input::kQuery, 0);
    const Size cacheBatch = CacheShapeOf(s, Input::kCacheK).batch;
    if (cacheBatch != batch) {
        const bool nz = s.Desc(Input::kCacheK).format == ACL_FORMAT_FRACTAL_NZ;
        return Fail("cacheK's dims[1] must be ", nz ? "batch * kvHeadNum = " : "the batch ",
                    nz ? SatMul(batch, s.KvHeadNum()) : batch, " (query.dims[0] = ", batch, "), got shape ",
                    ShapeOf(s, Input::kCacheK));
    }
    return LengthsMatch(s, batch, "query.dims[0]");
}

Verdict FlashTokenRows(const S& s) {
    if (s.mode != Mode::kFaCache) return Pass();
    const int64_t q = TokenRows(s, Input::kQuery);
    for (Input input : {Input::kKey, Input::kValue}) {
        if (TokenRows(s, input) != q) {
            return Fail(InputName(input), " must have the query's ", q, " token rows, got shape ",
                        ShapeOf(s, input));
        }
    }
    return Pass();
}

Verdict PaKeyValuePair(const S& s) {
    if (s.mode != Mode::kPaEncoder || s.Bnsd() || s.Mla()) return Pass();
    const Dims& k = s.Desc(Input::kKey).shape;
    const Dims& v = s.Desc(Input::kValue).shape;
    for (uint64_t d = 0; d + 1 < k.dimNum; ++d) {
        if (k.dims[d] != v.dims[d]) {
            return Fail("key and value must have the same dims except the last, got ", ShapeToString(k),
                        " and ", ShapeToString(v));
        }
    }
    return Pass();
}

Verdict PrefixKeyValuePair(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    const Dims& k = s.Desc(Input::kKey).shape;
    const Dims& v = s.Desc(Input::kValue).shape;
    for (uint64_t d = 0; d + 1 < k.dimNum; ++d) {
        if (k.dims[d] != v.dims[d]) {
            return Fail("key and value caches must have the same dims except the last, got ",
                        ShapeToString(k), " and ", ShapeToString(v));
        }
    }
    return Pass();
}

Verdict SeqLenRows(const S& s) {
    if (s.mode != Mode::kPaEncoder || s.Rank(Input::kSeqLen) != 2) return Pass();
    return Require(s.Dim(Input::kSeqLen, 0) == 2,
                   "a 2-D seqLen must be [2, batch] (query and key lengths), got ",
                   ShapeOf(s, Input::kSeqLen));
}

Verdict PaBnsdBatch(const S& s) {
    if (s.mode != Mode::kPaEncoder || !s.Bnsd()) return Pass();
    const int64_t batch = BatchOf(s);
    for (Input input : {Input::kQuery, Input::kKey}) {
        if (s.Dim(input, 0) != batch) {
            return Fail(InputName(input), ".dims[0] must be the batch ", batch, " of seqLen, got shape ",
                        ShapeOf(s, input));
        }
    }
    return Pass();
}

Verdict PrefixBatch(const S& s) {
    if (s.mode != Mode::kPrefixEncoder) return Pass();
    const int64_t batch = s.Dim(Input::kBlockTables, 0);
    for (Input input : {Input::kSeqLen, Input::kKvSeqLen}) {
        if (s.Dim(input, 0) != batch) {
            return Fail(InputName(input), " must have blockTables.dims[0] = ", batch, " entries, got shape ",
                        ShapeOf(s, input));
        }
    }
    return Pass();
}

Verdict QuantScaleHeads(const S& s) {
    for (Input input : {Input::kQkDescale, Input::kVpvDescale, Input::kPScale}) {
        if (!s.Has(input)) continue;
        if (s.Dim(input, 0) != s.HeadNum()) {
            return Fail(InputName(input), " must have headNum = ", s.HeadNum(), " entries, got shape ",
                        ShapeOf(s, input));
        }
    }
    return Pass();
}

Verdict QueryHeads(const S& s) {
    const int index = HeadDimIndex(s, Input::kQuery);
    const Dims& shape = s.Desc(Input::kQuery).shape;
    if (index >= 0) {
        return Require(shape.dims[index] == s.HeadNum(), "query's head dim (dims[", index,
                       "]) must be headNum = ", s.HeadNum(), ", got shape ", ShapeToString(shape));
    }
    return Require(shape.dims[1] % s.HeadNum() == 0,
                   "query's hidden size must be a multiple of headNum = ", s.HeadNum(), ", got shape ",
                   ShapeToString(shape));
}

Verdict KvHeads(const S& s) {
    for (Input input : {Input::kKey, Input::kValue, Input::kCacheK, Input::kCacheV}) {
        if (!s.Has(input)) continue;
        if (s.mode == Mode::kFaCache && (input == Input::kCacheK || input == Input::kCacheV)) continue;
        const Dims& shape = s.Desc(input).shape;
        const int index = HeadDimIndex(s, input);
        if (index >= 0) {
            if (shape.dims[index] != s.KvHeadNum()) {
                return Fail(InputName(input), "'s head dim (dims[", index,
                            "]) must be kvHeadNum = ", s.KvHeadNum(), ", got shape ", ShapeToString(shape));
            }
        } else if (s.Desc(input).format != ACL_FORMAT_FRACTAL_NZ || !s.Bnsd()) {
            const int64_t hidden = input == Input::kCacheK || input == Input::kCacheV
                                       ? CacheHidden(s, input)
                                       : shape.dims[shape.dimNum - 1];
            if (hidden % s.KvHeadNum() != 0) {
                return Fail(InputName(input), "'s hidden size ", hidden,
                            " must be a multiple of kvHeadNum = ", s.KvHeadNum(), ", got shape ",
                            ShapeToString(shape));
            }
        }
    }
    return Pass();
}

Verdict QueryHeadSize(const S& s) {
    const HeadSizes sizes = HeadSizesOf(s);
    if (!sizes.q || !sizes.k) return Pass();  // sa.shape.query_heads, sa.shape.kv_heads
    return Require(*sizes.q == *sizes.k, "query's head size ", *sizes.q, " must equal the keys' head size ",
                   *sizes.k);
}

Verdict BatchLimitInference(const S& s) {
    const int64_t batch = s.Bnsd() && Flash(s) ? s.Dim(Input::kQuery, 0) : BatchOf(s);
    return Require(batch <= 2000, "atlas-inference runs 0 < batch <= 2000 sequences, got ", batch);
}

constexpr std::string_view kFaDims = "docs/spec/self_attention.md 2.1, 5.3 (InferShapeDimCheck)";

}  // namespace

std::vector<SaRule> ShapeRules() {
    const Stage sh = Stage::kShape;
    const ErrorType dim = ERROR_INVALID_TENSOR_DIM;
    return {
        MakeRule("sa.shape.fa_hidden_matches_cache", sh, kAllProfiles, dim,
                 "KV cache in the op: key and value hidden sizes equal cacheK's and cacheV's",
                 "docs/spec/self_attention.md 5.3 (InferShapeHiddenSizeCheck)", HiddenMatchesCache),
        MakeRule(
            "sa.shape.fa_hidden_multiple_of_16", sh, kAllProfiles, dim,
            "KV cache in the op: key and value hidden sizes are multiples of 16",
            "seed: 'The hidden size must be a multiple of 16 in non-PA ENCODER and non-bypass scenarios.'; "
            "docs/spec/self_attention.md 5.3 (InferShapeHiddenSizeCheck; PREFIX_ENCODER: implied by its head "
            "sizes)",
            HiddenMultipleOf16),
        MakeRule("sa.shape.cache_pair", sh, kAllProfiles, dim,
                 "cacheK and cacheV have the same dims (except the hidden size of ND BSND caches)",
                 "docs/spec/self_attention.md 5.3 (InferShapeDimCheck, BNSD TensorDescEqual, "
                 "HeadSizeDimCheck310P)",
                 CachePair),
        MakeRule("sa.shape.nz_cache_tile", sh, kAllProfiles, dim, "FRACTAL_NZ caches: last dim 16",
                 "docs/spec/self_attention.md 2.1, 5.3 (BNSD 310P: cache.dim4 == 16; NZ kernel)",
                 NzCacheTile),
        MakeRule("sa.shape.fa_batch", sh, kAllProfiles, dim,
                 "BSND FA modes: tokenOffset, seqLen, batchRunStatus have cacheK's batch entries", kFaDims,
                 FlashBatch),
        MakeRule("sa.shape.bnsd_batch", sh, kAllProfiles, dim,
                 "BNSD FA: cache batch (dims[1]; dims[1] / kvHeadNum for NZ) and tokenOffset, seqLen, "
                 "batchRunStatus lengths equal query.dims[0]",
                 "docs/spec/self_attention.md 2.3, 5.3 (InferShapeBypassDimCheckBNSD910B/310P)", BnsdBatch),
        MakeRule("sa.shape.fa_token_rows", sh, kAllProfiles, dim,
                 "KV cache in the op: query, key and value have the same token rows",
                 "docs/decisions.md (the op writes key/value rows of the query's tokens)", FlashTokenRows),
        MakeRule("sa.shape.pa_key_value_pair", sh, kAllProfiles, dim,
                 "PA_ENCODER: key and value have the same dims except the last",
                 "docs/spec/self_attention.md 5.3 (InferShapePADimCheck)", PaKeyValuePair),
        MakeRule("sa.shape.prefix_key_value_pair", sh, kAllProfiles, dim,
                 "PREFIX_ENCODER: key and value caches have the same dims except the last",
                 "docs/decisions.md (values are read at the keys' block and slot)", PrefixKeyValuePair),
        MakeRule("sa.shape.seq_len_rows", sh, kAllProfiles, dim, "PA_ENCODER: a 2-D seqLen is [2, batch]",
                 "docs/spec/self_attention.md 2.4, 5.3", SeqLenRows),
        MakeRule("sa.shape.pa_bnsd_batch", sh, kAllProfiles, dim,
                 "PA_ENCODER with TYPE_BNSD: query.dims[0] and key.dims[0] equal seqLen's batch",
                 "docs/spec/self_attention.md 5.3 (InferShapePADimCheckBNSD)", PaBnsdBatch),
        MakeRule("sa.shape.prefix_batch", sh, kAllProfiles, dim,
                 "PREFIX_ENCODER: seqLen and kvSeqLen have blockTables.dims[0] entries",
                 "docs/spec/self_attention.md 5.3 (InferShapePrefixDimCheck910B)", PrefixBatch),
        MakeRule("sa.shape.quant_scales_heads", sh, kAllProfiles, dim,
                 "qkDescale, vpvDescale and pScale have headNum entries",
                 "docs/spec/self_attention.md 3.8, 5.3 (InferQKVQuantDimCheck: positions from the end of the "
                 "inputs)",
                 QuantScaleHeads),
        MakeRule("sa.shape.query_heads", sh, kAllProfiles, dim,
                 "query's head dim is headNum (a 2-D query's hidden size is a multiple of headNum)",
                 "seed (query [batch, seq_len, head_num, head_size] / [nTokens, head_num, head_size]); "
                 "docs/spec/self_attention.md 5.3 (BNSD and 950 headNum checks)",
                 QueryHeads),
        MakeRule(
            "sa.shape.kv_heads", sh, kAllProfiles, dim,
            "key, value and cache head dims are kvHeadNum (hidden sizes are multiples of kvHeadNum)",
            "docs/spec/self_attention.md 5.3 (HeadSizeDimCheck910B/310P, BNSD cache.dim2 == Hk, PA BNSD, 950 "
            "kvHeadNum)",
            KvHeads),
        MakeRule("sa.shape.query_head_size", sh, kAllProfiles, dim,
                 "query's head size equals the keys' head size",
                 "docs/spec/self_attention.md 5.3 (BNSD headSize checks, 950 headSize); docs/decisions.md",
                 QueryHeadSize),
        MakeRule(
            "sa.shape.batch_limit_inference", sh, kInferenceOnly, dim, "atlas-inference: batch <= 2000",
            "seed: 'Atlas inference products: 0 < batch <= 2000'; docs/spec/self_attention.md 5.3 (kernel)",
            BatchLimitInference),
    };
}

}  // namespace atbx::ops::sa
