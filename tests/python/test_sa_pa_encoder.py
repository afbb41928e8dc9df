"""SelfAttention PA_ENCODER (packed q, k, v of the current tokens) through case files (`atbx run --backend ref`)
against the NumPy golden: ATB's kernel cases (the "nocache" rows of docs/spec/self_attention.md 6.3) and op-level cases
(6.4), reduced to a CPU budget with their odd lengths, GQA ratios, head sizes and masks. Compressed masks are
given compressed to atbx and uncompressed to the golden.
"""
import math

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision
from golden_sa import FLAG, alibi_slopes, alibi_term, causal_term, pa_encoder, round_to, to_nz
from sa_cases import (HIGH_PRECISION, LONG, MASK_ALIBI, MASK_ALIBI_COMPRESS, MASK_ALIBI_COMPRESS_LEFT_ALIGN,
                      MASK_ALIBI_COMPRESS_SQRT, MASK_NORM, MASK_NORM_COMPRESS, MASK_SWA_COMPRESS, MASK_SWA_NORM,
                      PA_ENCODER, int32, run_case, sharp, values)

ALIBI_FORMS = {MASK_ALIBI_COMPRESS: "distance", MASK_ALIBI_COMPRESS_SQRT: "sqrt",
               MASK_ALIBI_COMPRESS_LEFT_ALIGN: "left"}


def interleave_slopes(heads):
    """Slopes of left-aligned ALiBi (ATB's tests): powers of 2^(-2^-(log2 n - 3))."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(heads).is_integer():
        return np.array(power_of_2(heads))
    closest = 2 ** math.floor(math.log2(heads))
    return np.array(power_of_2(closest) + list(interleave_slopes(2 * closest)[0::2][:heads - closest]))


def masks(kind, rng, dtype, heads, batch, max_q, max_kv, window, flags, mask_type):
    """(inputs after seqLen (the slopes), the mask tensor, term(b, h, q, kv) for the golden) of a mask kind."""
    hidden = 1.0 if flags else -10000.0
    if kind == "batch":  # NORM [B, S, S]
        full = np.where(rng.random((batch, max_q, max_kv)) < 0.3, hidden, 0.0)
        full[:, :, 0] = 0.0
        return [], Tensor(full, dtype), lambda b, h, q, kv: full[b, :q, :kv] * (FLAG if flags else 1.0)
    if kind in ("alibi4", "alibi3"):  # ALIBI: additive, per head, the bias of ATB's tests
        slopes = alibi_slopes(heads)
        planes = np.stack([alibi_term(s, max_q, max_kv) for s in slopes])
        planes = np.where(np.isinf(planes), -10000.0 if dtype == "float16" else -np.inf, planes)
        given = np.broadcast_to(planes, (batch,) + planes.shape) if kind == "alibi4" else planes
        rounded = round_to(given, dtype)
        if kind == "alibi4":
            return [], Tensor(given, dtype), lambda b, h, q, kv: rounded[b, h, :q, :kv]
        return [], Tensor(given, dtype), lambda b, h, q, kv: rounded[h, :q, :kv]
    if kind == "compress":  # NORM_COMPRESS: the 128 x 128 tile of the full top-left causal mask
        return [], Tensor(causal_term(128, 128, hidden=hidden), dtype), \
            lambda b, h, q, kv: causal_term(q, kv, hidden=hidden) * (FLAG if flags else 1.0)
    if kind == "alibi_compress":  # [256, 256] tile + slopes (negated for the distance forms, as ATB's tests)
        form = ALIBI_FORMS[mask_type]
        slopes = interleave_slopes(heads) if form == "left" else alibi_slopes(heads)
        r, c = np.arange(256)[:, None], np.arange(256)[None, :]
        if form == "left":
            tile = np.where(c > r, -np.inf, c * np.ones((256, 256)))
            given = slopes
        else:
            dist = np.sqrt(np.abs(r - c)) if form == "sqrt" else (r - c).astype(np.float64)
            tile = np.where(c > r, dist + 60000.0, dist)
            given = -slopes
        slopes32 = np.asarray(given, dtype=np.float32).astype(np.float64)
        sign = 1.0 if form == "left" else -1.0
        return [Tensor(given, "float32")], Tensor(tile, dtype), \
            lambda b, h, q, kv: alibi_term(sign * slopes32[h], q, kv, form=form)
    if kind == "alibi_columns":  # [H, rows, 128]: the first 128 columns of the full mask, no slopes needed
        form = ALIBI_FORMS[mask_type]
        slopes = alibi_slopes(heads)
        full = np.stack([alibi_term(s, max_q, max_kv, form=form) for s in slopes])
        rounded = round_to(full, dtype)
        return [Tensor(np.zeros(heads), "float32")], Tensor(full[:, :, :128], dtype), \
            lambda b, h, q, kv: rounded[h, :q, :kv]
    if kind in ("swa", "swa_compress"):
        size = max_kv if kind == "swa" else 512
        given = causal_term(size, size, hidden=hidden, window=window)
        return [], Tensor(given, dtype), \
            lambda b, h, q, kv: causal_term(q, kv, hidden=hidden, window=window) * (FLAG if flags else 1.0)
    raise ValueError(kind)


MASK_TYPES = {"batch": MASK_NORM, "alibi4": MASK_ALIBI, "alibi3": MASK_ALIBI, "compress": MASK_NORM_COMPRESS,
              "swa": MASK_SWA_NORM, "swa_compress": MASK_SWA_COMPRESS}


def encoder_case(atbx, tmp_path, dtype="float16", heads=4, kv_heads=4, d=128, dv=None, q_lens=(17, 5), kv_lens=None,
                 rank=3, mask=None, mask_type=None, kernel_type=0, logn=False, clamp=None, window=0, mla=0,
                 qk_scale=None, seed=0, wrong_term=None):
    """Builds, runs and checks one PA_ENCODER case. wrong_term(term) replaces the golden's mask term, for tests
    showing that the comparison fails."""
    rng = np.random.default_rng(seed)
    dv = mla or dv or d
    q_lens = list(q_lens)
    kv_lens = list(kv_lens or q_lens)
    batch, max_q, max_kv = len(q_lens), max(q_lens), max(kv_lens)
    qk_scale = qk_scale if qk_scale is not None else 1 / math.sqrt(d)
    n, nk = sum(q_lens), sum(kv_lens)
    q3 = sharp(rng, (n, heads, d), dtype)
    k3 = sharp(rng, (nk, kv_heads, d), dtype)
    v3 = values(rng, (nk, kv_heads, dv), dtype)

    def shaped(t, shape):
        return Tensor(t.values().reshape(shape), dtype)

    q = q3 if rank == 3 else shaped(q3, (n, heads * d))
    k = k3 if rank == 3 else shaped(k3, (nk, kv_heads * d))
    v = v3 if rank == 3 else shaped(v3, (nk, kv_heads * dv))
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": qk_scale, "qScale": 0.3, "calcType": PA_ENCODER,
             "kernelType": kernel_type, "windowSize": window, "mlaVHeadSize": mla}
    inputs = [q, k] + ([] if mla else [v])
    term = None
    after_seq_len = []
    if mask:
        param["maskType"] = mask_type if mask_type is not None else MASK_TYPES[mask]
        param["isTriuMask"] = 1 if mask in ("compress", "alibi_compress", "alibi_columns") else 0
        flags = dtype == "bfloat16" or kernel_type == HIGH_PRECISION  # DECISIONS 12
        after_seq_len, tensor, term = masks(mask, rng, dtype, heads, batch, max_q, max_kv, window, flags,
                                            param["maskType"])
        inputs.append(tensor)
    inputs.append(int32(q_lens) if kv_lens == q_lens else int32([q_lens, kv_lens]))
    inputs += after_seq_len
    logn_values = None
    if logn:
        param["scaleType"] = 1
        logn_values = rng.uniform(1, 2, max_q).astype(np.float32)
        inputs.append(Tensor(logn_values, "float32"))
    if clamp:
        param.update(clampType=1, clampMin=clamp[0], clampMax=clamp[1])
    out, = run_case(atbx, tmp_path, param, inputs, [("out.npy", dtype)])
    if wrong_term is not None:
        term = wrong_term(term)
    value_rows = k3.values()[..., :dv] if mla else v3.values()
    golden = pa_encoder(q3.values(), k3.values(), value_rows, q_lens, kv_lens, qk_scale, term,
                        None if logn_values is None else logn_values.astype(np.float64), clamp)
    assert_precision(out.reshape(golden.shape), golden, dtype, d, max_kv)
    return out, golden


# Kernel grid (test_flash_attention.py, types 10 / 2001 / 2008 "nocache"), reduced.
@pytest.mark.parametrize("case", [
    # fa_encoder_nocache_mask1_dim96: head size 96, [B, S, S]
    dict(heads=4, kv_heads=4, d=96, q_lens=(114, 105, 200), mask="batch", seed=1),
    # fa_encoder_nocache_mask1_longseq: the 128 tile, fp16 -10000
    dict(heads=4, kv_heads=4, q_lens=(260, 199), mask="compress", seed=2),
    # fa_encoder_nocache_alibimask (_dim3): ALIBI [B, H, S, S] and [H, S, S]
    dict(heads=4, kv_heads=4, q_lens=(114, 207), mask="alibi4", seed=3),
    dict(heads=4, kv_heads=4, q_lens=(114, 207), mask="alibi3", seed=4),
    # fa_encoder_nocache_bf16 (_clamp): 0/1 flags, GQA
    dict(dtype="bfloat16", heads=4, kv_heads=2, q_lens=(115, 15), mask="batch", seed=5),
    dict(dtype="bfloat16", heads=4, kv_heads=2, q_lens=(115, 15), mask="batch", clamp=(-0.71, 0.99), seed=6),
    # bf16_alibi (_long_seq), sqrt_alibi_long_seq, left_align_alibi_long_seq: [256, 256] tiles with slopes
    dict(dtype="bfloat16", heads=5, kv_heads=1, q_lens=(300, 100), mask="alibi_compress",
         mask_type=MASK_ALIBI_COMPRESS, seed=7),
    dict(dtype="bfloat16", heads=5, kv_heads=1, q_lens=(300, 100), mask="alibi_compress",
         mask_type=MASK_ALIBI_COMPRESS_SQRT, seed=8),
    dict(dtype="bfloat16", heads=5, kv_heads=1, q_lens=(300,), mask="alibi_compress",
         mask_type=MASK_ALIBI_COMPRESS_LEFT_ALIGN, seed=9),
    # fp16 alibi compress needs the high-precision kernel
    dict(heads=3, kv_heads=1, q_lens=(150, 1), mask="alibi_compress", mask_type=MASK_ALIBI_COMPRESS,
         kernel_type=HIGH_PRECISION, seed=10),
    # sqrt_alibi_long_seq_dim3: [H, S, 128]
    dict(dtype="bfloat16", heads=3, kv_heads=1, q_lens=(300,), mask="alibi_columns", mask_type=MASK_ALIBI_COMPRESS_SQRT,
         seed=11),
    # triu_small_head_dim: head size 71, one head
    dict(dtype="bfloat16", heads=1, kv_heads=1, d=71, q_lens=(223, 212), mask="compress", seed=12),
    # case_gemma: head size 256, GQA 4
    dict(dtype="bfloat16", heads=4, kv_heads=1, d=256, q_lens=(199,), mask="compress", seed=13),
    # encoder_fp32_no_cache_logN (_nomask): high-precision kernel, logN per query row
    dict(dtype="bfloat16", heads=4, kv_heads=2, q_lens=(231, 148), mask="compress", kernel_type=HIGH_PRECISION,
         logn=True, seed=14),
    dict(dtype="bfloat16", heads=4, kv_heads=2, q_lens=(231, 148), kernel_type=HIGH_PRECISION, logn=True, seed=15),
    # swa_encoder / swa_bf16_encoder / swa_compress (_bf16)
    dict(heads=1, kv_heads=1, q_lens=(260,), mask="swa", window=85, seed=16),
    dict(dtype="bfloat16", heads=4, kv_heads=1, q_lens=(200,), mask="swa", window=81, seed=17),
    dict(heads=2, kv_heads=2, d=256, q_lens=(300,), mask="swa_compress", window=142, seed=18),
    dict(dtype="bfloat16", heads=1, kv_heads=1, q_lens=(261,), mask="swa_compress", window=92, seed=19),
    # mla (K 576, V 512, not combined) and MLA combined (V = the first 512 channels of K)
    dict(heads=2, kv_heads=2, d=576, dv=512, q_lens=(50, 102), seed=20),
    dict(dtype="bfloat16", heads=2, kv_heads=1, d=576, mla=512, q_lens=(50, 102), mask="batch", seed=21),
    # mla_fp16_deepseek_test1: K 192, V 128, the 128 tile
    dict(heads=4, kv_heads=4, d=192, dv=128, q_lens=(307,), mask="compress", seed=22),
])
def test_kernel_grid(atbx, tmp_path, case):
    encoder_case(atbx, tmp_path, **case)


# Operation-level grid (test_self_attention_encoder_operation*.py, CSV rows 294-300), reduced.
@pytest.mark.parametrize("case", [
    # basic: B=16, S=128, H=32 -> 4 batches, 8 heads
    dict(heads=8, kv_heads=8, q_lens=(128, 128, 1, 37), rank=3, seed=30),
    # 2-D tensors, GQA 8/2, K 192 / V 128 ("MLA kernel"), seqLen [100, 10, 2, 16]
    dict(heads=8, kv_heads=2, d=192, dv=128, q_lens=(100, 10, 2, 16), rank=2, mask="alibi3", seed=31),
    # queries shorter than keys ([2, B] seqLen) and a batch with no query rows
    dict(heads=6, kv_heads=2, q_lens=(5, 0, 33), kv_lens=(9, 4, 70), kernel_type=HIGH_PRECISION, seed=32),
    # MLA with queries shorter than keys (the seed keeps A2 PA_ENCODER tensors 2-D or 3-D: no 4-D MLA key)
    dict(heads=4, kv_heads=1, d=576, mla=512, q_lens=(20, 7), kv_lens=(31, 7), kernel_type=HIGH_PRECISION,
         seed=33),
    # alibi fp16 compress (H=12 -> 6, Hk=1, slopes negated, high precision)
    dict(heads=6, kv_heads=1, q_lens=(257,), mask="alibi_compress", mask_type=MASK_ALIBI_COMPRESS,
         kernel_type=HIGH_PRECISION, seed=34),
])
def test_operation_grid(atbx, tmp_path, case):
    encoder_case(atbx, tmp_path, **case)


def test_long_alibi_compress(atbx, tmp_path):
    """bf16 alibi compress at closer to ATB's size (ATBX_LONG_TESTS=1)."""
    if not LONG:
        pytest.skip("set ATBX_LONG_TESTS=1")
    encoder_case(atbx, tmp_path, dtype="bfloat16", heads=12, kv_heads=1, q_lens=(1024, 1000), mask="alibi_compress",
                 mask_type=MASK_ALIBI_COMPRESS_SQRT, seed=35)


def test_bnsd_with_two_row_seq_len(atbx, tmp_path):
    """clamp_encoder_bf16_nomask_bnsd_splitm: bf16 BNSD q [B, H, Sq, D], k/v [B, Hk, Skv, D], seqLen [2, B]."""
    rng = np.random.default_rng(40)
    heads, kv_heads, d, dtype = 3, 1, 128, "bfloat16"
    q_lens, kv_lens = [241, 37], [241, 112]
    q = sharp(rng, (2, heads, 241, d), dtype)
    k = sharp(rng, (2, kv_heads, 241, d), dtype)
    v = values(rng, (2, kv_heads, 241, d), dtype)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": PA_ENCODER,
             "inputLayout": 1}
    out, = run_case(atbx, tmp_path, param, [q, k, v, int32([q_lens, kv_lens])], [("out.npy", dtype)])
    out = out.reshape(q.array.shape)
    for b in range(2):
        golden = pa_encoder(q.values()[b, :, :q_lens[b]].transpose(1, 0, 2),
                            k.values()[b, :, :kv_lens[b]].transpose(1, 0, 2),
                            v.values()[b, :, :kv_lens[b]].transpose(1, 0, 2), [q_lens[b]], [kv_lens[b]],
                            1 / math.sqrt(d))
        assert_precision(out[b, :, :q_lens[b]].transpose(1, 0, 2), golden, dtype, d, max(kv_lens))
        assert (out[b, :, q_lens[b]:] == 0).all()


@pytest.mark.parametrize("platform", ["atlas-inference", "atlas-training"])
def test_nz_products_pad_the_tokens(atbx, tmp_path, platform):
    """Atlas inference / training PA_ENCODER: the packed tokens are padded to a multiple of 16 (the padding rows
    of the output are zeros) and the mask is FRACTAL_NZ [1, S/16, S, 16] (docs/spec/self_attention.md 3.10)."""
    rng = np.random.default_rng(41)
    heads, kv_heads, d = 4, 2, 64
    lens = [9, 20]
    rows = 32
    q = sharp(rng, (rows, heads, d), "float16")
    k = sharp(rng, (rows, kv_heads, d), "float16")
    v = values(rng, (rows, kv_heads, d), "float16")
    full = causal_term(32, 32, hidden=-10000.0)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": PA_ENCODER,
             "maskType": MASK_NORM}
    inputs = [q, k, v, Tensor(to_nz(full[None]), "float16", "FRACTAL_NZ"), int32(lens)]
    out, = run_case(atbx, tmp_path, param, inputs, [("out.npy", "float16")], platform=platform)
    golden = pa_encoder(q.values(), k.values(), v.values(), lens, lens, 1 / math.sqrt(d),
                        lambda b, h, ql, kv: full[:ql, :kv], out_rows=rows)
    assert_precision(out.reshape(golden.shape), golden, "float16", d, max(lens))


def test_atlas_350_integer_mask(atbx, tmp_path):
    """Atlas 350 (aclnn path): an int8 NORM mask, 1 hides the key."""
    rng = np.random.default_rng(42)
    heads, d, lens = 4, 64, [33, 17]
    q = sharp(rng, (sum(lens), heads, d), "bfloat16")
    k = sharp(rng, (sum(lens), heads, d), "bfloat16")
    v = values(rng, (sum(lens), heads, d), "bfloat16")
    hide = (causal_term(33, 33, hidden=1.0) > 0).astype(np.int8)
    param = {"headNum": heads, "qkScale": 1 / math.sqrt(d), "calcType": PA_ENCODER, "maskType": MASK_NORM}
    out, = run_case(atbx, tmp_path, param, [q, k, v, Tensor(hide, "int8"), int32(lens)], [("out.npy", "bfloat16")],
                    platform="atlas-350")
    golden = pa_encoder(q.values(), k.values(), v.values(), lens, lens, 1 / math.sqrt(d),
                        lambda b, h, ql, kv: hide[:ql, :kv] * FLAG)
    assert_precision(out.reshape(golden.shape), golden, "bfloat16", d, max(lens))


def test_alibi_sign_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that flips the sign of the ALiBi bias (the slopes taken as given
    instead of negated, as the compressed tile's sign convention asks)."""
    def flipped(term):
        def wrong(b, h, q, kv):
            t = term(b, h, q, kv)
            return np.where(np.isinf(t), t, -t)
        return wrong
    with pytest.raises(AssertionError, match="elements over eps"):
        encoder_case(atbx, tmp_path, dtype="bfloat16", heads=5, kv_heads=1, q_lens=(200,), mask="alibi_compress",
                     mask_type=MASK_ALIBI_COMPRESS, seed=43, wrong_term=flipped)


def nz_product_masks(kind, heads, rows):
    """(mask tensor, extra inputs after seqLen, golden term) of the Atlas inference mask forms (docs/spec/self_attention.md
    3.4, 3.5): every NZ tensor is FRACTAL_NZ [X, cols / 16, rows, 16] of the ND mask; masks are additive."""
    slopes = alibi_slopes(heads)
    if kind == "compress128":
        return Tensor(to_nz(causal_term(128, 128, hidden=-10000.0)[None]), "float16", "FRACTAL_NZ"), [], \
            lambda b, h, q, kv: causal_term(q, kv, hidden=-10000.0)
    if kind == "compress2048":
        return Tensor(causal_term(2048, 2048, hidden=-10000.0), "float16"), [], \
            lambda b, h, q, kv: causal_term(q, kv, hidden=-10000.0)
    if kind == "alibi256":
        r, c = np.arange(256)[:, None], np.arange(256)[None, :]
        tile = np.where(c > r, (r - c) + 60000.0, (r - c).astype(np.float64))
        slopes16 = round_to(-slopes, "float16")
        return Tensor(to_nz(tile[None]), "float16", "FRACTAL_NZ"), [Tensor(-slopes, "float16")], \
            lambda b, h, q, kv: alibi_term(-slopes16[h], q, kv)
    if kind == "alibi_columns":
        full = round_to(np.stack([alibi_term(s, rows, rows) for s in slopes]), "float16")
        full = np.where(np.isinf(full), -10000.0, full)
        return Tensor(to_nz(full[:, :, :128]), "float16", "FRACTAL_NZ"), [Tensor(np.zeros(heads), "float16")], \
            lambda b, h, q, kv: full[h, :q, :kv]
    if kind == "swa":
        full = causal_term(rows, rows, hidden=-10000.0, window=40)
        return Tensor(to_nz(full[None]), "float16", "FRACTAL_NZ"), [], lambda b, h, q, kv: full[:q, :kv]
    if kind == "swa_compress":
        tile = causal_term(512, 512, hidden=-10000.0, window=40)
        return Tensor(to_nz(tile[None]), "float16", "FRACTAL_NZ"), [], \
            lambda b, h, q, kv: causal_term(q, kv, hidden=-10000.0, window=40)
    raise ValueError(kind)


@pytest.mark.parametrize("kind,mask_type", [
    ("compress128", MASK_NORM_COMPRESS), ("compress2048", MASK_NORM_COMPRESS), ("alibi256", MASK_ALIBI_COMPRESS),
    ("alibi_columns", MASK_ALIBI_COMPRESS), ("swa", MASK_SWA_NORM), ("swa_compress", MASK_SWA_COMPRESS)])
def test_atlas_inference_mask_forms(atbx, tmp_path, kind, mask_type):
    """Atlas inference PA_ENCODER with its NZ / compressed mask forms (CSV rows 302-306: GQA, alibi, SWA W=40)."""
    rng = np.random.default_rng(44)
    heads, kv_heads, d = 4, 2, 64
    lens = [150, 23]
    rows = 176  # roundup16(173)
    q = sharp(rng, (rows, heads, d), "float16")
    k = sharp(rng, (rows, kv_heads, d), "float16")
    v = values(rng, (rows, kv_heads, d), "float16")
    tensor, after, term = nz_product_masks(kind, heads, 160)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": PA_ENCODER,
             "maskType": mask_type, "isTriuMask": 1 if "compress" in kind or "alibi" in kind else 0,
             "windowSize": 40 if "swa" in kind else 0}
    out, = run_case(atbx, tmp_path, param, [q, k, v, tensor, int32(lens)] + after, [("out.npy", "float16")],
                    platform="atlas-inference")
    golden = pa_encoder(q.values(), k.values(), v.values(), lens, lens, 1 / math.sqrt(d), term, out_rows=rows)
    assert_precision(out.reshape(golden.shape), golden, "float16", d, max(lens))
