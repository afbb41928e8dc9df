#include "support/property_calls.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "core/str_cat.h"
#include "support/sa_valid_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using core::StrCat;
using PaParam = infer::PagedAttentionParam;
using SaParam = infer::SelfAttentionParam;

template <class T>
T Pick(std::mt19937_64& rng, std::initializer_list<T> values) {
    return *(values.begin() + static_cast<std::ptrdiff_t>(rng() % values.size()));
}

int32_t Uniform(std::mt19937_64& rng, int32_t low, int32_t high) {
    return std::uniform_int_distribution<int32_t>(low, high)(rng);
}

std::string Join(const std::vector<int32_t>& values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i)
        text += StrCat(i ? ", " : "", values[i]);
    return text + "]";
}

// The head size a catalogue call was built with: the query's last dim ([T, H, D]), or its row over the heads
// ([T, H * D]).
int32_t CatalogueHeadSize(const TestCall& call, int32_t heads) {
    const int index = call.IndexOf("query");
    if (index < 0) return 64;
    const Dims& q = call.inputs[static_cast<size_t>(index)].desc.shape;
    if (q.dimNum >= 3) return static_cast<int32_t>(q.dims[q.dimNum - 1]);
    return q.dimNum == 2 && heads > 0 ? static_cast<int32_t>(q.dims[1] / heads) : 64;
}

// Head counts: the catalogue's half the time, else kvHeads in {1, 2, 4} with a GQA ratio of 1 to 16.
template <class Param>
void DrawHeads(Param& p, std::mt19937_64& rng) {
    if (rng() % 2 == 0) return;
    p.kvHeadNum = Pick(rng, {1, 2, 4});
    p.headNum = p.kvHeadNum * Pick(rng, {1, 2, 3, 4, 5, 8, 16});
}

aclDataType DrawDtype(std::mt19937_64& rng) {
    return Pick(rng, {ACL_FLOAT16, ACL_BF16});
}

Sample DrawPa(const PaValidCall& entry, std::mt19937_64& rng) {
    const TestCall base = entry.make();
    PaParam p = std::get<PaParam>(base.param);
    if (p.headNum == 0) p.headNum = 8;
    if (p.kvHeadNum == 0) p.kvHeadNum = 2;
    const int32_t baseHeadSize = CatalogueHeadSize(base, p.headNum);
    DrawHeads(p, rng);
    PaShape shape;
    shape.headSize = rng() % 2 == 0 ? baseHeadSize : Pick(rng, {16, 32, 48, 64, 80, 128, 256});
    shape.blockSize = Pick(rng, {16, 32, 64, 128});
    shape.dtype =
        base.inputs.empty() ? ACL_FLOAT16 : (rng() % 2 == 0 ? base.inputs[0].desc.dtype : DrawDtype(rng));
    const int32_t sequences =
        Uniform(rng, 1, 5) * (p.compressType != PaParam::COMPRESS_TYPE_UNDEFINED ? p.kvHeadNum : 1);
    shape.contextLens.clear();
    for (int32_t b = 0; b < sequences; ++b)
        shape.contextLens.push_back(rng() % 10 == 0 ? 0 : Uniform(rng, 1, 300));
    if (*std::max_element(shape.contextLens.begin(), shape.contextLens.end()) == 0) shape.contextLens[0] = 1;
    if (p.calcType == PaParam::CALC_TYPE_SPEC) {
        for (int32_t len : shape.contextLens)
            shape.qSeqLen.push_back(len == 0 ? 0 : Uniform(rng, 1, std::min(len, 6)));
    }
    if (p.batchRunStatusEnable) {
        for (size_t b = 0; b < shape.contextLens.size(); ++b)
            shape.batchRunStatus.push_back(rng() % 4 == 0 ? 0 : 1);
    }
    shape.mask = rng() % 2 == 0
                     ? PaMask::kDefault
                     : Pick(rng, {PaMask::kNormRow, PaMask::kNormSquare, PaMask::kNorm3D,
                                  PaMask::kNorm3DOriginalBatch, PaMask::kAlibi3D,
                                  PaMask::kAlibi4DOriginalBatch, PaMask::kNzShared, PaMask::kNdSpec});
    shape.extraBlocks = Uniform(rng, 0, 3);
    shape.seed = rng();
    return {"pa." + entry.name, p, base.platform, shape};
}

Sample DrawSa(const SaValidCall& entry, std::mt19937_64& rng) {
    const TestCall base = entry.make();
    SaParam p = std::get<SaParam>(base.param);
    const int32_t baseHeadSize = CatalogueHeadSize(base, p.headNum);
    DrawHeads(p, rng);
    SaShape shape;
    shape.headSize = rng() % 2 == 0 ? baseHeadSize : Pick(rng, {16, 32, 64, 96, 128});
    shape.dtype =
        base.inputs.empty() ? ACL_FLOAT16 : (rng() % 2 == 0 ? base.inputs[0].desc.dtype : DrawDtype(rng));
    const int32_t batch = Uniform(rng, 1, 4);
    shape.seqLen.clear();
    for (int32_t b = 0; b < batch; ++b)
        shape.seqLen.push_back(p.calcType == SaParam::DECODER ? 1 : Uniform(rng, 1, 40));
    if (rng() % 2 == 0) {
        for (int32_t q : shape.seqLen)
            shape.kvSeqLen.push_back(q + Uniform(rng, 0, 60));
    }
    shape.mask = Pick(
        rng, {SaMaskForm::kShared, SaMaskForm::kPerBatch, SaMaskForm::kPerHead, SaMaskForm::kPerBatchHead});
    shape.seed = rng();
    return {"sa." + entry.name, p, base.platform, shape};
}

Sample DrawRac(std::mt19937_64& rng) {
    const infer::ReshapeAndCacheParam p = RacParam(Uniform(rng, 0, 2), Uniform(rng, 0, 2));
    RacShape shape;
    shape.heads = Uniform(rng, 1, 4);
    shape.headSizeK = Pick(rng, {16, 32, 64, 128});
    shape.headSizeV = rng() % 2 == 0 ? shape.headSizeK : Pick(rng, {16, 32, 64, 128});
    shape.blockSize = Pick(rng, {16, 32, 128});
    shape.numBlocks = Uniform(rng, 1, 8);
    shape.dtype = Pick(rng, {ACL_FLOAT16, ACL_BF16, ACL_INT8});
    shape.seqLens.clear();
    int32_t total = 0;
    for (int32_t b = Uniform(rng, 1, 3); b > 0; --b) {
        shape.seqLens.push_back(Uniform(rng, 1, 12));
        total += shape.seqLens.back();
    }
    shape.tokens =
        p.compressType != infer::ReshapeAndCacheParam::COMPRESS_TYPE_UNDEFINED ? total : Uniform(rng, 1, 20);
    shape.seed = rng();
    const Platform platform = Pick(
        rng, {Platform::kAtlasA2, Platform::kAtlasInference, Platform::kAtlasTraining, Platform::kAtlas350});
    return {StrCat("rac.compress", static_cast<int>(p.compressType), ".cfg", static_cast<int>(p.kvCacheCfg)),
            p, platform, shape};
}

// Removes element i of every vector that has one per batch.
template <class... V>
void EraseBatch(size_t i, V&... vectors) {
    ((i < vectors.size() ? (void)vectors.erase(vectors.begin() + static_cast<std::ptrdiff_t>(i)) : void()),
     ...);
}

// Smaller values of one length: half, and one less (never below `floor`).
void ShrinkLength(std::vector<Sample>& out, const Sample& base, int32_t value, int32_t floor,
                  const std::function<void(Sample&, int32_t)>& set) {
    for (int32_t smaller : {floor, value / 2, value - 1}) {
        if (smaller >= floor && smaller < value) {
            Sample s = base;
            set(s, smaller);
            out.push_back(std::move(s));
        }
    }
}

template <class Param>
void ShrinkHeads(std::vector<Sample>& out, const Sample& base) {
    const Param& p = std::get<Param>(base.param);
    const auto with = [&](int32_t heads, int32_t kvHeads) {
        if (heads <= 0 || kvHeads <= 0 || (heads == p.headNum && kvHeads == p.kvHeadNum)) return;
        Sample s = base;
        std::get<Param>(s.param).headNum = heads;
        std::get<Param>(s.param).kvHeadNum = kvHeads;
        out.push_back(std::move(s));
    };
    with(p.kvHeadNum, p.kvHeadNum);
    with(p.headNum / 2, p.kvHeadNum / 2);
    with(p.headNum / std::max(1, p.kvHeadNum), 1);
}

void ShrinkPa(std::vector<Sample>& out, const Sample& base) {
    const PaShape& shape = std::get<PaShape>(base.shape);
    for (size_t b = 0; b < shape.contextLens.size() && shape.contextLens.size() > 1; ++b) {
        Sample s = base;
        PaShape& smaller = std::get<PaShape>(s.shape);
        EraseBatch(b, smaller.contextLens, smaller.qSeqLen, smaller.batchRunStatus);
        out.push_back(std::move(s));
    }
    for (size_t b = 0; b < shape.contextLens.size(); ++b) {
        ShrinkLength(out, base, shape.contextLens[b], 1,
                     [b](Sample& s, int32_t v) { std::get<PaShape>(s.shape).contextLens[b] = v; });
        if (b < shape.qSeqLen.size()) {
            ShrinkLength(out, base, shape.qSeqLen[b], 1,
                         [b](Sample& s, int32_t v) { std::get<PaShape>(s.shape).qSeqLen[b] = v; });
        }
    }
    ShrinkHeads<PaParam>(out, base);
    ShrinkLength(out, base, shape.headSize, 16,
                 [](Sample& s, int32_t v) { std::get<PaShape>(s.shape).headSize = v; });
    ShrinkLength(out, base, shape.blockSize, 16,
                 [](Sample& s, int32_t v) { std::get<PaShape>(s.shape).blockSize = v; });
    ShrinkLength(out, base, shape.extraBlocks, 0,
                 [](Sample& s, int32_t v) { std::get<PaShape>(s.shape).extraBlocks = v; });
}

void ShrinkSa(std::vector<Sample>& out, const Sample& base) {
    const SaShape& shape = std::get<SaShape>(base.shape);
    for (size_t b = 0; b < shape.seqLen.size() && shape.seqLen.size() > 1; ++b) {
        Sample s = base;
        SaShape& smaller = std::get<SaShape>(s.shape);
        EraseBatch(b, smaller.seqLen, smaller.kvSeqLen, smaller.batchRunStatus);
        out.push_back(std::move(s));
    }
    for (size_t b = 0; b < shape.seqLen.size(); ++b) {
        ShrinkLength(out, base, shape.seqLen[b], 1,
                     [b](Sample& s, int32_t v) { std::get<SaShape>(s.shape).seqLen[b] = v; });
        if (b < shape.kvSeqLen.size()) {
            ShrinkLength(out, base, shape.kvSeqLen[b], 1,
                         [b](Sample& s, int32_t v) { std::get<SaShape>(s.shape).kvSeqLen[b] = v; });
        }
    }
    ShrinkHeads<SaParam>(out, base);
    ShrinkLength(out, base, shape.headSize, 16,
                 [](Sample& s, int32_t v) { std::get<SaShape>(s.shape).headSize = v; });
}

void ShrinkRac(std::vector<Sample>& out, const Sample& base) {
    const RacShape& shape = std::get<RacShape>(base.shape);
    for (size_t b = 0; b < shape.seqLens.size() && shape.seqLens.size() > 1; ++b) {
        Sample s = base;
        RacShape& smaller = std::get<RacShape>(s.shape);
        smaller.tokens -= smaller.seqLens[b];
        if (smaller.tokens < 1) continue;  // the batch held every token (an earlier step shrank the count)
        EraseBatch(b, smaller.seqLens);
        out.push_back(std::move(s));
    }
    ShrinkLength(out, base, shape.tokens, 1,
                 [](Sample& s, int32_t v) { std::get<RacShape>(s.shape).tokens = v; });
    ShrinkLength(out, base, shape.heads, 1,
                 [](Sample& s, int32_t v) { std::get<RacShape>(s.shape).heads = v; });
    ShrinkLength(out, base, shape.headSizeK, 16,
                 [](Sample& s, int32_t v) { std::get<RacShape>(s.shape).headSizeK = v; });
    ShrinkLength(out, base, shape.headSizeV, 16,
                 [](Sample& s, int32_t v) { std::get<RacShape>(s.shape).headSizeV = v; });
    ShrinkLength(out, base, shape.numBlocks, 1,
                 [](Sample& s, int32_t v) { std::get<RacShape>(s.shape).numBlocks = v; });
}

// Valid: the builder accepts the geometry (it checks its own call's shapes and reports through gtest; those
// reports are caught here, they only mean "redraw") and every rule passes.
bool Valid(const Sample& sample) {
    testing::TestPartResultArray builderReports;
    const testing::ScopedFakeTestPartResultReporter catcher(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &builderReports);
    TestCall call = sample.Make();
    return builderReports.size() == 0 && Violations(call).empty();
}

}  // namespace

TestCall Sample::Make() const {
    return std::visit(
        [&](const auto& s) -> TestCall {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, PaShape>) {
                return MakePaCall(std::get<PaParam>(param), s, platform);
            } else if constexpr (std::is_same_v<S, SaShape>) {
                return MakeSaCall(std::get<SaParam>(param), s, platform);
            } else {
                return MakeRacCall(std::get<infer::ReshapeAndCacheParam>(param), s, platform);
            }
        },
        shape);
}

std::string Sample::Describe() const {
    const std::string head = StrCat(origin, " on ", PlatformName(platform), ": ");
    return std::visit(
        [&](const auto& s) -> std::string {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, PaShape>) {
                const PaParam& p = std::get<PaParam>(param);
                return StrCat(head, "heads ", p.headNum, "/", p.kvHeadNum, " D ", s.headSize, " block ",
                              s.blockSize, " contextLens ", Join(s.contextLens), " qSeqLen ", Join(s.qSeqLen),
                              " dtype ", DataTypeName(s.dtype), " seed ", s.seed);
            } else if constexpr (std::is_same_v<S, SaShape>) {
                const SaParam& p = std::get<SaParam>(param);
                return StrCat(head, "heads ", p.headNum, "/", p.kvHeadNum, " D ", s.headSize, " seqLen ",
                              Join(s.seqLen), " kvSeqLen ", Join(s.kvSeqLen), " dtype ",
                              DataTypeName(s.dtype), " seed ", s.seed);
            } else {
                return StrCat(head, "tokens ", s.tokens, " heads ", s.heads, " D ", s.headSizeK, "/",
                              s.headSizeV, " block ", s.blockSize, " blocks ", s.numBlocks, " seqLens ",
                              Join(s.seqLens), " dtype ", DataTypeName(s.dtype), " seed ", s.seed);
            }
        },
        shape);
}

std::optional<Sample> DrawValidSample(std::mt19937_64& rng, int attempts) {
    static const std::vector<PaValidCall>& pa = PaValidCalls();
    static const std::vector<SaValidCall> sa = SaValidCalls();
    // The family is drawn once, so that one whose draws the rules reject more often keeps its share.
    const uint64_t family = rng() % 5;  // PA 2/5, SA 2/5, RAC 1/5
    for (int attempt = 0; attempt < attempts; ++attempt) {
        Sample sample = family < 2   ? DrawPa(pa[rng() % pa.size()], rng)
                        : family < 4 ? DrawSa(sa[rng() % sa.size()], rng)
                                     : DrawRac(rng);
        if (Valid(sample)) return sample;
    }
    return std::nullopt;
}

std::vector<Sample> ShrinkCandidates(const Sample& sample) {
    std::vector<Sample> out;
    std::visit(
        [&](const auto& s) {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, PaShape>) {
                ShrinkPa(out, sample);
            } else if constexpr (std::is_same_v<S, SaShape>) {
                ShrinkSa(out, sample);
            } else {
                ShrinkRac(out, sample);
            }
        },
        sample.shape);
    return out;
}

Sample Shrink(Sample sample, const std::function<std::string(const Sample&)>& fails, int maxSteps) {
    for (int step = 0; step < maxSteps; ++step) {
        bool smaller = false;
        for (Sample& candidate : ShrinkCandidates(sample)) {
            if (Valid(candidate) && !fails(candidate).empty()) {
                sample = std::move(candidate);
                smaller = true;
                break;
            }
        }
        if (!smaller) break;
    }
    return sample;
}

}  // namespace atbx::test
