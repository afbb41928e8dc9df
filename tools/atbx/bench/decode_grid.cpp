#include "bench/decode_grid.h"

#include "core/str_cat.h"

namespace atbx::cli::bench {
namespace {

// Attention shapes of real models: Llama-3 8B / 70B-shard (32/8), Qwen2 7B (28/4), Llama-2 7B (MHA 32/32),
// head size 64 (Llama-3.2 1B: 32/8) and 256 (Gemma 2 9B: 16/8), DeepSeek V3's absorbed MLA (128 heads over
// one latent head of 576 channels, 512 of them the value).
DecodeShape Family(const char* name, int32_t heads, int32_t kvHeads, int32_t headSize, int32_t headSizeV,
                   bool mla) {
    DecodeShape s;
    s.family = name;
    s.heads = heads;
    s.kvHeads = kvHeads;
    s.headSize = headSize;
    s.headSizeV = headSizeV;
    s.mla = mla;
    return s;
}

std::vector<DecodeShape> Families() {
    return {
        Family("gqa32/8-d128", 32, 8, 128, 128, false),   Family("gqa28/4-d128", 28, 4, 128, 128, false),
        Family("mha32/32-d128", 32, 32, 128, 128, false), Family("gqa32/8-d64", 32, 8, 64, 64, false),
        Family("gqa16/8-d256", 16, 8, 256, 256, false),   Family("mla128-d576/512", 128, 1, 576, 512, true)};
}

// Head size 256 with int8 caches needs blocks under 128 tokens on Atlas A2
// (pa.shape.head_size_256_large_block): those rows use 64.
DecodeShape With(DecodeShape s, int32_t batch, int32_t context, aclDataType cache) {
    s.batch = batch;
    s.context = context;
    s.cache = cache;
    if (s.headSize == 256 && cache == ACL_INT8) s.blockSize = 64;
    return s;
}

// DEQUANT_FUSION is not defined for MLA (docs/spec/paged_attention.md 3.7).
bool Allowed(const DecodeShape& s) {
    return !(s.mla && s.cache == ACL_INT8);
}

std::vector<DecodeShape> FullGrid() {
    std::vector<DecodeShape> rows;
    const std::vector<DecodeShape> families = Families();
    for (const DecodeShape& f : families) {
        for (int32_t batch : {1, 8, 32}) {
            for (int32_t context : {1024, 4096, 16384, 32768})
                rows.push_back(With(f, batch, context, ACL_FLOAT16));
        }
    }
    for (const DecodeShape& f : families) {
        for (aclDataType cache : {ACL_BF16, ACL_INT8}) {
            for (int32_t batch : {1, 8}) {
                for (int32_t context : {4096, 16384}) {
                    if (Allowed(With(f, batch, context, cache)))
                        rows.push_back(With(f, batch, context, cache));
                }
            }
        }
    }
    for (aclDataType cache : {ACL_FLOAT16, ACL_INT8}) {
        for (int32_t batch : {1, 8}) {
            for (int32_t context : {4096, 16384}) {
                DecodeShape s = With(families[0], batch, context, cache);
                s.blockSize = 16;
                rows.push_back(s);
            }
        }
    }
    for (int f : {0, 1}) {
        for (aclDataType cache : {ACL_FLOAT16, ACL_BF16}) {
            for (int32_t batch : {1, 8}) {
                for (int32_t context : {4096, 16384}) {
                    DecodeShape s = With(families[f], batch, context, cache);
                    s.queryTokens = 4;
                    rows.push_back(s);
                }
            }
        }
    }
    for (int32_t context : {1024, 4096, 16384}) {
        for (aclDataType cache : {ACL_FLOAT16, ACL_INT8}) {
            DecodeShape s = With(families[0], 1, context, cache);
            s.cold = false;
            rows.push_back(s);
        }
    }
    for (aclDataType cache : {ACL_FLOAT16, ACL_BF16}) {
        DecodeShape s = With(families[0], 1, 4096, cache);
        s.queryTokens = 4;
        s.cold = false;
        rows.push_back(s);
    }
    DecodeShape mlaWarm = With(families[5], 1, 4096, ACL_FLOAT16);
    mlaWarm.cold = false;
    rows.push_back(mlaWarm);
    return rows;
}

// Every family with every KV dtype it allows at batch 1 and 4k context, plus one row each for batch 8, a
// speculative step, block size 16 and a warm cache.
std::vector<DecodeShape> QuickGrid() {
    std::vector<DecodeShape> rows;
    const std::vector<DecodeShape> families = Families();
    for (aclDataType cache : {ACL_FLOAT16, ACL_BF16, ACL_INT8}) {
        for (const DecodeShape& f : families) {
            if (Allowed(With(f, 1, 4096, cache))) rows.push_back(With(f, 1, 4096, cache));
        }
    }
    rows.push_back(With(families[0], 8, 4096, ACL_FLOAT16));
    DecodeShape spec = With(families[0], 1, 4096, ACL_FLOAT16);
    spec.queryTokens = 4;
    rows.push_back(spec);
    DecodeShape smallBlocks = With(families[0], 1, 4096, ACL_FLOAT16);
    smallBlocks.blockSize = 16;
    rows.push_back(smallBlocks);
    DecodeShape warm = With(families[0], 1, 4096, ACL_FLOAT16);
    warm.cold = false;
    rows.push_back(warm);
    return rows;
}

// Tiny shapes of every kind (GQA, MLA, int8, SPEC, block sizes 16 and 128, cold and warm) for tests.
std::vector<DecodeShape> SmokeGrid() {
    const DecodeShape gqa = Family("smoke-gqa4/2-d64", 4, 2, 64, 64, false);
    const DecodeShape mla = Family("smoke-mla8-d576/512", 8, 1, 576, 512, true);
    DecodeShape a = With(gqa, 2, 300, ACL_FLOAT16);
    a.blockSize = 16;
    DecodeShape b = With(gqa, 1, 200, ACL_BF16);
    b.queryTokens = 4;
    b.cold = false;
    DecodeShape c = With(gqa, 1, 130, ACL_INT8);
    c.blockSize = 16;
    DecodeShape d = With(mla, 1, 150, ACL_FLOAT16);
    d.cold = false;
    return {a, b, c, d};
}

// A row of the feature table: the base row with one feature (or a model's combination) turned on.
template <class F>
DecodeShape Feature(DecodeShape base, const char* name, F change) {
    base.features.name = name;
    change(base);
    return base;
}

}  // namespace

std::vector<DecodeShape> FeatureGrid(GridSize size) {
    using P = PaParam;
    const bool smoke = size == GridSize::kSmoke;
    // GQA 32/8 at head size 128, 4 sequences of 4k tokens in blocks of 128 (the smoke test's: 4 over 2 kv
    // heads at 64, 4 of 300 in blocks of 16); MLA keeps its own heads.
    DecodeShape base = smoke ? With(Family("smoke-gqa4/2-d64", 4, 2, 64, 64, false), 4, 300, ACL_FLOAT16)
                             : With(Families()[0], 4, 4096, ACL_FLOAT16);
    if (smoke) base.blockSize = 16;
    const auto int8 = [](DecodeShape& s) { s.cache = ACL_INT8; };
    const DecodeShape mla = With(smoke ? Family("smoke-mla8-d576/512", 8, 1, 576, 512, true) : Families()[5],
                                 base.batch, base.context, ACL_FLOAT16);
    return {
        Feature(base, "main", [](DecodeShape&) {}),
        Feature(base, "bf16 caches", [](DecodeShape& s) { s.cache = ACL_BF16; }),
        Feature(base, "int8 dequant", int8),
        Feature(base, "int8 dequant, int64 descales",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.int64Descales = true;
                }),
        Feature(base, "int8 dequant, offsets",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.offsets = true;
                }),
        Feature(base, "int8 dequant, offsets, KV-head compression",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.offsets = true;
                    s.features.compress = P::COMPRESS_TYPE_KVHEAD;
                }),
        Feature(base, "QKV int8 offline",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.qkvQuant = P::TYPE_QUANT_QKV_OFFLINE;
                }),
        Feature(base, "QKV int8 online",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.qkvQuant = P::TYPE_QUANT_QKV_ONLINE;
                }),
        Feature(base, "NZ caches", [](DecodeShape& s) { s.features.platform = Platform::kAtlasInference; }),
        Feature(base, "NZ caches, NZ NORM mask",
                [](DecodeShape& s) {
                    s.features.platform = Platform::kAtlasInference;
                    s.features.mask = P::MASK_TYPE_NORM;
                }),
        Feature(base, "BNSD caches", [](DecodeShape& s) { s.features.bnsd = true; }),
        Feature(base, "value head size 3/4 of the key's",
                [](DecodeShape& s) {
                    s.headSizeV = s.headSize * 3 / 4;
                    s.family += core::StrCat('/', s.headSizeV);
                }),
        Feature(base, "SPEC, 4 tokens", [](DecodeShape& s) { s.queryTokens = 4; }),
        Feature(base, "NORM mask", [](DecodeShape& s) { s.features.mask = P::MASK_TYPE_NORM; }),
        Feature(base, "ALiBi mask", [](DecodeShape& s) { s.features.mask = P::MASK_TYPE_ALIBI; }),
        Feature(base, "logN", [](DecodeShape& s) { s.features.logN = true; }),
        Feature(base, "qScale", [](DecodeShape& s) { s.features.qScale = 0.5f; }),
        Feature(base, "KV-head compression",
                [](DecodeShape& s) { s.features.compress = P::COMPRESS_TYPE_KVHEAD; }),
        Feature(base, "KV-head compression, razor offsets",
                [](DecodeShape& s) { s.features.compress = P::COMPRESS_TYPE_KVHEAD_ROPE; }),
        Feature(base, "skipped batches", [](DecodeShape& s) { s.features.skipOddBatches = true; }),
        Feature(mla, "MLA", [](DecodeShape&) {}),
        Feature(mla, "MLA, QKV int8 online",
                [&](DecodeShape& s) {
                    int8(s);
                    s.features.qkvQuant = P::TYPE_QUANT_QKV_ONLINE;
                }),
    };
}

std::vector<DecodeShape> DecodeGrid(GridSize size) {
    switch (size) {
        case GridSize::kQuick:
            return QuickGrid();
        case GridSize::kSmoke:
            return SmokeGrid();
        case GridSize::kFull:
            break;
    }
    return FullGrid();
}

}  // namespace atbx::cli::bench
