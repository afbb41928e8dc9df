"""BNSD caches and skipped batches through case files against the NumPy golden (docs/spec/paged_attention.md 2.2, 3.10;
DECISIONS 3): ATB's BNSD op tests, the BS = D = 256 BSND case and the kernelstest dynamic-batch grids, shapes
reduced. Batches with contextLens 0 or batchRunStatus 0 take no query or output row; output rows no batch
writes keep their initial contents (zeros, as `atbx run` allocates them)."""
import numpy as np
import pytest

from pa_cases import LONG, alibi4, build, norm3, run_and_check


# _range_5.py BNSD x {no mask, norm} x {fp16, bf16} (ATB: T=2, 32/16, BS=128, ctx 256); _BNSD.py (ATB: T=16,
# 40/10, D=128, ctx 3000, bf16, NORM); kernelstest BNSD (T=2, 32/32, ctx 500, bf16, NORM).
@pytest.mark.parametrize("heads,kv_heads,lens,dtype,mask", [
    (8, 4, [256, 256], "float16", None),
    (8, 4, [256, 256], "bfloat16", None),
    (8, 4, [256, 256], "float16", norm3),
    (8, 4, [256, 256], "bfloat16", norm3),
    (8, 2, [300] * 4, "bfloat16", norm3),
    (8, 8, [500, 500], "bfloat16", norm3),
])
def test_bnsd(atbx, tmp_path, heads, kv_heads, lens, dtype, mask):
    rng = np.random.default_rng(1100 + heads + kv_heads + len(lens))
    run_and_check(atbx, tmp_path, build(rng, heads, kv_heads, 64, 128, lens, dtype, layout="BNSD", mask=mask))


# _BSND_910B.py: block_size = head_size = 256 (ATB: T=16, 40/10, ctx 3000, bf16, NORM).
def test_block_size_256_head_size_256(atbx, tmp_path):
    rng = np.random.default_rng(1110)
    lens = [3000, 3000] if LONG else [600, 300]
    run_and_check(atbx, tmp_path, build(rng, 8, 2, 256, 256, lens, "bfloat16", mask=norm3))


# kernelstest dynamic batch (ALIBI; ATB: status [1,0,1,0,1,1]*5 with ctx [2028,0,707,0,15,1]*5, 32/32 and 32/1;
# 8/8 BS 64 ctx [6,0,7,0,9,10]*5; bf16 2/1 BS 64 ctx [16382,0,1,33]) and BNSD dynamic (8/2, ctx
# [12,0,13,0,15,1]*5, bf16, NORM).
@pytest.mark.parametrize("heads,kv_heads,block_size,lens,dtype,layout,mask", [
    (4, 4, 128, [228, 0, 77, 0, 15, 1] * 5, "float16", "BSND", alibi4),
    (8, 1, 128, [228, 0, 77, 0, 15, 1] * 5, "float16", "BSND", alibi4),
    (8, 8, 64, [6, 0, 7, 0, 9, 10] * 5, "float16", "BSND", alibi4),
    (2, 1, 64, [1638, 0, 1, 33], "bfloat16", "BSND", alibi4),
    (8, 2, 128, [12, 0, 13, 0, 15, 1] * 5, "bfloat16", "BNSD", norm3),
])
def test_dynamic_batch(atbx, tmp_path, heads, kv_heads, block_size, lens, dtype, layout, mask):
    rng = np.random.default_rng(1120 + heads + len(lens))
    status = [int(n > 0) for n in lens]
    call = build(rng, heads, kv_heads, 64, block_size, lens, dtype, layout=layout, mask=mask, status=status)
    run_and_check(atbx, tmp_path, call)


# DECISIONS 3: a batch with a context but status 0 is skipped too; contexts of 0 without batchRunStatus skip.
@pytest.mark.parametrize("lens,status", [
    ([40, 33, 0, 17, 9], [1, 0, 1, 1, 0]),
    ([40, 0, 17, 0], None),
])
def test_skipped_batches(atbx, tmp_path, lens, status):
    rng = np.random.default_rng(1130 + len(lens))
    run_and_check(atbx, tmp_path, build(rng, 6, 3, 32, 16, lens, "float16", mask=norm3, status=status))


def test_rows_past_the_running_batches_are_untouched(atbx, tmp_path):
    """T = B rows for three batches of which two run: the last output row keeps its initial zeros."""
    rng = np.random.default_rng(1140)
    call = build(rng, 4, 2, 32, 16, [25, 0, 12], "bfloat16", spare_rows=1)
    out = run_and_check(atbx, tmp_path, call)
    assert np.all(out[2] == 0.0)
