"""SelfAttention int8 QKV quantisation (PA_ENCODER, quantType OFFLINE 2 / ONLINE 3) through case files
(`atbx run --backend ref`) against the NumPy golden: ATB's fav3 kernel cases and QKVquant op cases
(docs/spec/self_attention.md 6.3, 6.4), reduced.
"""
import math

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision
from golden_sa import FLAG, causal_term, pa_encoder_int8
from sa_cases import MASK_NORM, PA_ENCODER, int32, run_case

OFFLINE, ONLINE = 2, 3
FLOAT16, BF16 = 1, 27


def quant_case(atbx, tmp_path, quant_type, out_dtype, heads, kv_heads, lens, mask=False, d=128, seed=0, wrong=None):
    """wrong(args) -> a golden computed some other way, for tests showing that the comparison fails."""
    rng = np.random.default_rng(seed)
    n = sum(lens)
    q = Tensor(rng.uniform(-5, 5, (n, heads, d)).astype(np.int8), "int8")
    k = Tensor(rng.uniform(-5, 5, (n, kv_heads, d)).astype(np.int8), "int8")
    v = Tensor(rng.uniform(-5, 5, (n, kv_heads, d)).astype(np.int8), "int8")
    # Per query head (kv-head scales broadcast to their group), sized to give logits of a few units.
    qk_descale = np.repeat(rng.uniform(0.2, 0.4, kv_heads), heads // kv_heads).astype(np.float32)
    v_descale = np.repeat(rng.uniform(0.01, 0.03, kv_heads), heads // kv_heads).astype(np.float32)
    p_scale = rng.uniform(1 / 127, 3 / 127, heads).astype(np.float32)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": PA_ENCODER,
             "quantType": quant_type, "outDataType": FLOAT16 if out_dtype == "float16" else BF16}
    inputs = [q, k, v]
    term = None
    if mask:  # causal; the mask has the output dtype: fp16 additive, bf16 flags (DECISIONS 12)
        param["maskType"] = MASK_NORM
        flags = out_dtype == "bfloat16"
        full = causal_term(max(lens), max(lens), hidden=1.0 if flags else -10000.0)
        inputs.append(Tensor(full, out_dtype))

        def term(b, h, ql, kv):
            return full[:ql, :kv] * (FLAG if flags else 1.0)
    inputs += [int32(lens), Tensor(qk_descale, "float32"), int32(np.zeros(heads)), Tensor(v_descale, "float32"),
               int32(np.zeros(heads))]
    if quant_type == OFFLINE:
        inputs.append(Tensor(p_scale, "float32"))
    out, = run_case(atbx, tmp_path, param, inputs, [("out.npy", out_dtype)])
    args = dict(q=q.values(), k=k.values(), v=v.values(), q_lens=lens, qk_descale=qk_descale.astype(np.float64),
                v_descale=v_descale.astype(np.float64), qk_scale=1 / math.sqrt(d), online=quant_type == ONLINE,
                p_scale=p_scale.astype(np.float64), mask_term=term)
    golden = wrong(args) if wrong else pa_encoder_int8(**args)
    assert_precision(out.reshape(golden.shape), golden, out_dtype, d, max(lens))


@pytest.mark.parametrize("quant_type,out_dtype,heads,kv_heads,lens,mask", [
    (ONLINE, "float16", 2, 2, (257,), True),            # fa_encoder_nocache_fp16_fav3_int8_online
    (OFFLINE, "float16", 2, 2, (257,), True),
    (ONLINE, "bfloat16", 8, 2, (128, 37, 1), False),     # 5 x 32/4 -> 3 batches, 8/2
    (OFFLINE, "bfloat16", 8, 2, (128, 37, 1), True),
    (ONLINE, "float16", 5, 5, (130, 7), False),          # 20/20 -> 5/5
])
def test_quant_grid(atbx, tmp_path, quant_type, out_dtype, heads, kv_heads, lens, mask):
    quant_case(atbx, tmp_path, quant_type, out_dtype, heads, kv_heads, lens, mask, seed=sum(lens) + heads)


def test_offline_scale_rule_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that applies pScale the PagedAttention way (weights times pScale and no
    pScale in the result) instead of SelfAttention's (weights divided by pScale, result times pScale)."""
    def paged_rule(args):
        args = dict(args)
        args["p_scale"] = 1.0 / args["p_scale"]
        return pa_encoder_int8(**args) / args["p_scale"][None, :, None]
    with pytest.raises(AssertionError, match="elements over eps"):
        quant_case(atbx, tmp_path, OFFLINE, "float16", 4, 2, (130, 5), seed=9, wrong=paged_rule)


def test_descale_per_query_head_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that takes one descale for every head."""
    def one_descale(args):
        args = dict(args)
        args["qk_descale"] = np.full_like(args["qk_descale"], args["qk_descale"][0])
        args["v_descale"] = np.full_like(args["v_descale"], args["v_descale"][0])
        return pa_encoder_int8(**args)
    with pytest.raises(AssertionError, match="elements over eps"):
        quant_case(atbx, tmp_path, ONLINE, "bfloat16", 4, 2, (64, 5), seed=10, wrong=one_descale)
