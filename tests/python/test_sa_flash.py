"""SelfAttention with the KV cache in the op (FA-cache), over the caller's cache (bypass) and BNSD, through case
files (`atbx run --backend ref`) against the NumPy golden. ATB's kernel and op-level grids
(docs/spec/self_attention.md 6.3, 6.4), reduced to a CPU budget with their odd lengths, GQA ratios, head sizes and features.
The updated caches are compared exactly.
"""
import math

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision
from golden_sa import FLAG, bnsd_bypass, cache_to_nz, causal_term, fa_cache, to_nz
from sa_cases import (BYPASS, DECODER, ENCODER, HIGH_PRECISION, LONG, MASK_NORM, MASK_NORM_COMPRESS,
                      MASK_SWA_COMPRESS, MASK_SWA_NORM, UNDEFINED, int32, raw_output, run_case, sharp, values)


def mask_values(kind, rng, dtype, batch, max_seq, q_rows, window, flags):
    """(mask tensor values, full mask of batch b [rows, cols] as the golden reads it) for a mask kind."""
    hidden = 1.0 if flags else -10000.0
    if kind == "norm":  # [S, S]: random hidden entries, key 0 always visible
        full = np.where(rng.random((max_seq, max_seq)) < 0.3, hidden, 0.0)
        full[:, 0] = 0.0
        return full, lambda b: full
    if kind == "batch":  # [B, rows, S]
        full = np.where(rng.random((batch, q_rows, max_seq)) < 0.3, hidden, 0.0)
        full[:, :, 0] = 0.0
        return full, lambda b: full[b]
    if kind == "compress":  # the 128 x 128 causal tile; the golden is the full top-left causal mask
        tile = causal_term(128, 128, hidden=hidden)
        return tile, lambda b: causal_term(max_seq, max_seq, hidden=hidden)
    if kind == "swa":
        full = causal_term(max_seq, max_seq, hidden=hidden, window=window)
        return full, lambda b: full
    if kind == "swa_compress":
        tile = causal_term(512, 512, hidden=hidden, window=window)
        return tile, lambda b: causal_term(max_seq, max_seq, hidden=hidden, window=window)
    raise ValueError(kind)


MASK_TYPES = {"norm": MASK_NORM, "batch": MASK_NORM, "compress": MASK_NORM_COMPRESS, "swa": MASK_SWA_NORM,
              "swa_compress": MASK_SWA_COMPRESS}


def flash_case(atbx, tmp_path, dtype="float16", heads=4, kv_heads=4, d=64, dv=None, seq_len=(3, 1), token_offset=None,
               layers=2, layer=1, max_seq=None, calc_type=ENCODER, mask=None, q_scale=1.0, qk_scale=None,
               clamp=None, logn=False, status=None, kernel_type=0, window=0, cache_type=0, bypass=False,
               four_dims=False, seed=0, wrong_golden=None):
    """Builds, runs and checks one FA-cache / bypass case; returns (out, golden) for further checks."""
    rng = np.random.default_rng(seed)
    dv = dv or d
    seq_len = list(seq_len)
    token_offset = list(token_offset or seq_len)
    batch = len(seq_len)
    max_seq = max_seq or max(token_offset)
    qk_scale = qk_scale if qk_scale is not None else 1 / math.sqrt(d)
    n = sum(seq_len)
    dynamic = status is not None
    if four_dims:
        q = sharp(rng, (batch, seq_len[0], heads, d), dtype)
        key = sharp(rng, (batch, seq_len[0], kv_heads, d), dtype)
        value = values(rng, (batch, seq_len[0], kv_heads, dv), dtype)
    else:
        q = sharp(rng, (n, heads * d), dtype)
        key = sharp(rng, (n, kv_heads * d), dtype)
        value = values(rng, (n, kv_heads * dv), dtype)
    cache_shape = (batch, max_seq) if dynamic else (layers, batch, max_seq)
    cache_k = sharp(rng, cache_shape + (kv_heads * d,), dtype)
    cache_v = values(rng, cache_shape + (kv_heads * dv,), dtype)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": qk_scale, "qScale": q_scale, "calcType": calc_type,
             "kernelType": kernel_type, "batchRunStatusEnable": dynamic, "windowSize": window, "cacheType": cache_type,
             "kvcacheCfg": BYPASS if bypass else 0}
    inputs = [q] if bypass else [q, key, value]
    inputs += [cache_k, cache_v]
    # DECISIONS 12: bf16, or fp16 on the high-precision prefill kernel, reads NORM-style masks as flags.
    flags = dtype == "bfloat16" or (kernel_type == HIGH_PRECISION and calc_type != DECODER and not dynamic)
    full_mask = None
    if mask:
        param["maskType"] = MASK_TYPES[mask]
        param["isTriuMask"] = 1 if mask == "compress" else 0
        q_rows = 1 if calc_type == DECODER else max_seq
        tensor, full_mask = mask_values(mask, rng, dtype, batch, max_seq, q_rows, window, flags)
        inputs.append(Tensor(tensor, dtype))
    elif window:
        param["maskType"] = MASK_SWA_NORM  # DECODER with a window: no mask tensor
    inputs += [int32(token_offset), int32(seq_len), int32([layer])]
    if dynamic:
        inputs.append(int32(status))
    logn_values = None
    if logn:
        param["scaleType"] = 1
        logn_values = rng.uniform(1, 2, batch).astype(np.float32)
        inputs.append(Tensor(logn_values, "float32"))
    if clamp:
        param.update(clampType=1, clampMin=clamp[0], clampMax=clamp[1])
    outputs = [("out.npy", dtype)] + ([] if bypass else [("cacheK.npy", dtype), ("cacheV.npy", dtype)])
    read = run_case(atbx, tmp_path, param, inputs, outputs)

    def mask_term(b, h, q_len, kv):
        rows = full_mask(b)[:q_len, :kv]
        return rows * FLAG if flags else rows

    def keys_of(b, kv):  # DECODER + sliding window, no mask (DECISIONS 16)
        return (0, min(kv, window)) if cache_type == 1 else (max(0, kv - window), kv)

    q2 = q.values().reshape(n, heads * d)
    golden, gk, gv = fa_cache(
        q2, key.values().reshape(n, kv_heads * d), value.values().reshape(n, kv_heads * dv), cache_k.values(),
        cache_v.values(), token_offset, seq_len, layer, heads, kv_heads, qk_scale, q_scale, dtype,
        mask_term=mask_term if mask else None,
        keys_of=keys_of if (window and not mask) else None,
        logn_of=(lambda b: np.full(seq_len[b], logn_values[b])) if logn else None,
        clamp=clamp, status=status, write=not bypass)
    if wrong_golden is not None:
        golden = wrong_golden(locals())
    out = read[0].reshape(golden.shape)
    assert_precision(out, golden, dtype, d, max(token_offset))
    if not bypass:
        assert np.array_equal(raw_output(tmp_path, "cacheK.npy"), Tensor(gk, dtype).array)
        assert np.array_equal(raw_output(tmp_path, "cacheV.npy"), Tensor(gv, dtype).array)
    return out, golden


# Kernel grid (test_flash_attention.py), reduced.
@pytest.mark.parametrize("case", [
    # case0: fp16, NORM [S, S], lengths 1, 2, 127 and a long one
    dict(heads=4, kv_heads=4, d=128, seq_len=(1, 2, 127, 203), mask="norm", seed=1),
    # case1/2: dynamic batch, [B, S, S] mask, stopped batches are those of length 0 and one that runs
    dict(heads=8, kv_heads=8, d=128, seq_len=(114, 107, 0, 33, 0, 1, 0, 1), status=(1, 1, 0, 1, 0, 0, 0, 1),
         mask="batch", seed=2),
    # case4 / decoder_no_mask: decoder over 129 keys, NORM [S, S] row 0; and without a mask
    dict(heads=5, kv_heads=5, d=128, seq_len=(1,) * 8, token_offset=(129, 1, 77, 129, 3, 128, 40, 100),
         calc_type=DECODER, mask="norm", seed=3),
    dict(heads=5, kv_heads=5, d=128, seq_len=(1,) * 3, token_offset=(129, 17, 64), calc_type=DECODER, seed=4),
    # clamp decoder / encoder with the compressed causal tile
    dict(heads=4, kv_heads=4, d=128, seq_len=(1, 1), token_offset=(223, 212), calc_type=DECODER,
         clamp=(-0.71, 0.99), seed=5),
    dict(dtype="bfloat16", heads=4, kv_heads=2, d=128, seq_len=(223, 212), mask="compress", clamp=(-0.71, 0.99),
         seed=6),
    # encoder_bf16_tor: bf16 compressed causal tile, KV longer than the queries (top-left, DECISIONS 13)
    dict(dtype="bfloat16", heads=2, kv_heads=2, d=128, seq_len=(131, 20), token_offset=(200, 20), mask="compress",
         seed=7),
    # decoder_logN: logN per batch
    dict(heads=8, kv_heads=8, d=128, seq_len=(1, 1), token_offset=(300, 77), calc_type=DECODER, logn=True, seed=8),
    # swa_decoder: window over a NORM cache and over a cycle (SWA) cache, no mask (DECISIONS 16)
    dict(heads=1, kv_heads=1, d=128, seq_len=(1, 1), token_offset=(200, 30), calc_type=DECODER, window=61, seed=9),
    dict(dtype="bfloat16", heads=4, kv_heads=4, d=256, seq_len=(1,), token_offset=(130,), calc_type=DECODER,
         window=51, cache_type=1, seed=10),
    # fp32 (high-precision) kernel: fp16 mask read as 0/1 flags
    dict(heads=4, kv_heads=2, d=128, seq_len=(37, 256), kernel_type=HIGH_PRECISION, mask="batch", seed=11),
    # mla_fp16 with the cache: K head size 576, V 512
    dict(heads=2, kv_heads=2, d=576, dv=512, seq_len=(50, 33), seed=12),
    # 4-D q, k, v viewed as token rows
    dict(heads=4, kv_heads=2, d=64, seq_len=(9, 9, 9), token_offset=(20, 9, 31), four_dims=True, seed=13),
])
def test_kernel_grid(atbx, tmp_path, case):
    flash_case(atbx, tmp_path, **case)


# Operation-level grid (test_self_attention_operation*.py, the kvcacheCfg CSV), reduced.
def test_operation_norm_kvcache(atbx, tmp_path):
    """B=140 -> 20, L=4, H=4, head size 288, V 16 * U(8, 17), seqLen in [2, 5), tokenOffset = U[0, 5) + seqLen,
    zero mask [B, S, S], qScale 0.2, qkScale 1."""
    rng = np.random.default_rng(20)
    seq_len = rng.integers(2, 5, 20)
    token_offset = rng.integers(0, 5, 20) + seq_len
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=288, dv=16 * 11, seq_len=tuple(seq_len),
               token_offset=tuple(token_offset), layers=4, layer=2, max_seq=10, q_scale=0.2, qk_scale=0.3,
               mask="batch", seed=21)


def test_operation_compress_mask_128(atbx, tmp_path):
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=64, seq_len=(150, 201), mask="compress", seed=22)


@pytest.mark.parametrize("mask,window", [("swa", 3), ("swa_compress", 40)])
def test_operation_sliding_window_encoder(atbx, tmp_path, mask, window):
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=64, seq_len=(17, 60), mask=mask, window=window, seed=23)


@pytest.mark.parametrize("cache_type", [0, 1])
def test_operation_sliding_window_decoder(atbx, tmp_path, cache_type):
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=64, seq_len=(1, 1, 1), token_offset=(5, 5, 2),
               calc_type=DECODER, window=3, cache_type=cache_type, seed=24)


def test_operation_clamp(atbx, tmp_path):
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=128, dv=16 * 5, seq_len=(7, 1, 12), token_offset=(9, 6, 12),
               clamp=(0.3333, 0.5555), q_scale=0.2, qk_scale=1.0, seed=25)


def test_operation_qscale_zero_zeroes_q(atbx, tmp_path):
    flash_case(atbx, tmp_path, heads=4, kv_heads=2, d=64, seq_len=(5, 3), token_offset=(9, 3), q_scale=0.0, seed=26)


@pytest.mark.parametrize("calc_type", [UNDEFINED, DECODER])
def test_operation_bypass(atbx, tmp_path, calc_type):
    """bypass (the caller's cache): q [8, H*D], cache [1, 8, 129, H*D], mask [8, 1, 129] for the decoder."""
    seq_len = (1,) * 8 if calc_type == DECODER else (3, 1, 7, 1, 2, 5, 1, 4)
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=128, seq_len=seq_len,
               token_offset=(129, 17, 64, 1, 90, 128, 33, 100), layers=1, layer=0, calc_type=calc_type,
               mask="batch", bypass=True, seed=27)


def test_operation_bypass_logn(atbx, tmp_path):
    flash_case(atbx, tmp_path, heads=4, kv_heads=4, d=64, seq_len=(1, 1, 1), token_offset=(40, 3, 17),
               calc_type=DECODER, logn=True, bypass=True, seed=28)


def test_long_operation_grid(atbx, tmp_path):
    """The op test at closer to ATB's size (ATBX_LONG_TESTS=1)."""
    if not LONG:
        pytest.skip("set ATBX_LONG_TESTS=1")
    flash_case(atbx, tmp_path, heads=8, kv_heads=8, d=128, seq_len=(523, 512), mask="compress", clamp=(-0.71, 0.99),
               seed=29)


@pytest.mark.parametrize("dtype,kernel_type", [("float16", 0), ("bfloat16", 0), ("float16", HIGH_PRECISION)])
def test_bnsd_bypass(atbx, tmp_path, dtype, kernel_type):
    """encoder_bnsd_case0 / encoder_fp32_bnsd: q [B, H, Sq, D], caches [L, B, Hk, S, D]; rows past each batch 0."""
    rng = np.random.default_rng(30)
    heads, kv_heads, d, layers, layer = 4, 2, 128, 2, 1
    seq_len, token_offset = [1, 2, 127, 55], [1, 2, 127, 259]
    batch, sq, max_seq = len(seq_len), max(seq_len), max(token_offset)
    q = sharp(rng, (batch, heads, sq, d), dtype)
    cache_k = sharp(rng, (layers, batch, kv_heads, max_seq, d), dtype)
    cache_v = values(rng, (layers, batch, kv_heads, max_seq, d), dtype)
    flags = dtype == "bfloat16" or kernel_type == HIGH_PRECISION
    full = causal_term(max_seq, max_seq, hidden=1.0 if flags else -10000.0)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": ENCODER,
             "kvcacheCfg": BYPASS, "inputLayout": 1, "maskType": MASK_NORM, "kernelType": kernel_type}
    inputs = [q, cache_k, cache_v, Tensor(full, dtype), int32(token_offset), int32(seq_len), int32([layer])]
    out, = run_case(atbx, tmp_path, param, inputs, [("out.npy", dtype)])
    golden = bnsd_bypass(q.values(), cache_k.values(), cache_v.values(), token_offset, seq_len, layer, kv_heads,
                         1 / math.sqrt(d), lambda b, h, ql, kv: full[:ql, :kv] * (FLAG if flags else 1.0))
    assert_precision(out.reshape(golden.shape), golden, dtype, d, max_seq)


def test_atlas_inference_nz_cache(atbx, tmp_path):
    """Atlas inference FA-cache (docs/spec/self_attention.md 2.1, 3.10): NZ caches [L, B, H*D/16, S, 16], each batch's rows
    padded to 16 (padding rows are zeros in the output), a FRACTAL_NZ causal mask, GQA."""
    rng = np.random.default_rng(31)
    heads, kv_heads, d, layers, layer = 4, 2, 64, 2, 0
    seq_len = [5, 17]
    rows = [16, 32]
    max_seq = 32
    n = sum(rows)
    q = sharp(rng, (n, heads * d), "float16")
    key = sharp(rng, (n, kv_heads * d), "float16")
    value = values(rng, (n, kv_heads * d), "float16")
    cache_k_nd = sharp(rng, (layers, 2, max_seq, kv_heads * d), "float16").values()
    cache_v_nd = values(rng, (layers, 2, max_seq, kv_heads * d), "float16").values()
    mask_full = causal_term(max_seq, max_seq, hidden=-10000.0)
    inputs = [q, key, value, Tensor(cache_to_nz(cache_k_nd), "float16", "FRACTAL_NZ"),
              Tensor(cache_to_nz(cache_v_nd), "float16", "FRACTAL_NZ"),
              Tensor(to_nz(mask_full[None]), "float16", "FRACTAL_NZ"), int32(seq_len), int32(seq_len),
              int32([layer])]
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": ENCODER,
             "maskType": MASK_NORM}
    out, _, _ = run_case(atbx, tmp_path, param, inputs,
                         [("out.npy", "float16"), ("cacheK.npy", "float16"), ("cacheV.npy", "float16")],
                         platform="atlas-inference")
    golden, gk, gv = fa_cache(q.values(), key.values(), value.values(), cache_k_nd, cache_v_nd, seq_len, seq_len,
                              layer, heads, kv_heads, 1 / math.sqrt(d), rows_of=lambda b: rows[b],
                              mask_term=lambda b, h, ql, kv: mask_full[:ql, :kv])
    assert_precision(out, golden, "float16", d, max_seq)
    assert np.array_equal(raw_output(tmp_path, "cacheK.npy"), Tensor(cache_to_nz(gk), "float16").array)
    assert np.array_equal(raw_output(tmp_path, "cacheV.npy"), Tensor(cache_to_nz(gv), "float16").array)


def test_mask_alignment_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that aligns the compressed causal mask bottom-right instead of
    top-left (KV longer than the queries)."""
    def bottom_right(scope):
        seq_len, token_offset = scope["seq_len"], scope["token_offset"]
        return fa_cache(scope["q2"], scope["key"].values().reshape(scope["n"], -1),
                        scope["value"].values().reshape(scope["n"], -1), scope["cache_k"].values(),
                        scope["cache_v"].values(), token_offset, seq_len, scope["layer"], scope["heads"],
                        scope["kv_heads"], scope["qk_scale"],
                        mask_term=lambda b, h, ql, kv: causal_term(ql, kv, prefix=kv - ql, hidden=-10000.0))[0]
    with pytest.raises(AssertionError, match="elements over eps"):
        flash_case(atbx, tmp_path, heads=2, kv_heads=2, d=64, seq_len=(40, 9), token_offset=(90, 30),
                   mask="compress", seed=32, wrong_golden=bottom_right)


def test_mask_convention_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that reads a bf16 mask as additive instead of as flags."""
    def additive(scope):
        full_mask = scope["full_mask"]
        return fa_cache(scope["q2"], scope["key"].values().reshape(scope["n"], -1),
                        scope["value"].values().reshape(scope["n"], -1), scope["cache_k"].values(),
                        scope["cache_v"].values(), scope["token_offset"], scope["seq_len"], scope["layer"],
                        scope["heads"], scope["kv_heads"], scope["qk_scale"],
                        mask_term=lambda b, h, ql, kv: full_mask(b)[:ql, :kv])[0]
    with pytest.raises(AssertionError, match="elements over eps"):
        flash_case(atbx, tmp_path, dtype="bfloat16", heads=2, kv_heads=2, d=64, seq_len=(40, 9), mask="norm",
                   seed=33, wrong_golden=additive)
