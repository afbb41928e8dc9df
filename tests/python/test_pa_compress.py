"""KV-head compression through case files against the NumPy golden (docs/spec/paged_attention.md 3.3-3.5): one sequence per
(batch, kv head) at contextLens/blockTables row b*Hk + k, masks read at the original batch and head, int8 caches
dequantised by the logical kv head, the razor offset of KVHEAD_ROPE added before the scale; ATB's
_compress_head.py, _compress_head_rope.py and kernelstest compress + razor + int8 grids, shapes reduced."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import DEQUANT, LONG, alibi3, alibi4, build, norm3, run_and_check

KVHEAD, KVHEAD_ROPE = 1, 2


def pair_lens(rng, batch, kv_heads, low, high):
    """contextLens of every (batch, kv head) pair: each head keeps its own number of tokens."""
    return [int(n) for n in rng.integers(low, high, batch * kv_heads)]


# _compress_head.py (ATB: T=1, 8/8, D=128, BS=128, NORM norm3, ctx 256 per pair), with each mask kind.
@pytest.mark.parametrize("mask", [None, norm3, alibi3, alibi4])
def test_compress_head(atbx, tmp_path, mask):
    rng = np.random.default_rng(900)
    lens = pair_lens(rng, 2, 8, 1, 256)
    call = build(rng, 8, 8, 128, 128, lens, compress=KVHEAD, mask=mask)
    run_and_check(atbx, tmp_path, call)


def test_compress_head_rejects_an_empty_pair(atbx, tmp_path):
    """ATB packs query rows per (batch, kv head) pair: an empty pair would shift the later pairs' queries."""
    rng = np.random.default_rng(901)
    lens = [40, 0, 17, 90, 5, 33]  # batch 0, kv head 1 has no tokens
    result = build(rng, 9, 3, 64, 16, lens, compress=KVHEAD, mask=alibi3).execute(atbx, tmp_path)
    assert result.returncode == 2
    assert "pa.host.compress_all_sequences_run" in result.stderr


# _compress_head_rope.py (ATB: T=7, 36/4, D=128, BS=128, K [512, 128, 1, 128], ctx 4097, razorOffset).
def test_compress_head_rope(atbx, tmp_path):
    rng = np.random.default_rng(902)
    lens = pair_lens(rng, 3, 4, 200, 500)
    if LONG:
        lens = [4097] * 28
    call = build(rng, 36, 4, 64, 128, lens, compress=KVHEAD_ROPE, razor=True, qk_scale=0.2)
    run_and_check(atbx, tmp_path, call)


# kernelstest compress + razor + int8 (ATB: 48/16 ctx 4357 and 48/16, 16/16, 48/16 at T 7, 9, 3, 3; D=128,
# BS=128, NB=128*Hk, int64 descales with and without offsets); int8 with compression needs an fp16 query.
@pytest.mark.parametrize("heads,kv_heads,batch,offsets,rope", [
    (12, 4, 2, True, True),
    (12, 4, 3, False, True),
    (4, 4, 3, True, False),
    (12, 4, 3, False, False),
])
def test_compress_int8(atbx, tmp_path, heads, kv_heads, batch, offsets, rope):
    rng = np.random.default_rng(910 + heads + batch)
    lens = pair_lens(rng, batch, kv_heads, 1, 450)
    call = build(rng, heads, kv_heads, 128, 128, lens, "float16", compress=KVHEAD_ROPE if rope else KVHEAD,
                 razor=rope, quant=DEQUANT, offsets=offsets, descale="int64", qk_scale=0.03)
    run_and_check(atbx, tmp_path, call)


def test_razor_after_the_scale_fails(atbx, tmp_path):
    """The razor offset is added to the raw score: adding it after the scale misses the precision."""
    rng = np.random.default_rng(920)
    call = build(rng, 4, 2, 32, 16, [60, 44, 20, 51], compress=KVHEAD_ROPE, razor=True, qk_scale=0.2)
    out = call.run(atbx, tmp_path)
    call.check(out)
    scaled = Tensor(call.tensors["razorOffset"].values() * 5.0, "float32")  # offset / scale, added after it
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors={"razorOffset": scaled}))
