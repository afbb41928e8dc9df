#include "bench/prefill_grid.h"

#include "bench/prefill_row.h"
#include "bench/rac_row.h"

namespace atbx::cli::bench {
namespace {

// Llama-3 8B (32/8), Qwen2 7B (28/4), Llama-3.2 1B (head size 64), DeepSeek V3 prefill without absorption
// (128 heads, K 192 = 128 + 64 rope channels, V 128) and with absorption (128 heads over one 576-channel
// latent head, V its first 512 channels).
PrefillShape Family(const char* name, int32_t heads, int32_t kvHeads, int32_t headSize, int32_t headSizeV,
                    bool mla) {
    PrefillShape s;
    s.family = name;
    s.heads = heads;
    s.kvHeads = kvHeads;
    s.headSize = headSize;
    s.headSizeV = headSizeV;
    s.mla = mla;
    return s;
}

const PrefillShape kGqa32 = Family("gqa32/8-d128", 32, 8, 128, 128, false);
const PrefillShape kGqa28 = Family("gqa28/4-d128", 28, 4, 128, 128, false);
const PrefillShape kD64 = Family("gqa32/8-d64", 32, 8, 64, 64, false);
const PrefillShape kMlaSplit = Family("mla128-d192/128", 128, 128, 192, 128, false);
const PrefillShape kMlaLatent = Family("mla128-d576/512", 128, 1, 576, 512, true);

PrefillShape Causal(PrefillShape s, std::vector<int32_t> lens, aclDataType dtype) {
    s.seqLens = std::move(lens);
    s.dtype = dtype;
    return s;
}

PrefillShape Prefix(PrefillShape s, int32_t prefix, int32_t tokens, aclDataType dtype) {
    s = Causal(s, {tokens}, dtype);
    s.kind = PrefillKind::kPrefix;
    s.prefix = prefix;
    return s;
}

PrefillShape Dense(PrefillShape s, int32_t tokens, aclDataType dtype) {
    s = Causal(s, {tokens}, dtype);
    s.kind = PrefillKind::kDense;
    return s;
}

PrefillShape FullMask(PrefillShape s, int32_t tokens, aclDataType dtype) {
    s = Causal(s, {tokens}, dtype);
    s.kind = PrefillKind::kFullMask;
    return s;
}

PrefillShape Alibi(PrefillShape s, int32_t tokens, aclDataType dtype) {
    s = Causal(s, {tokens}, dtype);
    s.kind = PrefillKind::kAlibi;
    return s;
}

PrefillShape Int8Qkv(PrefillShape s, int32_t tokens) {
    s = Causal(s, {tokens}, ACL_INT8);
    s.kind = PrefillKind::kInt8Qkv;
    return s;
}

PrefillShape Window(PrefillShape s, int32_t window, int32_t tokens, aclDataType dtype) {
    s = Causal(s, {tokens}, dtype);
    s.kind = PrefillKind::kSlidingWindow;
    s.window = window;
    return s;
}

RacShape Rac(const char* family, int32_t tokens, aclDataType dtype, RacMode mode = RacMode::kNd) {
    RacShape s;
    s.family = family;
    s.tokens = tokens;
    s.dtype = dtype;
    s.mode = mode;
    return s;
}

// The other cache layouts at a prefill's size: FRACTAL_NZ, the key cache only, and the head-compressed
// caches of one sequence. NZ and KVHEAD_ROPE in fp16 and bf16 only (an NZ int8 key takes a float value;
// means are float).
void AddRacModeRows(std::vector<RowSpec>& rows, std::initializer_list<int32_t> tokenCounts) {
    for (int32_t tokens : tokenCounts) {
        for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_INT8}) {
            for (RacMode mode : {RacMode::kKeyOnly, RacMode::kKvHead})
                rows.push_back(RacRow(Rac("kv8-d128", tokens, dtype, mode)));
            if (dtype == ACL_INT8) continue;
            for (RacMode mode : {RacMode::kNz, RacMode::kKvHeadRope})
                rows.push_back(RacRow(Rac("kv8-d128", tokens, dtype, mode)));
        }
    }
}

std::vector<RowSpec> FullRows() {
    std::vector<RowSpec> rows;
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        for (const PrefillShape& f : {kGqa32, kGqa28, kD64, kMlaSplit, kMlaLatent}) {
            for (int32_t tokens : {512, 2048, 8192})
                rows.push_back(PrefillRow(Causal(f, {tokens}, dtype)));
        }
        rows.push_back(PrefillRow(Dense(kGqa32, 2048, dtype)));     // the causal 2k row's unmasked twin
        rows.push_back(PrefillRow(FullMask(kGqa32, 2048, dtype)));  // and its full-mask twin
        rows.push_back(PrefillRow(Alibi(kGqa32, 2048, dtype)));     // and an ALiBi mask's
        rows.push_back(PrefillRow(Causal(kGqa32, {2048, 1024, 512, 256, 100}, dtype)));
        for (const PrefillShape& f : {kGqa32, kGqa28, kD64})
            rows.push_back(PrefillRow(Prefix(f, 4096, 512, dtype)));
        rows.push_back(PrefillRow(Window(kGqa32, 4096, 16384, dtype)));
    }
    for (const PrefillShape& f : {kGqa32, kGqa28, kD64})
        rows.push_back(PrefillRow(Int8Qkv(f, 2048)));
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_INT8}) {
        for (int32_t tokens : {32, 512, 2048, 8192, 16384})
            rows.push_back(RacRow(Rac("kv8-d128", tokens, dtype)));
    }
    AddRacModeRows(rows, {2048, 16384});
    return rows;
}

// Short versions of each kind, sized for the portable kernel: MLA at 256 (192/128) and 128 (576/512) tokens,
// the prefix at 1k + 128, the window at 256 over 1k.
std::vector<RowSpec> QuickRows() {
    std::vector<RowSpec> rows;
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16}) {
        for (const PrefillShape& f : {kGqa32, kGqa28, kD64})
            rows.push_back(PrefillRow(Causal(f, {512}, dtype)));
        rows.push_back(PrefillRow(Causal(kMlaSplit, {256}, dtype)));
        rows.push_back(PrefillRow(Causal(kMlaLatent, {128}, dtype)));
    }
    rows.push_back(PrefillRow(Dense(kGqa32, 512, ACL_BF16)));
    rows.push_back(PrefillRow(FullMask(kGqa32, 512, ACL_FLOAT16)));
    rows.push_back(PrefillRow(Alibi(kGqa32, 512, ACL_BF16)));
    rows.push_back(PrefillRow(Int8Qkv(kGqa32, 512)));
    rows.push_back(PrefillRow(Causal(kGqa32, {300, 150, 62}, ACL_FLOAT16)));
    rows.push_back(PrefillRow(Prefix(kGqa32, 1024, 128, ACL_FLOAT16)));
    rows.push_back(PrefillRow(Window(kGqa32, 256, 1024, ACL_BF16)));
    for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_INT8})
        rows.push_back(RacRow(Rac("kv8-d128", 2048, dtype)));
    for (RacMode mode : {RacMode::kNz, RacMode::kKeyOnly, RacMode::kKvHead, RacMode::kKvHeadRope})
        rows.push_back(RacRow(Rac("kv8-d128", 2048, ACL_FLOAT16, mode)));
    return rows;
}

RacShape RacSmoke(RacShape s, RacMode mode) {
    s.mode = mode;
    return s;
}

// Tiny shapes of every kind, for tests.
std::vector<RowSpec> SmokeRows() {
    const PrefillShape gqa = Family("smoke-gqa4/2-d64", 4, 2, 64, 64, false);
    RacShape rac = Rac("smoke-kv2-d64", 37, ACL_FLOAT16);
    rac.kvHeads = 2;
    rac.headSize = 64;
    rac.blockSize = 16;
    return {PrefillRow(Causal(gqa, {40, 17}, ACL_FLOAT16)),
            PrefillRow(Dense(gqa, 40, ACL_BF16)),
            PrefillRow(FullMask(gqa, 40, ACL_BF16)),
            PrefillRow(Alibi(gqa, 40, ACL_FLOAT16)),
            PrefillRow(Int8Qkv(gqa, 40)),
            PrefillRow(Prefix(gqa, 128, 20, ACL_BF16)),
            PrefillRow(Window(gqa, 16, 100, ACL_FLOAT16)),
            PrefillRow(Causal(Family("smoke-mla8-d192/128", 8, 8, 192, 128, false), {30}, ACL_BF16)),
            PrefillRow(Causal(Family("smoke-mla8-d576/512", 8, 1, 576, 512, true), {30}, ACL_FLOAT16)),
            RacRow(rac),
            RacRow(RacSmoke(rac, RacMode::kNz)),
            RacRow(RacSmoke(rac, RacMode::kKvHeadRope))};
}

}  // namespace

std::vector<RowSpec> PrefillRows(GridSize size) {
    switch (size) {
        case GridSize::kQuick:
            return QuickRows();
        case GridSize::kSmoke:
            return SmokeRows();
        case GridSize::kFull:
            break;
    }
    return FullRows();
}

}  // namespace atbx::cli::bench
