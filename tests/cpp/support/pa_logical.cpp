#include "support/pa_logical.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "plan/element.h"
#include "support/run_call.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

int64_t BlocksFor(int64_t length, int64_t blockSize) {
    return (length + blockSize - 1) / blockSize;
}

bool StatusZero(const PaLogical& l, size_t index) {
    return l.param.batchRunStatusEnable && index < l.batchRunStatus.size() && l.batchRunStatus[index] == 0;
}

// Element offset of (block p, slot s, cache head h, channel c) in a cache of the layout.
int64_t CacheOffset(const PaLogical& l, int64_t channels, int64_t p, int64_t s, int64_t h, int64_t c) {
    const int64_t heads = l.CacheHeads(), bs = l.blockSize;
    switch (l.layout) {
        case PaLayout::kBnsd:
            return ((p * heads + h) * bs + s) * channels + c;
        case PaLayout::kNz: {
            const int64_t column = h * channels + c;
            return ((p * (heads * channels / 16) + column / 16) * bs + s) * 16 + column % 16;
        }
        case PaLayout::kBsnd:
            break;
    }
    return ((p * bs + s) * heads + h) * channels + c;
}

TensorDesc CacheDesc(const PaLogical& l, aclDataType dtype, int64_t numBlocks, int64_t channels) {
    const int64_t heads = l.CacheHeads(), bs = l.blockSize;
    switch (l.layout) {
        case PaLayout::kBnsd:
            return Desc(dtype, {numBlocks, heads, bs, channels});
        case PaLayout::kNz:
            return Desc(dtype, {numBlocks, heads * channels / 16, bs, 16}, ACL_FORMAT_FRACTAL_NZ);
        case PaLayout::kBsnd:
            break;
    }
    return Desc(dtype, {numBlocks, bs, heads, channels});
}

// A cache full of random filler with each sequence's rows written at its blocks.
io::HostTensor Cache(const PaLogical& l, const std::vector<std::vector<double>>& rows, int64_t channels,
                     int64_t numBlocks, std::span<const int32_t> table, int64_t width, std::mt19937_64& rng) {
    const TensorDesc desc = CacheDesc(l, l.cacheDtype, numBlocks, channels);
    io::HostTensor cache =
        ValuesTensor(l.cacheDtype, {static_cast<int64_t>(ElementCount(desc))},
                     RandomValues(l.cacheDtype, static_cast<int64_t>(ElementCount(desc)), -3, 3, rng));
    cache.desc = desc;
    for (size_t seq = 0; seq < rows.size(); ++seq) {
        for (int64_t j = 0; j < l.contextLens[seq]; ++j) {
            const int64_t p = table[seq * width + j / l.blockSize];
            for (int64_t h = 0; h < l.CacheHeads(); ++h) {
                for (int64_t c = 0; c < channels; ++c) {
                    plan::StoreElement(cache.bytes.data(), l.cacheDtype,
                                       CacheOffset(l, channels, p, j % l.blockSize, h, c),
                                       rows[seq][(j * l.CacheHeads() + h) * channels + c]);
                }
            }
        }
    }
    return cache;
}

}  // namespace

int64_t PaLogical::CacheHeads() const {
    return Compressed() ? 1 : KvHeads();
}

int64_t PaLogical::Batch() const {
    const auto rows = static_cast<int64_t>(contextLens.size());
    return Compressed() ? rows / KvHeads() : rows;
}

int64_t PaLogical::Tokens() const {
    if (Compressed()) return Batch() + spareRows;
    int64_t tokens = spareRows;
    for (size_t b = 0; b < contextLens.size(); ++b) {
        if (contextLens[b] > 0 && !StatusZero(*this, b)) tokens += Spec() ? qSeqLen[b] : 1;
    }
    return tokens;
}

double PaLogical::Query(int64_t row, int64_t h, int64_t c) const {
    return query[(row * Heads() + h) * headDim + c];
}

double PaLogical::Key(int64_t sequence, int64_t j, int64_t cacheHead, int64_t c) const {
    return keys[sequence][(j * CacheHeads() + cacheHead) * headDim + c];
}

double PaLogical::Value(int64_t sequence, int64_t j, int64_t cacheHead, int64_t c) const {
    if (Mla()) return Key(sequence, j, cacheHead, c);
    return values[sequence][(j * CacheHeads() + cacheHead) * headDimV + c];
}

PaLogical DecodeLogical(int32_t heads, int32_t kvHeads, int64_t headDim, int64_t blockSize,
                        std::vector<int32_t> contextLens, aclDataType dtype) {
    PaLogical l;
    l.param.headNum = heads;
    l.param.kvHeadNum = kvHeads;
    l.param.qkScale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(headDim)));
    l.headDim = l.headDimV = headDim;
    l.blockSize = blockSize;
    l.contextLens = std::move(contextLens);
    l.dtype = l.cacheDtype = dtype;
    return l;
}

int64_t MaxContext(const PaLogical& l) {
    return *std::max_element(l.contextLens.begin(), l.contextLens.end());
}

std::vector<double> RandomValues(aclDataType dtype, int64_t count, double low, double high,
                                 std::mt19937_64& rng) {
    std::vector<double> values(count);
    if (dtype == ACL_INT8) {
        std::uniform_int_distribution<int> uniform(-5, 5);
        for (double& v : values)
            v = uniform(rng);
        return values;
    }
    for (double& v : values)
        v = plan::RoundToDtype(verify::DrawUniform(low, high, rng), dtype);
    return values;
}

void FillRandom(PaLogical& l, std::mt19937_64& rng) {
    l.query = RandomValues(l.dtype, l.Tokens() * l.Heads() * l.headDim, -3, 3, rng);
    l.keys.clear();
    l.values.clear();
    for (int32_t length : l.contextLens) {
        l.keys.push_back(RandomValues(l.cacheDtype, length * l.CacheHeads() * l.headDim, -3, 3, rng));
        if (!l.Mla())
            l.values.push_back(RandomValues(l.cacheDtype, length * l.CacheHeads() * l.headDimV, -1, 1, rng));
    }
}

io::HostTensor ValuesTensor(aclDataType dtype, std::initializer_list<int64_t> dims,
                            const std::vector<double>& values, aclFormat format) {
    io::HostTensor tensor = ZeroTensor(Desc(dtype, dims, format));
    EXPECT_EQ(ElementCount(tensor.desc), values.size()) << "values for a tensor of another size";
    const int64_t count = std::min<int64_t>(static_cast<int64_t>(ElementCount(tensor.desc)),
                                            static_cast<int64_t>(values.size()));
    for (int64_t i = 0; i < count; ++i)
        plan::StoreElement(tensor.bytes.data(), dtype, i, values[i]);
    return tensor;
}

TestCall BuildCall(const PaLogical& l, std::mt19937_64& rng) {
    const auto rows = static_cast<int64_t>(l.contextLens.size());
    int64_t used = 0, width = 1;
    for (int32_t length : l.contextLens) {
        used += BlocksFor(length, l.blockSize);
        width = std::max(width, BlocksFor(length, l.blockSize));
    }
    const int64_t numBlocks = used + l.extraBlocks;
    std::vector<int32_t> ids(numBlocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    io::HostTensor table = ZeroTensor(Desc(ACL_INT32, {rows, width}));
    std::span<int32_t> entries = Elements<int32_t>(table);
    std::uniform_int_distribution<int32_t> anyBlock(0, static_cast<int32_t>(numBlocks - 1));
    for (int32_t& e : entries)
        e = anyBlock(rng);  // entries past a sequence's blocks are never read
    int64_t next = 0;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < BlocksFor(l.contextLens[r], l.blockSize); ++k)
            entries[r * width + k] = ids[next++];
    }

    TestCall call;
    call.param = l.param;
    call.platform = l.platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames) {
        if (name == "query") {
            call.inputs.push_back(ValuesTensor(l.dtype, {l.Tokens(), l.Heads(), l.headDim}, l.query));
        } else if (name == "keyCache") {
            call.inputs.push_back(Cache(l, l.keys, l.headDim, numBlocks, entries, width, rng));
        } else if (name == "valueCache") {
            call.inputs.push_back(Cache(l, l.values, l.headDimV, numBlocks, entries, width, rng));
        } else if (name == "blockTables") {
            call.inputs.push_back(table);
        } else if (name == "contextLens") {
            call.inputs.push_back(Int32Tensor(l.contextLens));
        } else if (name == "qSeqLen") {
            call.inputs.push_back(Int32Tensor(l.qSeqLen));
        } else if (name == "batchRunStatus") {
            call.inputs.push_back(Int32Tensor(l.batchRunStatus));
        } else if (auto it = l.extra.find(name); it != l.extra.end()) {
            call.inputs.push_back(it->second);
        } else {
            ADD_FAILURE() << "the test gives no input " << name;
        }
    }
    AttachOutputs(call);
    return call;
}

double Dot(const PaLogical& l, const PaIndex& at) {
    double dot = 0.0;
    for (int64_t c = 0; c < l.headDim; ++c)
        dot += l.Query(at.row, at.h, c) * l.Key(at.sequence, at.j, at.cacheHead, c);
    return dot;
}

std::vector<double> DirectAttention(const PaLogical& l, PaFormula f) {
    if (!f.logit) f.logit = [&](const PaIndex& at) { return l.param.qkScale * Dot(l, at); };
    if (!f.value)
        f.value = [&](const PaIndex& at, int64_t c) { return l.Value(at.sequence, at.j, at.cacheHead, c); };
    const int64_t heads = l.Heads(), kvHeads = l.KvHeads(), group = heads / kvHeads, dv = l.headDimV;
    std::vector<double> out(l.Tokens() * heads * dv, NAN);
    int64_t row = 0;
    for (int64_t b = 0; b < l.Batch(); ++b) {
        const int64_t qLen = l.Spec() ? l.qSeqLen[b] : 1;
        if (!l.Compressed() && (l.contextLens[b] == 0 || StatusZero(l, b) || qLen == 0)) continue;
        for (int64_t i = 0; i < qLen; ++i) {
            for (int64_t h = 0; h < heads; ++h) {
                const int64_t kvh = h / group;
                const int64_t sequence = l.Compressed() ? b * kvHeads + kvh : b;
                const int64_t length = l.contextLens[sequence];
                if (length == 0 || StatusZero(l, sequence)) continue;
                PaIndex at{b, i, row + i, h, kvh, sequence, l.Compressed() ? 0 : kvh, 0};
                std::vector<double> weights(length);
                for (at.j = 0; at.j < length; ++at.j)
                    weights[at.j] = f.logit(at);
                const double top = *std::max_element(weights.begin(), weights.end());
                double sum = 0.0;
                for (double& w : weights)
                    sum += (w = std::exp(w - top));
                for (int64_t c = 0; c < dv; ++c) {
                    double acc = 0.0;
                    for (at.j = 0; at.j < length; ++at.j)
                        acc += weights[at.j] / sum * f.value(at, c);
                    out[((row + i) * heads + h) * dv + c] = acc;
                }
            }
        }
        row += l.Compressed() ? 1 : qLen;
    }
    return out;
}

void ExpectReferenceMatches(TestCall& call, const std::vector<double>& direct) {
    const std::vector<double> reference = ReferenceResult(call);
    ASSERT_EQ(reference.size(), direct.size());
    for (size_t i = 0; i < direct.size(); ++i) {
        if (std::isnan(direct[i])) {
            ASSERT_TRUE(std::isnan(reference[i])) << "element " << i << " is written but no batch owns it";
            continue;
        }
        ASSERT_NEAR(reference[i], direct[i], 1e-9 * std::max(1.0, std::abs(direct[i]))) << "element " << i;
    }
    // The reference backend writes the reference rounded to the output dtype and leaves other rows untouched.
    const RunResult run = Execute(call, Backend::kReference);
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    const io::HostTensor& out = call.outputs[0];
    for (size_t i = 0; i < reference.size(); ++i) {
        const double got = plan::LoadElement(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(i));
        if (std::isnan(reference[i])) {
            ASSERT_TRUE(std::isnan(got)) << "element " << i << " of a skipped row was overwritten";
        } else {
            ASSERT_EQ(got, plan::RoundToDtype(reference[i], out.desc.dtype)) << "element " << i;
        }
    }
}

void ExpectCpuPaths(TestCall& call, int64_t headDimV, int64_t maxKvLen) {
    const std::vector<double> reference = ReferenceResult(call);
    for (const std::string& path : CpuPaths()) {
        if (!MissingCpuFeature(path).empty()) continue;
        SCOPED_TRACE(path);
        const RunResult run = Execute(call, Backend::kCpu, 2, path.c_str());
        ASSERT_TRUE(run.status.ok()) << run.status.ToString();
        EXPECT_EQ(run.kernel, path);
        EXPECT_EQ(PrecisionFailure(call, reference, headDimV, maxKvLen), "");
        const io::HostTensor& out = call.outputs[0];
        for (size_t i = 0; i < reference.size(); ++i) {
            if (std::isnan(reference[i])) {
                ASSERT_TRUE(
                    std::isnan(plan::LoadElement(out.bytes.data(), out.desc.dtype, static_cast<int64_t>(i))))
                    << "element " << i << " of a skipped row was overwritten";
            }
        }
    }
}

}  // namespace atbx::test
