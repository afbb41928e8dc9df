// The catalogue of valid PagedAttention calls: each feature on each profile that has it, small enough for the
// reference to run, with odd sizes (partial last blocks, one-token contexts, GQA ratios 1 to 16).
#include "support/pa_calls.h"

namespace atbx::test {
namespace {

using Param = infer::PagedAttentionParam;

constexpr Platform kInference = Platform::kAtlasInference;
constexpr Platform kTraining = Platform::kAtlasTraining;
constexpr Platform k350 = Platform::kAtlas350;

// A param with the given change.
template <class F>
Param With(F change) {
    Param p;
    change(p);
    return p;
}

Param Mask(Param::MaskType type) {
    return With([type](Param& p) { p.maskType = type; });
}

// SPEC: four batches with 1 to 4 query tokens each (the tokens are the last of their context).
PaShape SpecShape() {
    PaShape shape;
    shape.contextLens = {17, 40, 5, 33};
    shape.qSeqLen = {1, 3, 2, 4};
    return shape;
}

Param Spec(Param::MaskType type) {
    return With([type](Param& p) {
        p.calcType = Param::CALC_TYPE_SPEC;
        p.maskType = type;
    });
}

Param Mla(uint32_t headSizeV, int32_t heads) {
    return With([=](Param& p) {
        p.headNum = heads;
        p.kvHeadNum = 1;
        p.mlaVHeadSize = headSizeV;
    });
}

PaShape MlaShape(int32_t headSize) {
    PaShape shape;
    shape.headSize = headSize;
    return shape;
}

Param Dequant(bool offsets) {
    return With([offsets](Param& p) {
        p.quantType = Param::TYPE_DEQUANT_FUSION;
        p.hasQuantOffset = offsets;
    });
}

Param Qkv(Param::QuantType type, aclDataType out, Param::MaskType mask) {
    return With([=](Param& p) {
        p.quantType = type;
        p.outDataType = out;
        p.maskType = mask;
    });
}

// KV-head compression: headNum 8, kvHeadNum 2, batch 2: four sequences of different lengths.
Param Compressed(Param::CompressType type, Param::MaskType mask) {
    return With([=](Param& p) {
        p.compressType = type;
        p.maskType = mask;
    });
}

PaShape CompressedShape() {
    PaShape shape;
    shape.contextLens = {17, 30, 5, 40};
    return shape;
}

// MASK_FREE on atlas-inference: block_size 128, (contextLens - qSeqLen) % 128 == 0, headNum 4 over one kv
// head.
PaShape MaskFreeShape() {
    PaShape shape;
    shape.headSize = 48;
    shape.blockSize = 128;
    shape.contextLens = {131, 258};
    shape.qSeqLen = {3, 130};
    return shape;
}

// NORM_COMPRESS on atlas-inference: one context longer than the 2048 mask.
PaShape NormCompressShape(PaMask form) {
    PaShape shape;
    shape.contextLens = {40, 2100};
    shape.qSeqLen = {2, 5};
    shape.mask = form;
    return shape;
}

template <class... Changes>
PaShape Shape(Changes... changes) {
    PaShape shape;
    (changes(shape), ...);
    return shape;
}

std::vector<PaValidCall> Catalogue() {
    const auto bf16 = [](PaShape& s) { s.dtype = ACL_BF16; };
    const auto form = [](PaMask m) { return [m](PaShape& s) { s.mask = m; }; };
    return {
        // atlas-a2: decoding
        {"a2.decode", [] { return MakePaCall({}); }},
        {"a2.decode.bf16", [=] { return MakePaCall({}, Shape(bf16)); }},
        {"a2.decode.mha",
         [] {
             return MakePaCall(With([](Param& p) { p.headNum = 4; }),
                               Shape([](PaShape& s) { s.headSize = 40; }));
         }},
        {"a2.decode.gqa16",
         [] {
             return MakePaCall(With([](Param& p) {
                                   p.headNum = 16;
                                   p.kvHeadNum = 1;
                               }),
                               Shape([](PaShape& s) {
                                   s.contextLens = {70, 3};
                               }));
         }},
        {"a2.decode.bnsd",
         [] { return MakePaCall(With([](Param& p) { p.inputLayout = infer::TYPE_BNSD; })); }},
        {"a2.decode.q_scale", [] { return MakePaCall(With([](Param& p) { p.qScale = 0.5f; })); }},
        {"a2.decode.skipped_by_context",
         [] { return MakePaCall({}, Shape([](PaShape& s) {
                                    s.contextLens = {0, 12, 0, 5};
                                })); }},
        {"a2.decode.batch_run_status",
         [] {
             return MakePaCall(With([](Param& p) { p.batchRunStatusEnable = true; }), Shape([](PaShape& s) {
                                   s.contextLens = {17, 0, 40, 33, 9};
                                   s.batchRunStatus = {1, 1, 0, 1, 1};
                               }));
         }},
        {"a2.decode.split_kv_heads",
         [] {
             return MakePaCall({}, Shape([](PaShape& s) {
                                   s.headSize = 128;
                                   s.headSizeV = 96;
                               }));
         }},
        {"a2.decode.split_kv_576_512",
         [] {
             return MakePaCall(With([](Param& p) {
                                   p.headNum = 4;
                                   p.kvHeadNum = 1;
                               }),
                               Shape([](PaShape& s) {
                                   s.headSize = 576;
                                   s.headSizeV = 512;
                                   s.contextLens = {19, 40};
                               }));
         }},
        {"a2.decode.head256_block128",
         [] {
             return MakePaCall({}, Shape([](PaShape& s) {
                                   s.headSize = 256;
                                   s.blockSize = 128;
                                   s.contextLens = {130, 40};
                               }));
         }},
        // atlas-a2: masks when decoding
        {"a2.mask.norm_row",
         [=] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), Shape(form(PaMask::kNormRow))); }},
        {"a2.mask.norm_square",
         [=] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), Shape(form(PaMask::kNormSquare))); }},
        {"a2.mask.norm_3d", [] { return MakePaCall(Mask(Param::MASK_TYPE_NORM)); }},
        {"a2.mask.norm_3d.bf16", [=] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), Shape(bf16)); }},
        {"a2.mask.alibi_3d",
         [=] { return MakePaCall(Mask(Param::MASK_TYPE_ALIBI), Shape(form(PaMask::kAlibi3D))); }},
        {"a2.mask.alibi_4d", [] { return MakePaCall(Mask(Param::MASK_TYPE_ALIBI)); }},
        {"a2.mask.spec_decode", [] { return MakePaCall(Mask(Param::MASK_TYPE_SPEC)); }},
        // atlas-a2: parallel decoding (calcType SPEC)
        {"a2.spec.norm_square", [] { return MakePaCall(Spec(Param::MASK_TYPE_NORM), SpecShape()); }},
        {"a2.spec.norm_3d",
         [] {
             PaShape shape = SpecShape();
             shape.mask = PaMask::kNorm3D;
             return MakePaCall(Spec(Param::MASK_TYPE_NORM), shape);
         }},
        {"a2.spec.norm_row",
         [] {
             PaShape shape = SpecShape();
             shape.mask = PaMask::kNormRow;
             return MakePaCall(Spec(Param::MASK_TYPE_NORM), shape);
         }},
        {"a2.spec.spec_mask", [] { return MakePaCall(Spec(Param::MASK_TYPE_SPEC), SpecShape()); }},
        {"a2.spec.spec_mask.bf16",
         [] {
             PaShape shape = SpecShape();
             shape.dtype = ACL_BF16;
             return MakePaCall(Spec(Param::MASK_TYPE_SPEC), shape);
         }},
        {"a2.spec.skipped",
         [] {
             PaShape shape;
             shape.contextLens = {17, 0, 40, 9};
             shape.qSeqLen = {2, 3, 1, 0};
             return MakePaCall(Spec(Param::MASK_TYPE_NORM), shape);
         }},
        // atlas-a2: MLA
        {"a2.mla.combined", [] { return MakePaCall(Mla(128, 8), MlaShape(192)); }},
        {"a2.mla.576_512", [] { return MakePaCall(Mla(512, 16), MlaShape(576)); }},
        {"a2.mla.block256",
         [] {
             PaShape shape = MlaShape(576);
             shape.blockSize = 256;
             shape.contextLens = {300, 17};
             return MakePaCall(Mla(512, 16), shape);
         }},
        {"a2.mla.norm_mask",
         [] {
             Param p = Mla(128, 8);
             p.maskType = Param::MASK_TYPE_NORM;
             return MakePaCall(p, MlaShape(192));
         }},
        {"a2.mla.batch_run_status",
         [] {
             Param p = Mla(128, 8);
             p.batchRunStatusEnable = true;
             PaShape shape = MlaShape(192);
             shape.batchRunStatus = {1, 0, 1, 1};
             return MakePaCall(p, shape);
         }},
        {"a2.mla.spec",
         [] {
             Param p = Mla(128, 8);
             p.calcType = Param::CALC_TYPE_SPEC;
             PaShape shape = SpecShape();
             shape.headSize = 192;
             return MakePaCall(p, shape);
         }},
        {"a2.mla.spec_mask",
         [] {
             Param p = Mla(128, 8);
             p.calcType = Param::CALC_TYPE_SPEC;
             p.maskType = Param::MASK_TYPE_SPEC;
             PaShape shape = SpecShape();
             shape.headSize = 192;
             return MakePaCall(p, shape);
         }},
        {"a2.mla.spec_mask.bf16",
         [] {
             Param p = Mla(512, 16);
             p.calcType = Param::CALC_TYPE_SPEC;
             p.maskType = Param::MASK_TYPE_SPEC;
             PaShape shape = SpecShape();
             shape.headSize = 576;
             shape.dtype = ACL_BF16;
             return MakePaCall(p, shape);
         }},
        {"a2.mla.qkv_online",
         [] {
             Param p = Mla(128, 8);
             p.quantType = Param::TYPE_QUANT_QKV_ONLINE;
             p.outDataType = ACL_FLOAT16;
             return MakePaCall(p, MlaShape(192));
         }},
        {"a2.mla.qkv_offline_mask",
         [] {
             Param p = Mla(512, 16);
             p.quantType = Param::TYPE_QUANT_QKV_OFFLINE;
             p.outDataType = ACL_BF16;
             p.maskType = Param::MASK_TYPE_NORM;
             return MakePaCall(p, MlaShape(576));
         }},
        // atlas-a2: quantization
        {"a2.dequant", [] { return MakePaCall(Dequant(false)); }},
        {"a2.dequant.bf16", [=] { return MakePaCall(Dequant(false), Shape(bf16)); }},
        {"a2.dequant.int64",
         [] { return MakePaCall(Dequant(false), Shape([](PaShape& s) { s.descaleDtype = ACL_INT64; })); }},
        {"a2.dequant.offsets", [] { return MakePaCall(Dequant(true)); }},
        {"a2.dequant.norm_mask",
         [] {
             Param p = Dequant(true);
             p.maskType = Param::MASK_TYPE_NORM;
             return MakePaCall(p);
         }},
        {"a2.qkv.online_mask",
         [] { return MakePaCall(Qkv(Param::TYPE_QUANT_QKV_ONLINE, ACL_FLOAT16, Param::MASK_TYPE_NORM)); }},
        {"a2.qkv.offline",
         [] { return MakePaCall(Qkv(Param::TYPE_QUANT_QKV_OFFLINE, ACL_BF16, Param::UNDEFINED)); }},
        // atlas-a2: KV-head compression
        {"a2.compress.kvhead",
         [] {
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::UNDEFINED), CompressedShape());
         }},
        {"a2.compress.kvhead.norm_batch",
         [] {
             PaShape shape = CompressedShape();
             shape.mask = PaMask::kNorm3DOriginalBatch;
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_NORM), shape);
         }},
        {"a2.compress.kvhead.norm_row",
         [] {
             PaShape shape = CompressedShape();
             shape.mask = PaMask::kNormRow;
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_NORM), shape);
         }},
        {"a2.compress.kvhead.norm_sequence",
         [] {
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_NORM),
                               CompressedShape());
         }},
        {"a2.compress.kvhead.alibi_3d",
         [] {
             PaShape shape = CompressedShape();
             shape.mask = PaMask::kAlibi3D;
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_ALIBI), shape);
         }},
        {"a2.compress.kvhead.alibi_batch",
         [] {
             PaShape shape = CompressedShape();
             shape.mask = PaMask::kAlibi4DOriginalBatch;
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_ALIBI), shape);
         }},
        {"a2.compress.kvhead.alibi_sequence",
         [] {
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_ALIBI),
                               CompressedShape());
         }},
        {"a2.compress.kvhead.batch_run_status",
         [] {
             Param p = Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::MASK_TYPE_ALIBI);
             p.batchRunStatusEnable = true;
             return MakePaCall(p, CompressedShape());
         }},
        {"a2.compress.kvhead.dequant",
         [] {
             Param p = Compressed(Param::COMPRESS_TYPE_KVHEAD, Param::UNDEFINED);
             p.quantType = Param::TYPE_DEQUANT_FUSION;
             p.hasQuantOffset = true;
             PaShape shape = CompressedShape();
             shape.descaleDtype = ACL_INT64;
             return MakePaCall(p, shape);
         }},
        {"a2.compress.rope",
         [] {
             return MakePaCall(Compressed(Param::COMPRESS_TYPE_KVHEAD_ROPE, Param::UNDEFINED),
                               CompressedShape());
         }},
        // atlas-a2: logN
        {"a2.logn", [] { return MakePaCall(With([](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; })); }},
        {"a2.logn.norm_batch_run_status",
         [] {
             Param p = Mask(Param::MASK_TYPE_NORM);
             p.scaleType = Param::SCALE_TYPE_LOGN;
             p.batchRunStatusEnable = true;
             return MakePaCall(p, Shape([](PaShape& s) { s.batchRunStatus = {1, 0, 1, 1}; }));
         }},
        // atlas-inference: NZ caches, float16
        {"inference.decode", [] { return MakePaCall({}, {}, kInference); }},
        {"inference.decode.bnsd",
         [] { return MakePaCall(With([](Param& p) { p.inputLayout = infer::TYPE_BNSD; }), {}, kInference); }},
        {"inference.norm", [] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), {}, kInference); }},
        {"inference.norm.shared",
         [=] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), Shape(form(PaMask::kNzShared)), kInference); }},
        {"inference.alibi", [] { return MakePaCall(Mask(Param::MASK_TYPE_ALIBI), {}, kInference); }},
        {"inference.alibi.shared",
         [=] {
             return MakePaCall(Mask(Param::MASK_TYPE_ALIBI), Shape(form(PaMask::kNzShared)), kInference);
         }},
        {"inference.logn",
         [] {
             return MakePaCall(With([](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; }), {}, kInference);
         }},
        {"inference.logn.alibi",
         [] {
             Param p = Mask(Param::MASK_TYPE_ALIBI);
             p.scaleType = Param::SCALE_TYPE_LOGN;
             return MakePaCall(p, {}, kInference);
         }},
        {"inference.spec", [] { return MakePaCall(Spec(Param::UNDEFINED), SpecShape(), kInference); }},
        {"inference.spec.nz_mask",
         [] { return MakePaCall(Spec(Param::MASK_TYPE_SPEC), SpecShape(), kInference); }},
        {"inference.spec.nd_mask",
         [] {
             PaShape shape = SpecShape();
             shape.mask = PaMask::kNdSpec;
             return MakePaCall(Spec(Param::MASK_TYPE_SPEC), shape, kInference);
         }},
        {"inference.mask_free",
         [] {
             Param p = Spec(Param::MASK_TYPE_MASK_FREE);
             p.headNum = 4;
             p.kvHeadNum = 1;
             return MakePaCall(p, MaskFreeShape(), kInference);
         }},
        {"inference.norm_compress",
         [] {
             return MakePaCall(Spec(Param::MASK_TYPE_NORM_COMPRESS), NormCompressShape(PaMask::kDefault),
                               kInference);
         }},
        {"inference.norm_compress.3d",
         [] {
             return MakePaCall(Spec(Param::MASK_TYPE_NORM_COMPRESS),
                               NormCompressShape(PaMask::kNormCompress3D), kInference);
         }},
        {"inference.norm_compress.4d",
         [] {
             return MakePaCall(Spec(Param::MASK_TYPE_NORM_COMPRESS),
                               NormCompressShape(PaMask::kNormCompress4D), kInference);
         }},
        // atlas-training: NZ caches, float16, basic functions
        {"training.decode", [] { return MakePaCall({}, {}, kTraining); }},
        {"training.norm", [] { return MakePaCall(Mask(Param::MASK_TYPE_NORM), {}, kTraining); }},
        {"training.alibi.shared",
         [=] { return MakePaCall(Mask(Param::MASK_TYPE_ALIBI), Shape(form(PaMask::kNzShared)), kTraining); }},
        // atlas-350: plain decoding
        {"a350.decode", [] { return MakePaCall({}, {}, k350); }},
        {"a350.decode.bf16", [=] { return MakePaCall({}, Shape(bf16), k350); }},
    };
}

}  // namespace

const std::vector<PaValidCall>& PaValidCalls() {
    static const std::vector<PaValidCall> calls = Catalogue();
    return calls;
}

}  // namespace atbx::test
