"""Quantisation through case files against the NumPy golden: DEQUANT_FUSION int8 caches (docs/spec/paged_attention.md 3.7;
fp32 and int64 descales, with and without offsets) and int8 QKV ONLINE / OFFLINE (3.8; [H] descales, P quantised
per tile of 128 keys, outDataType); ATB's _range_5.py, _QKV_quant.py, _mla_quant.py, kernelstest dequant, QKV and
bf16_quant_001 grids, shapes reduced. Includes tests showing that a misread descale or offset fails."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import DEQUANT, LONG, QKV_OFFLINE, QKV_ONLINE, alibi4, build, norm3, run_and_check

CTX_LIST = [600, 300, 1400, 33, 65, 1, 16, 1400, 300]  # ATB: [3000, 300, 14000, 33, 65, 1, 16, 14000, 300]
if LONG:
    CTX_LIST = [3000, 300, 14000, 33, 65, 1, 16, 14000, 300]


# _range_5.py dequant x {no mask, norm, alibi4} x {fp16 + int64 descale, bf16 + fp32 descale} with offsets
# (ATB: T=2, 32/16, D=128, BS=128, ctx 256).
@pytest.mark.parametrize("dtype,descale", [("float16", "int64"), ("bfloat16", "float32")])
@pytest.mark.parametrize("mask", [None, norm3, alibi4])
def test_dequant_range_5(atbx, tmp_path, dtype, descale, mask):
    rng = np.random.default_rng(800)
    call = build(rng, 8, 4, 128, 128, [256, 256], dtype, quant=DEQUANT, offsets=True, descale=descale, mask=mask,
                 qk_scale=0.03)
    run_and_check(atbx, tmp_path, call)


# kernelstest dequant: (heads, kv_heads, lens, dtype, descale, offsets, mask).
DEQUANT_GRID = [
    (8, 8, [200] * 6, "float16", "int64", False, alibi4),           # cube, int64 (ATB: T=24, ctx 1024, BS 128)
    (8, 8, [256 + i for i in range(6)], "float16", "float32", False, norm3),  # vec (ATB: T=24, ctx 256+i)
    (8, 1, [200] * 4, "bfloat16", "float32", False, norm3),         # bf16 GQA (ATB: T=16)
    (24, 1, [513], "bfloat16", "float32", False, norm3),            # (ATB: T=1, ctx 513+i, NB 2048)
    (8, 1, [200] * 4, "float16", "float32", True, None),            # fp16 GQA with offsets (ATB: T=16)
    (8, 8, [256], "float16", "float32", False, None),               # split-KV (ATB: T=1, ctx 256 and 1780)
    (8, 8, [1780], "float16", "float32", True, None),
    (8, 8, [34] * 4, "float16", "float32", True, norm3),            # _dequant.py (ATB: T=4, 8/8, ctx 34)
]


@pytest.mark.parametrize("heads,kv_heads,lens,dtype,descale,offsets,mask", DEQUANT_GRID)
def test_dequant_grid(atbx, tmp_path, heads, kv_heads, lens, dtype, descale, offsets, mask):
    rng = np.random.default_rng(810 + sum(lens))
    # int64 descales need block_size <= head_size (docs/spec/paged_attention.md 3.7): the head size is reduced, so is the block.
    block_size = 64 if descale == "int64" else 128
    call = build(rng, heads, kv_heads, 64, block_size, lens, dtype, quant=DEQUANT, offsets=offsets, descale=descale,
                 mask=mask, qk_scale=0.04, repeats=True)
    run_and_check(atbx, tmp_path, call)


# bf16_quant_001: a bf16 int8-KV NORM sweep over contexts.
def test_dequant_bf16_context_sweep(atbx, tmp_path):
    rng = np.random.default_rng(820)
    call = build(rng, 4, 2, 64, 128, [128, 513, 309, 766, 768, 1024, 1025], "bfloat16", quant=DEQUANT, mask=norm3,
                 qk_scale=0.06)
    run_and_check(atbx, tmp_path, call)


# QKV quant: (mode, out_dtype, heads, kv_heads, head_dim, block_size, lens, mask, mla_v).
QKV_GRID = [
    (QKV_ONLINE, "float16", 8, 2, 128, 128, CTX_LIST, norm3, 0),      # _range_5.py ONLINE (ATB: 32/2)
    (QKV_ONLINE, "bfloat16", 8, 2, 128, 128, CTX_LIST, norm3, 0),     # _QKV_quant.py, kernelstest ONLINE bf16
    (QKV_ONLINE, "bfloat16", 8, 2, 128, 128, CTX_LIST, None, 0),      # kernelstest, no mask
    (QKV_OFFLINE, "float16", 2, 2, 128, 16, CTX_LIST, norm3, 0),      # _range_5.py / kernelstest OFFLINE
    (QKV_OFFLINE, "bfloat16", 2, 2, 128, 16, CTX_LIST, norm3, 0),
    (QKV_ONLINE, "bfloat16", 8, 1, 128, 16, [2000], None, 0),        # (ATB: ctx 32768, D=128 and D=133)
    (QKV_ONLINE, "bfloat16", 8, 1, 133, 16, [2000], None, 0),
    # _mla_quant.py (ATB: T=10, H=20, ctx 1345; T=9, H=128, the ctx list, norm3) and kernelstest MLA QKV
    (QKV_ONLINE, "bfloat16", 5, 1, 576, 128, [400] * 4, None, 512),
    (QKV_OFFLINE, "float16", 5, 1, 576, 128, [400] * 4, None, 512),
    (QKV_OFFLINE, "bfloat16", 8, 1, 576, 128, CTX_LIST[:5], norm3, 512),
    (QKV_ONLINE, "float16", 5, 1, 290, 128, [300] * 6, None, 130),   # unaligned Dk 290 / Dv 130 (ATB: 25 heads)
]


@pytest.mark.parametrize("mode,out_dtype,heads,kv_heads,head_dim,block_size,lens,mask,mla_v", QKV_GRID)
def test_qkv_quant(atbx, tmp_path, mode, out_dtype, heads, kv_heads, head_dim, block_size, lens, mask, mla_v):
    rng = np.random.default_rng(830 + heads + head_dim + mode)
    call = build(rng, heads, kv_heads, head_dim, block_size, lens, quant=mode, out_dtype=out_dtype, mask=mask,
                 mla_v=mla_v, repeats=True)
    run_and_check(atbx, tmp_path, call)


# _mla_quant.py dynamic batch (random status).
@pytest.mark.parametrize("mode", [QKV_ONLINE, QKV_OFFLINE])
def test_qkv_quant_mla_dynamic_batch(atbx, tmp_path, mode):
    rng = np.random.default_rng(840 + mode)
    status = [1, 0, 1, 1, 0, 1]
    lens = [300 * s for s in status]
    call = build(rng, 4, 1, 576, 128, lens, quant=mode, out_dtype="bfloat16", mla_v=512, status=status)
    run_and_check(atbx, tmp_path, call)


def test_dequant_ignoring_offsets_fails(atbx, tmp_path):
    rng = np.random.default_rng(850)
    call = build(rng, 4, 2, 64, 16, [70, 45], quant=DEQUANT, offsets=True, qk_scale=0.04)
    out = call.run(atbx, tmp_path)
    call.check(out)
    zero = Tensor(np.zeros(2 * 64), "int32")
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors={"kOffset": zero, "vOffset": zero}))


def test_qkv_descale_of_the_kv_head_fails(atbx, tmp_path):
    """kDescale and vDescale are per query head: reading them per kv head misses the precision."""
    rng = np.random.default_rng(851)
    call = build(rng, 4, 1, 64, 16, [300, 140], quant=QKV_ONLINE, out_dtype="float16", mask=norm3)
    out = call.run(atbx, tmp_path)
    call.check(out)
    per_kv_head = {name: Tensor(np.full(4, call.tensors[name].values()[0]), "float32")
                   for name in ("kDescale", "vDescale")}
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors=per_kv_head))
