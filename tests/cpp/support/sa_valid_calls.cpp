#include "support/sa_valid_calls.h"

#include <gtest/gtest.h>

#include "support/sa_calls.h"
#include "support/sa_edits.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;
using P = Platform;

SaShape Lens(std::vector<int32_t> q, std::vector<int32_t> kv) {
    SaShape shape;
    shape.seqLen = std::move(q);
    shape.kvSeqLen = std::move(kv);
    return shape;
}

template <class Edit>
Param With(Param param, Edit edit) {
    edit(param);
    return param;
}

template <class Edit>
SaShape With(SaShape shape, Edit edit) {
    edit(shape);
    return shape;
}

SaValidCall Entry(std::string name, Param param, SaShape shape = {}, Platform platform = P::kAtlasA2) {
    return {std::move(name), [=] { return MakeSaCall(param, shape, platform); }};
}

// KV cache in the op, bypass and BNSD on atlas-a2.
void AddFlash(std::vector<SaValidCall>& out) {
    const SaShape history = Lens({5, 17, 1}, {8, 17, 4});
    out.push_back(Entry("fa_encoder", FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM), history));
    out.push_back(Entry("fa_encoder_per_batch_mask", FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                        With(history, [](SaShape& s) {
                            s.mask = SaMaskForm::kPerBatch;
                            s.maskSlack = 5;
                        })));
    out.push_back(Entry("fa_undefined_4d", FlashParam(Param::UNDEFINED, Param::MASK_TYPE_NORM),
                        With(Lens({6, 6, 6}, {6, 9, 12}), [](SaShape& s) { s.rank = 4; })));
    out.push_back(Entry("fa_encoder_4d_packed", FlashParam(Param::ENCODER, Param::MASK_TYPE_UNDEFINED),
                        With(history, [](SaShape& s) { s.rank = 4; })));
    out.push_back(Entry("fa_decoder", FlashParam(Param::DECODER, Param::MASK_TYPE_NORM),
                        With(DecoderShape(), [](SaShape& s) { s.mask = SaMaskForm::kPerBatch; })));
    out.push_back(
        Entry("fa_decoder_no_mask", FlashParam(Param::DECODER, Param::MASK_TYPE_UNDEFINED), DecoderShape()));
    out.push_back(Entry("fa_decoder_logn",
                        With(FlashParam(Param::DECODER, Param::MASK_TYPE_UNDEFINED),
                             [](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; }),
                        DecoderShape()));
    out.push_back(Entry("fa_encoder_alibi", FlashParam(Param::ENCODER, Param::MASK_TYPE_ALIBI),
                        With(history, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; })));
    out.push_back(Entry("fa_encoder_alibi_per_batch_head", FlashParam(Param::ENCODER, Param::MASK_TYPE_ALIBI),
                        With(history, [](SaShape& s) { s.mask = SaMaskForm::kPerBatchHead; })));
    out.push_back(
        Entry("fa_encoder_triu_compressed",
              With(FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM), [](Param& p) { p.isTriuMask = 1; }),
              Lens({130, 7}, {130, 9})));
    out.push_back(Entry(
        "fa_norm_compress_per_batch",
        With(FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM_COMPRESS), [](Param& p) { p.isTriuMask = 1; }),
        With(Lens({130, 7}, {130, 7}), [](SaShape& s) { s.mask = SaMaskForm::kPerBatch; })));
    out.push_back(Entry("fa_clamp_qscale",
                        With(FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                             [](Param& p) {
                                 p.clampType = Param::CLAMP_TYPE_MIN_MAX;
                                 p.clampMin = -1.5f;
                                 p.clampMax = 2.5f;
                                 p.qScale = 0.2f;
                             }),
                        history));
    out.push_back(Entry("fa_dynamic_batch",
                        With(FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                             [](Param& p) { p.batchRunStatusEnable = true; }),
                        With(Lens({5, 1, 7}, {5, 9, 7}), [](SaShape& s) {
                            s.batchRunStatus = {1, 0, 1};
                            s.mask = SaMaskForm::kPerBatch;
                        })));
    out.push_back(Entry("fa_dynamic_batch_decoder",
                        With(FlashParam(Param::DECODER, Param::MASK_TYPE_UNDEFINED),
                             [](Param& p) { p.batchRunStatusEnable = true; }),
                        With(DecoderShape(), [](SaShape& s) {
                            s.batchRunStatus = {0, 1, 1};
                        })));
    const auto swa = [](Param::CalcType calc, Param::MaskType mask, uint32_t window) {
        return With(FlashParam(calc, mask), [&](Param& p) { p.windowSize = window; });
    };
    out.push_back(
        Entry("fa_swa_norm", swa(Param::ENCODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM, 4), history));
    out.push_back(Entry("fa_swa_compress", swa(Param::ENCODER, Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS, 300),
                        history));
    out.push_back(Entry("fa_swa_decoder", swa(Param::DECODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM, 3),
                        DecoderShape()));
    out.push_back(Entry("fa_swa_decoder_cycle_cache",
                        With(swa(Param::DECODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM, 3),
                             [](Param& p) { p.cacheType = Param::CACHE_TYPE_SWA; }),
                        DecoderShape()));
    out.push_back(Entry("fa_uint32_lengths", FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                        With(history, [](SaShape& s) { s.lengthDtype = ACL_UINT32; })));
    out.push_back(Entry("fa_bf16_head_sizes_differ", FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                        With(history, [](SaShape& s) {
                            s.dtype = ACL_BF16;
                            s.headSizeV = 48;
                        })));
    out.push_back(
        Entry("bypass_decoder", BypassParam(Param::DECODER, Param::MASK_TYPE_NORM), DecoderShape()));
    out.push_back(Entry("bypass_encoder_4d", BypassParam(Param::ENCODER, Param::MASK_TYPE_NORM),
                        With(history, [](SaShape& s) { s.rank = 4; })));
    out.push_back(Entry("bypass_decoder_logn",
                        With(BypassParam(Param::DECODER, Param::MASK_TYPE_UNDEFINED),
                             [](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; }),
                        DecoderShape()));
    out.push_back(Entry("bnsd_bypass", BnsdParam(Param::ENCODER), history));
    out.push_back(Entry("bnsd_bypass_decoder", BnsdParam(Param::DECODER), DecoderShape()));
}

Param Pa(void (*edit)(Param&)) {
    Param p = PaEncoderParam();
    edit(p);
    return p;
}

void AddPaEncoder(std::vector<SaValidCall>& out) {
    out.push_back(Entry("pa_encoder", PaEncoderParam()));
    out.push_back(Entry("pa_encoder_2d", PaEncoderParam(), With(SaShape{}, [](SaShape& s) { s.rank = 2; })));
    out.push_back(Entry("pa_encoder_seq_len_2b",
                        Pa([](Param& p) { p.kernelType = Param::KERNELTYPE_HIGH_PRECISION; }),
                        Lens({5, 17, 1}, {9, 17, 3})));
    out.push_back(Entry("pa_encoder_decode_rows", PaEncoderParam(), Lens({5, 1, 1}, {5, 9, 3})));
    out.push_back(Entry("pa_norm_mask", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; })));
    out.push_back(Entry("pa_norm_mask_seq_len_2b", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_NORM;
                            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
                        }),
                        Lens({5, 17, 1}, {9, 17, 3})));
    out.push_back(Entry("pa_norm_mask_per_batch", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; }),
                        With(SaShape{}, [](SaShape& s) {
                            s.mask = SaMaskForm::kPerBatch;
                            s.maskSlack = 3;
                        })));
    out.push_back(Entry("pa_alibi", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI; }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; })));
    out.push_back(Entry("pa_alibi_per_batch_head", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI; }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerBatchHead; })));
    out.push_back(Entry("pa_alibi_compress", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS;
                            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
                        })));
    out.push_back(Entry("pa_alibi_compress_sqrt_per_head", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS_SQRT;
                            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
                        }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; })));
    out.push_back(Entry("pa_alibi_compress_left_align_bf16",
                        Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS_LEFT_ALIGN; }),
                        With(SaShape{}, [](SaShape& s) { s.dtype = ACL_BF16; })));
    out.push_back(Entry("pa_norm_compress", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_NORM_COMPRESS;
                            p.isTriuMask = 1;
                        }),
                        Lens({200, 17, 1}, {200, 17, 1})));
    out.push_back(Entry("pa_logn", Pa([](Param& p) {
                            p.scaleType = Param::SCALE_TYPE_LOGN;
                            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
                            p.maskType = Param::MASK_TYPE_NORM;
                        })));
    const SaShape mla = With(SaShape{}, [](SaShape& s) { s.headSize = 96; });
    out.push_back(Entry("pa_mla", Pa([](Param& p) { p.mlaVHeadSize = 64; }), mla));
    out.push_back(Entry("pa_mla_mask_2d", Pa([](Param& p) {
                            p.mlaVHeadSize = 64;
                            p.maskType = Param::MASK_TYPE_NORM;
                            p.kernelType = Param::KERNELTYPE_HIGH_PRECISION;
                        }),
                        With(mla, [](SaShape& s) { s.rank = 2; })));
    out.push_back(Entry("pa_mla_quant_online", Pa([](Param& p) {
                            p.mlaVHeadSize = 64;
                            p.quantType = Param::TYPE_QUANT_QKV_ONLINE;
                            p.outDataType = ACL_FLOAT16;
                        }),
                        mla));
    out.push_back(Entry("pa_quant_online", Pa([](Param& p) {
                            p.quantType = Param::TYPE_QUANT_QKV_ONLINE;
                            p.outDataType = ACL_FLOAT16;
                            p.maskType = Param::MASK_TYPE_NORM;
                        })));
    out.push_back(Entry("pa_quant_offline_bf16_out", Pa([](Param& p) {
                            p.quantType = Param::TYPE_QUANT_QKV_OFFLINE;
                            p.outDataType = ACL_BF16;
                        })));
    out.push_back(Entry("pa_quant_offline_alibi_compress", Pa([](Param& p) {
                            p.quantType = Param::TYPE_QUANT_QKV_OFFLINE;
                            p.outDataType = ACL_BF16;
                            p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS;
                        })));
    out.push_back(Entry("pa_bnsd_bf16", Pa([](Param& p) { p.inputLayout = infer::TYPE_BNSD; }),
                        With(Lens({5, 17, 1}, {9, 17, 3}), [](SaShape& s) { s.dtype = ACL_BF16; })));
    out.push_back(Entry("pa_bnsd_uint32", Pa([](Param& p) { p.inputLayout = infer::TYPE_BNSD; }),
                        With(SaShape{}, [](SaShape& s) {
                            s.dtype = ACL_BF16;
                            s.lengthDtype = ACL_UINT32;
                            s.seqLen2d = true;
                        })));
    out.push_back(Entry("pa_swa_norm", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_SLIDING_WINDOW_NORM;
                            p.windowSize = 5;
                        })));
    out.push_back(Entry("pa_swa_compress_mla_kernel", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
                            p.windowSize = 700;
                        }),
                        With(SaShape{}, [](SaShape& s) { s.headSizeV = 32; })));
    out.push_back(Entry("pa_bf16_head_size_576", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; }),
                        With(SaShape{}, [](SaShape& s) {
                            s.dtype = ACL_BF16;
                            s.headSize = 576;
                            s.headSizeV = 512;
                            s.seqLen = {3, 2};
                        })));
}

void AddPrefix(std::vector<SaValidCall>& out) {
    out.push_back(Entry("prefix_norm_compress", PrefixParam(Param::MASK_TYPE_NORM_COMPRESS)));
    out.push_back(Entry("prefix_norm_compress_2d", PrefixParam(Param::MASK_TYPE_NORM_COMPRESS),
                        With(SaShape{}, [](SaShape& s) {
                            s.rank = 2;
                            s.dtype = ACL_BF16;
                        })));
    out.push_back(Entry("prefix_alibi_compress", PrefixParam(Param::MASK_TYPE_ALIBI_COMPRESS)));
    out.push_back(Entry("prefix_alibi_compress_sqrt_per_head",
                        PrefixParam(Param::MASK_TYPE_ALIBI_COMPRESS_SQRT),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; })));
    out.push_back(Entry("prefix_causal", PrefixParam(Param::MASK_TYPE_CAUSAL_MASK),
                        With(Lens({130, 7}, {258, 135}), [](SaShape& s) { s.lengthDtype = ACL_UINT32; })));
}

// atlas-inference: FRACTAL_NZ caches and masks, rows padded to 16, float16.
void AddInference(std::vector<SaValidCall>& out) {
    const P inf = P::kAtlasInference;
    out.push_back(Entry("nz_fa_encoder", FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM), {}, inf));
    out.push_back(Entry("nz_fa_undefined_4d", FlashParam(Param::UNDEFINED, Param::MASK_TYPE_NORM),
                        With(Lens({5, 17, 1}, {8, 17, 4}), [](SaShape& s) { s.rank = 4; }), inf));
    out.push_back(Entry("nz_fa_decoder", FlashParam(Param::DECODER, Param::MASK_TYPE_NORM),
                        With(DecoderShape(), [](SaShape& s) { s.mask = SaMaskForm::kPerBatch; }), inf));
    out.push_back(Entry("nz_fa_decoder_logn",
                        With(FlashParam(Param::DECODER, Param::MASK_TYPE_UNDEFINED),
                             [](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; }),
                        DecoderShape(), inf));
    out.push_back(Entry("nz_fa_swa_decoder",
                        With(FlashParam(Param::DECODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM),
                             [](Param& p) {
                                 p.windowSize = 3;
                                 p.cacheType = Param::CACHE_TYPE_SWA;
                             }),
                        DecoderShape(), inf));
    out.push_back(Entry("nz_fa_swa_encoder",
                        With(FlashParam(Param::ENCODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM),
                             [](Param& p) { p.windowSize = 4; }),
                        {}, inf));
    out.push_back(
        Entry("nz_bypass_decoder", BypassParam(Param::DECODER, Param::MASK_TYPE_NORM), DecoderShape(), inf));
    out.push_back(Entry("nz_bnsd_bypass", BnsdParam(Param::ENCODER), {}, inf));
    out.push_back(Entry("nz_pa_encoder", PaEncoderParam(), {}, inf));
    out.push_back(Entry("nz_pa_norm_mask_nd", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; }),
                        With(SaShape{}, [](SaShape& s) { s.nzMask = false; }), inf));
    out.push_back(Entry("nz_pa_alibi_per_head", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI; }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; }), inf));
    out.push_back(Entry("nz_pa_norm_compress",
                        Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM_COMPRESS; }),
                        Lens({200, 17}, {200, 17}), inf));
    out.push_back({"nz_pa_norm_compress_long_window", [] {
                       TestCall call =
                           MakeSaCall(Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM_COMPRESS; }),
                                      Lens({300, 17}, {300, 17}), P::kAtlasInference);
                       Resize(call, "attentionMask", {1, 128, 2048, 16});  // the NZ 2048 x 2048 causal tile
                       return call;
                   }});
    out.push_back(Entry("nz_pa_alibi_compress",
                        Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS; }), {}, inf));
    out.push_back(Entry("nz_pa_alibi_compress_per_head",
                        Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI_COMPRESS_SQRT; }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerHead; }), inf));
    out.push_back(Entry("nz_pa_swa", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_SLIDING_WINDOW_NORM;
                            p.windowSize = 6;
                        }),
                        {}, inf));
    out.push_back(Entry("nz_pa_swa_compress", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_SLIDING_WINDOW_COMPRESS;
                            p.windowSize = 40;
                        }),
                        {}, inf));
    out.push_back(Entry("nz_pa_logn", Pa([](Param& p) { p.scaleType = Param::SCALE_TYPE_LOGN; }), {}, inf));
    out.push_back(Entry("nz_pa_m8v2", Pa([](Param& p) {
                            p.kernelType = Param::KERNELTYPE_EXP_M8V2;
                            p.maskType = Param::MASK_TYPE_NORM;
                        }),
                        With(SaShape{}, [](SaShape& s) { s.lengthDtype = ACL_UINT32; }), inf));
    out.push_back(Entry("nz_pa_m8v2_bnsd", Pa([](Param& p) {
                            p.kernelType = Param::KERNELTYPE_EXP_M8V2;
                            p.inputLayout = infer::TYPE_BNSD;
                        }),
                        {}, inf));
}

void AddTrainingAnd350(std::vector<SaValidCall>& out) {
    const P training = P::kAtlasTraining;
    out.push_back(Entry("training_pa_encoder", PaEncoderParam(), {}, training));
    out.push_back(Entry("training_pa_norm_mask", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; }),
                        With(SaShape{}, [](SaShape& s) { s.mask = SaMaskForm::kPerBatch; }), training));
    out.push_back(Entry("training_pa_norm_compress", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_NORM_COMPRESS;
                            p.isTriuMask = 1;
                        }),
                        Lens({200, 17}, {200, 17}), training));
    const P a350 = P::kAtlas350;
    out.push_back(Entry("a350_pa_encoder", PaEncoderParam(), {}, a350));
    out.push_back(Entry("a350_pa_norm_mask", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_NORM; }),
                        With(SaShape{},
                             [](SaShape& s) {
                                 s.mask = SaMaskForm::kPerBatch;
                                 s.lengthDtype = ACL_UINT32;
                             }),
                        a350));
    out.push_back(Entry("a350_pa_norm_compress", Pa([](Param& p) {
                            p.maskType = Param::MASK_TYPE_NORM_COMPRESS;
                            p.isTriuMask = 1;
                        }),
                        {}, a350));
    out.push_back(Entry("a350_pa_alibi_bf16", Pa([](Param& p) { p.maskType = Param::MASK_TYPE_ALIBI; }),
                        With(SaShape{},
                             [](SaShape& s) {
                                 s.mask = SaMaskForm::kPerBatchHead;
                                 s.dtype = ACL_BF16;
                             }),
                        a350));
    out.push_back(Entry("a350_pa_mla_kernel", PaEncoderParam(),
                        With(SaShape{},
                             [](SaShape& s) {
                                 s.headSize = 192;
                                 s.headSizeV = 128;
                             }),
                        a350));
}

}  // namespace

void PrintTo(const SaValidCall& call, std::ostream* out) {
    *out << call.name;
}

std::vector<SaValidCall> SaValidCalls() {
    std::vector<SaValidCall> all;
    AddFlash(all);
    AddPaEncoder(all);
    AddPrefix(all);
    AddInference(all);
    AddTrainingAnd350(all);
    return all;
}

TestCall SaCall(std::string_view name) {
    static const std::vector<SaValidCall> calls = SaValidCalls();
    for (const SaValidCall& c : calls) {
        if (c.name == name) return c.make();
    }
    ADD_FAILURE() << "no valid SelfAttention call named " << name;
    return {};
}

}  // namespace atbx::test
