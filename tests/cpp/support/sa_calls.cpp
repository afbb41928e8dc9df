#include "support/sa_calls.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "core/str_cat.h"
#include "plan/element.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;

constexpr int64_t kTile = 16;
constexpr int64_t kPrefixBlock = 128;

int64_t RoundUp16(int64_t v) {
    return (v + kTile - 1) / kTile * kTile;
}

int64_t MaxOf(const std::vector<int32_t>& values) {
    return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

bool IsAlibiCompress(Param::MaskType m) {
    return m == Param::MASK_TYPE_ALIBI_COMPRESS || m == Param::MASK_TYPE_ALIBI_COMPRESS_SQRT ||
           m == Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN;
}

std::vector<int32_t> KeyLengths(const Param& p, const SaShape& shape) {
    if (!shape.kvSeqLen.empty()) return shape.kvSeqLen;
    std::vector<int32_t> kv = shape.seqLen;
    if (p.calcType == Param::PREFIX_ENCODER) {
        for (size_t b = 1; b < kv.size(); b += 2)
            kv[b] += kPrefixBlock;
    }
    return kv;
}

// Everything the tensors of one call are built from.
struct Call {
    Call(const Param& param, const SaShape& callShape, Platform callPlatform)
        : p(param),
          shape(callShape),
          platform(callPlatform),
          nz(callPlatform == Platform::kAtlasInference || callPlatform == Platform::kAtlasTraining),
          flash(param.calcType != Param::PA_ENCODER && param.calcType != Param::PREFIX_ENCODER),
          prefix(param.calcType == Param::PREFIX_ENCODER),
          quant(param.quantType == Param::TYPE_QUANT_QKV_OFFLINE ||
                param.quantType == Param::TYPE_QUANT_QKV_ONLINE),
          batch(static_cast<int64_t>(callShape.seqLen.size())),
          heads(param.headNum),
          kvHeads(param.kvHeadNum > 0 ? param.kvHeadNum : param.headNum),
          d(callShape.headSize),
          dv(param.mlaVHeadSize > 0 ? param.mlaVHeadSize
                                    : (callShape.headSizeV > 0 ? callShape.headSizeV : callShape.headSize)),
          q(callShape.seqLen),
          kv(KeyLengths(param, callShape)),
          maxQ(MaxOf(q)),
          maxKv(MaxOf(kv)),
          rank(callShape.rank != 0 ? callShape.rank : (flash ? 2 : 3)),
          rng(callShape.seed) {
        if (param.calcType == Param::PA_ENCODER && param.inputLayout == infer::TYPE_BNSD) rank = 4;
    }

    const Param& p;
    const SaShape& shape;
    Platform platform;
    bool nz;  // atlas-inference/training: NZ caches and masks, rows padded to 16
    bool flash;
    bool prefix;
    bool quant;
    int64_t batch, heads, kvHeads, d, dv;
    std::vector<int32_t> q, kv;  // query and key lengths
    int64_t maxQ, maxKv;
    int rank;
    std::mt19937_64 rng;
};

io::HostTensor Random(const TensorDesc& desc, double low, double high, std::mt19937_64& rng) {
    io::HostTensor t = ZeroTensor(desc);
    verify::FillUniform(t.bytes.data(), desc.dtype, static_cast<int64_t>(ElementCount(desc)), low, high, rng);
    return t;
}

// An int32 or uint32 tensor of the given dims holding the values (uint32 keeps the int32 bits).
io::HostTensor Lengths(const std::vector<int32_t>& values, std::initializer_list<int64_t> dims,
                       aclDataType dtype) {
    io::HostTensor t = ZeroTensor(Desc(dtype, dims));
    std::copy(values.begin(), values.end(), Elements<int32_t>(t).begin());
    return t;
}

aclDataType QkvDtype(const Call& c) {
    return c.quant ? ACL_INT8 : c.shape.dtype;
}

io::HostTensor Qkv(Call& c, std::initializer_list<int64_t> dims) {
    const double range = c.quant ? 5.0 : 1.0;
    return Random(Desc(QkvDtype(c), dims), -range, range, c.rng);
}

// Token rows of the packed FA tensors: per sequence, padded to 16 on the NZ platforms.
int64_t FlashRows(const Call& c) {
    int64_t rows = 0;
    for (int32_t len : c.q)
        rows += c.nz ? RoundUp16(len) : len;
    return rows;
}

// q, key or value of the FA modes: [N, heads * size] or [b, s, heads, size] with b * s == N.
io::HostTensor FlashTokens(Call& c, int64_t heads, int64_t size) {
    const int64_t rows = FlashRows(c);
    if (c.rank != 4) return Qkv(c, {rows, heads * size});
    const bool uniform = !c.nz && std::all_of(c.q.begin(), c.q.end(), [&](int32_t v) { return v == c.q[0]; });
    if (uniform) return Qkv(c, {c.batch, c.q[0], heads, size});
    return Qkv(c, {1, rows, heads, size});
}

io::HostTensor FlashCache(Call& c, int64_t size) {
    const int64_t seq = c.maxKv + c.shape.cacheSlack;
    const int64_t layers = c.shape.layers;
    if (c.p.inputLayout == infer::TYPE_BNSD) {
        if (c.nz) {
            return Random(Desc(QkvDtype(c), {layers, c.batch * c.kvHeads, size / kTile, seq, kTile},
                               ACL_FORMAT_FRACTAL_NZ),
                          -1, 1, c.rng);
        }
        return Random(Desc(QkvDtype(c), {layers, c.batch, c.kvHeads, seq, size}), -1, 1, c.rng);
    }
    const int64_t hidden = c.kvHeads * size;
    if (c.nz) {
        return Random(Desc(QkvDtype(c), {layers, c.batch, hidden / kTile, seq, kTile}, ACL_FORMAT_FRACTAL_NZ),
                      -1, 1, c.rng);
    }
    if (c.p.batchRunStatusEnable) return Random(Desc(QkvDtype(c), {c.batch, seq, hidden}), -1, 1, c.rng);
    return Random(Desc(QkvDtype(c), {layers, c.batch, seq, hidden}), -1, 1, c.rng);
}

int64_t PaRows(const Call& c, const std::vector<int32_t>& lens) {
    const int64_t sum = std::accumulate(lens.begin(), lens.end(), int64_t{0});
    return c.nz ? RoundUp16(sum) : sum;
}

io::HostTensor PaTokens(Call& c, const std::vector<int32_t>& lens, int64_t heads, int64_t size) {
    if (c.p.inputLayout == infer::TYPE_BNSD) return Qkv(c, {c.batch, heads, MaxOf(lens), size});
    const int64_t rows = PaRows(c, lens);
    return c.rank == 2 ? Qkv(c, {rows, heads * size}) : Qkv(c, {rows, heads, size});
}

int64_t PrefixBlocksUsed(const Call& c) {
    int64_t used = 0;
    for (int32_t len : c.kv)
        used += (len + kPrefixBlock - 1) / kPrefixBlock;
    return used;
}

io::HostTensor PrefixCache(Call& c, int64_t size) {
    const int64_t blocks = PrefixBlocksUsed(c) + c.shape.extraBlocks;
    if (c.rank == 2) return Qkv(c, {blocks, kPrefixBlock, c.kvHeads * size});
    return Qkv(c, {blocks, kPrefixBlock, c.kvHeads, size});
}

// Distinct blocks per sequence, shuffled; entries past a sequence's blocks hold 0.
io::HostTensor BlockTables(Call& c) {
    const int64_t blocks = PrefixBlocksUsed(c) + c.shape.extraBlocks;
    const int64_t width = std::max<int64_t>(1, (c.maxKv + kPrefixBlock - 1) / kPrefixBlock);
    std::vector<int32_t> ids(blocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), c.rng);
    io::HostTensor table = ZeroTensor(Desc(ACL_INT32, {c.batch, width}));
    auto values = Elements<int32_t>(table);
    int64_t next = 0;
    for (int64_t b = 0; b < c.batch; ++b) {
        for (int64_t k = 0; k < (c.kv[b] + kPrefixBlock - 1) / kPrefixBlock; ++k)
            values[b * width + k] = ids[next++];
    }
    return table;
}

aclDataType MaskDtype(const Call& c) {
    const bool flags350 =
        c.platform == Platform::kAtlas350 &&
        (c.p.maskType == Param::MASK_TYPE_NORM || c.p.maskType == Param::MASK_TYPE_NORM_COMPRESS);
    if (flags350) return ACL_INT8;
    return c.quant ? static_cast<aclDataType>(c.p.outDataType) : c.shape.dtype;
}

// Dims of an FRACTAL_NZ mask with `lead` planes covering rows x cols: [lead, cols/16, rows, 16].
TensorDesc NzMask(const Call& c, int64_t lead, int64_t rows, int64_t cols) {
    return Desc(MaskDtype(c), {lead, RoundUp16(cols) / kTile, RoundUp16(rows), kTile}, ACL_FORMAT_FRACTAL_NZ);
}

int64_t FormLead(const Call& c) {
    switch (c.shape.mask) {
        case SaMaskForm::kPerBatch:
            return c.batch;
        case SaMaskForm::kPerHead:
            return c.heads;
        case SaMaskForm::kPerBatchHead:
            return c.batch * c.heads;
        case SaMaskForm::kShared:
            break;
    }
    return 1;
}

TensorDesc CompressedMask(const Call& c, bool nz) {
    const auto type = c.p.maskType;
    if (type == Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS) {
        return nz ? NzMask(c, 1, 512, 512) : Desc(MaskDtype(c), {512, 512});
    }
    if (IsAlibiCompress(type)) {
        if (c.shape.mask == SaMaskForm::kPerHead) {
            // [H, R, 128]: R covers every position read, the last key's in PREFIX_ENCODER.
            const int64_t rows = c.p.calcType == Param::PREFIX_ENCODER ? c.maxKv : c.maxQ;
            return nz ? NzMask(c, c.heads, rows, 128) : Desc(MaskDtype(c), {c.heads, rows, 128});
        }
        return nz ? NzMask(c, 1, 256, 256) : Desc(MaskDtype(c), {256, 256});
    }
    // NORM_COMPRESS, or NORM with isTriuMask 1: the causal 128 x 128 tile (2048 x 2048 on atlas-350).
    if (nz) return NzMask(c, 1, 128, 128);
    if (c.platform == Platform::kAtlas350 && type == Param::MASK_TYPE_NORM_COMPRESS) {
        return Desc(MaskDtype(c), {2048, 2048});
    }
    if (c.shape.mask == SaMaskForm::kPerBatch) return Desc(MaskDtype(c), {c.batch, 128, 128});
    return Desc(MaskDtype(c), {128, 128});
}

bool CompressedType(const Call& c) {
    const auto type = c.p.maskType;
    return type == Param::MASK_TYPE_NORM_COMPRESS || IsAlibiCompress(type) ||
           type == Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS ||
           (type == Param::MASK_TYPE_NORM && c.p.isTriuMask == 1);
}

io::HostTensor Mask(Call& c) {
    const bool nz = c.nz && c.shape.nzMask;
    TensorDesc desc;
    if (CompressedType(c)) {
        desc = CompressedMask(c, nz);
    } else {
        const int64_t slack = c.platform == Platform::kAtlasInference ? 0 : c.shape.maskSlack;
        const int64_t rows = (c.p.calcType == Param::DECODER ? 1 : c.maxQ) + slack;
        const int64_t cols = c.maxKv + slack;
        if (nz) {
            desc = NzMask(c, FormLead(c), rows, cols);
        } else if (c.shape.mask == SaMaskForm::kShared) {
            desc = Desc(MaskDtype(c), {rows, cols});
        } else if (c.shape.mask == SaMaskForm::kPerBatchHead) {
            desc = Desc(MaskDtype(c), {c.batch, c.heads, rows, cols});
        } else {
            desc = Desc(MaskDtype(c), {FormLead(c), rows, cols});
        }
    }
    const bool flags = desc.dtype == ACL_INT8;
    return Random(desc, flags ? 0.0 : -1.0, flags ? 2.0 : 0.0, c.rng);
}

io::HostTensor LogN(Call& c) {
    const int64_t length = c.p.calcType == Param::DECODER ? c.batch : c.maxQ;
    return Random(Desc(c.nz ? ACL_FLOAT16 : ACL_FLOAT, {length}), 1.0, 2.0, c.rng);
}

io::HostTensor SeqLen(Call& c) {
    const aclDataType dtype = c.shape.lengthDtype;
    if (c.flash || c.prefix) return Lengths(c.q, {c.batch}, dtype);
    const bool twoRows = c.shape.seqLen2d || c.q != c.kv;
    if (!twoRows) return Lengths(c.q, {c.batch}, dtype);
    std::vector<int32_t> both = c.q;
    both.insert(both.end(), c.kv.begin(), c.kv.end());
    return Lengths(both, {2, c.batch}, dtype);
}

io::HostTensor Input(Call& c, const std::string& name) {
    const bool bnsdFlash = c.flash && c.p.inputLayout == infer::TYPE_BNSD;
    if (name == "query") {
        if (c.prefix)
            return c.rank == 2 ? Qkv(c, {PaRows(c, c.q), c.heads * c.d})
                               : Qkv(c, {PaRows(c, c.q), c.heads, c.d});
        if (bnsdFlash) return Qkv(c, {c.batch, c.heads, c.maxQ, c.d});
        return c.flash ? FlashTokens(c, c.heads, c.d) : PaTokens(c, c.q, c.heads, c.d);
    }
    if (name == "key") {
        if (c.prefix) return PrefixCache(c, c.d);
        return c.flash ? FlashTokens(c, c.kvHeads, c.d) : PaTokens(c, c.kv, c.kvHeads, c.d);
    }
    if (name == "value") {
        if (c.prefix) return PrefixCache(c, c.dv);
        return c.flash ? FlashTokens(c, c.kvHeads, c.dv) : PaTokens(c, c.kv, c.kvHeads, c.dv);
    }
    if (name == "cacheK") return FlashCache(c, c.d);
    if (name == "cacheV") return FlashCache(c, c.dv);
    if (name == "blockTables") return BlockTables(c);
    if (name == "attentionMask") return Mask(c);
    if (name == "seqLen") return SeqLen(c);
    if (name == "kvSeqLen" || name == "tokenOffset") return Lengths(c.kv, {c.batch}, c.shape.lengthDtype);
    if (name == "layerId") return Lengths({c.shape.layerId}, {1}, c.shape.lengthDtype);
    if (name == "batchRunStatus") {
        std::vector<int32_t> status = c.shape.batchRunStatus;
        if (status.empty()) status.assign(c.batch, 1);
        return Lengths(status, {c.batch}, c.shape.lengthDtype);
    }
    if (name == "slopes") {
        const bool half = c.nz && c.shape.nzMask;
        return Random(Desc(half ? ACL_FLOAT16 : ACL_FLOAT, {c.heads}), -0.5, -0.01, c.rng);
    }
    if (name == "qkDescale" || name == "vpvDescale")
        return Random(Desc(ACL_FLOAT, {c.heads}), 0.01, 0.05, c.rng);
    if (name == "pScale") return Random(Desc(ACL_FLOAT, {c.heads}), 1.0 / 127, 3.0 / 127, c.rng);
    if (name == "qkOffset" || name == "vpvOffset") return ZeroTensor(Desc(ACL_INT32, {c.heads}));
    return LogN(c);  // logN, the last input
}

}  // namespace

infer::SelfAttentionParam PaEncoderParam() {
    Param param;
    param.calcType = Param::PA_ENCODER;
    param.headNum = 4;
    param.kvHeadNum = 2;
    param.qkScale = 0.125f;
    return param;
}

infer::SelfAttentionParam FlashParam(Param::CalcType calcType, Param::MaskType maskType) {
    Param param;
    param.calcType = calcType;
    param.maskType = maskType;
    param.headNum = 4;
    param.kvHeadNum = 2;
    param.qkScale = 0.125f;
    return param;
}

infer::SelfAttentionParam BypassParam(Param::CalcType calcType, Param::MaskType maskType) {
    Param param = FlashParam(calcType, maskType);
    param.kvcacheCfg = Param::K_BYPASS_V_BYPASS;
    return param;
}

infer::SelfAttentionParam BnsdParam(Param::CalcType calcType) {
    Param param = BypassParam(calcType, Param::MASK_TYPE_NORM);
    param.inputLayout = infer::TYPE_BNSD;
    return param;
}

infer::SelfAttentionParam PrefixParam(Param::MaskType maskType) {
    Param param = FlashParam(Param::PREFIX_ENCODER, maskType);
    param.isTriuMask = 1;
    param.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
    return param;
}

SaShape MakeSaShape(int32_t headSize, std::vector<int32_t> seqLen, aclDataType dtype) {
    SaShape s;
    s.headSize = headSize;
    s.seqLen = std::move(seqLen);
    s.dtype = dtype;
    return s;
}

SaShape DecoderShape() {
    SaShape shape;
    shape.seqLen = {1, 1, 1};
    shape.kvSeqLen = {9, 30, 2};
    return shape;
}

void UseModelMaskTile(TestCall& call, int64_t window) {
    io::HostTensor& mask = call.In("attentionMask");
    const int64_t side = window > 0 ? 512 : 128;
    ASSERT_EQ(ShapeToString(mask.desc.shape), core::StrCat("[", side, ", ", side, "]"));
    const double masked = mask.desc.dtype == ACL_BF16 ? 1.0 : -10000.0;
    for (int64_t r = 0; r < side; ++r) {
        for (int64_t c = 0; c < side; ++c) {
            const bool hidden = c > r || (window > 0 && c <= r - window);
            plan::StoreElement(mask.bytes.data(), mask.desc.dtype, r * side + c, hidden ? masked : 0.0);
        }
    }
}

void UseModelAlibiMask(TestCall& call) {
    io::HostTensor& mask = call.In("attentionMask");
    ASSERT_EQ(mask.desc.shape.dimNum, 3u);
    const int64_t heads = mask.desc.shape.dims[0], rows = mask.desc.shape.dims[1],
                  cols = mask.desc.shape.dims[2];
    const double above = mask.desc.dtype == ACL_BF16 ? -std::numeric_limits<double>::infinity() : -10000.0;
    for (int64_t h = 0; h < heads; ++h) {
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
                const double bias = std::ldexp(static_cast<double>(c - r), -static_cast<int>(h) - 1);
                plan::StoreElement(mask.bytes.data(), mask.desc.dtype, (h * rows + r) * cols + c,
                                   c > r ? above + bias : bias);
            }
        }
    }
}

TestCall MakeSaCall(const infer::SelfAttentionParam& param, const SaShape& shape, Platform platform) {
    Call c(param, shape, platform);
    TestCall call;
    call.param = param;
    call.platform = platform;
    NameInputs(call);
    for (const std::string& name : call.inputNames)
        call.inputs.push_back(Input(c, name));
    AttachOutputs(call);
    return call;
}

}  // namespace atbx::test
