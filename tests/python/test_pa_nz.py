"""Atlas inference (310P) and Atlas training (910A) profiles through case files against the NumPy golden:
FRACTAL_NZ caches [NB, Hk*D/16, BS, 16] and NZ masks, fp16 logN, parallel decoding with NZ SPEC masks, MASK_FREE
and NORM_COMPRESS (docs/spec/paged_attention.md 2.3, 3.5); ATB's _310p.py, _310p_alibi.py, _910A.py,
_parallel_decoding_310P*.py and kernelstest 910A / 310P mask-free grids, shapes reduced. Also the layout
equivalence: the same logical data as BSND, BNSD and NZ caches gives the same output."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import LONG, build, cache_tensor, mask_free_tile, norm_compress, nz_alibi, nz_norm, nz_spec, \
    run_and_check

INFERENCE, TRAINING = "atlas-inference", "atlas-training"


def nz_call(rng, heads, kv_heads, head_dim, block_size, lens, platform, **more):
    return build(rng, heads, kv_heads, head_dim, block_size, lens, "float16", layout="NZ", platform=platform, **more)


# _310p.py / _310p_alibi.py (ATB: T=2, 32/32, D=128, BS=32, NB=64, ctx 500, U(+-5) data, fp16 logN) and _910A.py
# plus kernelstest 910A (no mask, NORM NZ [2, S/16, 16, 16], ALIBI NZ [B*H, S/16, 16, 16]; T=13, BS=128 ALIBI).
@pytest.mark.parametrize("platform,mask,logn,lens,block_size", [
    (INFERENCE, None, True, [500, 500], 32),
    (INFERENCE, nz_alibi, True, [500, 500], 32),
    (TRAINING, None, False, [500, 500], 32),
    (TRAINING, nz_norm, False, [500, 233], 32),
    (TRAINING, nz_alibi, False, [500, 71], 32),
    (TRAINING, nz_alibi, False, [200] * 13, 128),
])
def test_decode_nz(atbx, tmp_path, platform, mask, logn, lens, block_size):
    rng = np.random.default_rng(1000 + len(lens) + block_size)
    call = nz_call(rng, 8, 8, 64, block_size, lens, platform, mask=mask, logn=logn)
    run_and_check(atbx, tmp_path, call)


# _310p.py's qScale test and GQA on NZ caches.
def test_decode_nz_gqa_q_scale(atbx, tmp_path):
    rng = np.random.default_rng(1010)
    run_and_check(atbx, tmp_path, nz_call(rng, 6, 2, 48, 16, [33, 1, 70], INFERENCE, q_scale=0.7))


# _parallel_decoding_310P.py (ATB: B=4, q in [1, 128], L in [128, 256], 8/8, D=128, BS=128, SPEC NZ mask
# [1, 16, T_pad, 16] with -60000 triangles); SPEC without a mask.
@pytest.mark.parametrize("mask", [nz_spec, None])
def test_parallel_decoding_nz(atbx, tmp_path, mask):
    rng = np.random.default_rng(1020)
    q_lens = [int(q) for q in rng.integers(1, 40, 4)]
    lens = [int(n) for n in rng.integers(128, 257, 4)]
    run_and_check(atbx, tmp_path, nz_call(rng, 4, 4, 64, 128, lens, INFERENCE, q_lens=q_lens, mask=mask))


# _parallel_decoding_310P_mask_free.py (B=1, 4/1, D=48, q=214, L=342) and kernelstest 310P mask-free: batch in
# {1, 2} x (H, Hk) in {(8, 8), (7, 1)} x D in {64, 128} x extra in {1, 11}, q = 128 + e, L = 256 + e, BS 128.
MASK_FREE = [(1, 4, 1, 48, 0, 214, 342)] + [
    (batch, heads, kv_heads, d, extra, 128 + extra, 256 + extra)
    for batch, (heads, kv_heads), d, extra in [(1, (8, 8), 64, 1), (1, (7, 1), 128, 11), (2, (4, 4), 64, 11)]]
if LONG:
    MASK_FREE += [(b, h, k, d, e, 128 + e, 256 + e) for b in (1, 2) for h, k in ((8, 8), (7, 1)) for d in (64, 128)
                  for e in (1, 11)]


@pytest.mark.parametrize("batch,heads,kv_heads,head_dim,extra,q_len,length", MASK_FREE)
def test_mask_free(atbx, tmp_path, batch, heads, kv_heads, head_dim, extra, q_len, length):
    rng = np.random.default_rng(1030 + batch + heads + extra)
    call = nz_call(rng, heads, kv_heads, head_dim, 128, [length] * batch, INFERENCE, q_lens=[q_len] * batch,
                   mask=mask_free_tile)
    run_and_check(atbx, tmp_path, call)


# NORM_COMPRESS (no ATB test): causal with prefix max(0, L - q), a context beyond 2048, L == q.
def test_norm_compress(atbx, tmp_path):
    rng = np.random.default_rng(1040)
    call = nz_call(rng, 2, 1, 32, 128, [2100, 40, 9], INFERENCE, q_lens=[3, 40, 2], mask=norm_compress)
    run_and_check(atbx, tmp_path, call)


def test_mask_free_without_prefix_fails(atbx, tmp_path):
    """Applying the MASK_FREE tile without the prefix shift L_b - q_b misses the precision."""
    rng = np.random.default_rng(1041)
    call = nz_call(rng, 2, 1, 32, 128, [133, 140], INFERENCE, q_lens=[5, 12], mask=mask_free_tile)
    out = call.run(atbx, tmp_path)
    call.check(out)
    # The same tile read from query row i without the shift: key j hidden iff j > i, as an explicit SPEC mask.
    unshifted = np.zeros((17, 140))
    for row, i in enumerate(list(range(5)) + list(range(12))):
        unshifted[row, i + 1:] = -60000
    with pytest.raises(AssertionError):
        call.check(out, call.golden(param={"maskType": 3}, tensors={"mask": Tensor(unshifted, "float16")}))


def test_layouts_are_equivalent(atbx, tmp_path):
    """One logical cache [NB, BS, Hk, D] as BSND, BNSD (atlas-a2) and NZ (atlas-inference) caches."""
    rng = np.random.default_rng(1050)
    bsnd = build(rng, 6, 2, 32, 16, [45, 1, 30], "float16")
    key = bsnd.tensors["keyCache"].values()
    value = bsnd.tensors["valueCache"].values()
    outputs = []
    for layout, platform in (("BSND", "atlas-a2"), ("BNSD", "atlas-a2"), ("NZ", INFERENCE)):
        call = build(rng, 6, 2, 32, 16, [45, 1, 30], "float16", layout=layout, platform=platform)
        call.tensors.update(query=bsnd.tensors["query"], blockTables=bsnd.tensors["blockTables"],
                            keyCache=cache_tensor(key, layout, "float16"),
                            valueCache=cache_tensor(value, layout, "float16"))
        out = call.run(atbx, tmp_path / layout)
        call.check(out, bsnd.golden())
        outputs.append(out)
    assert np.array_equal(outputs[0], outputs[1])
    assert np.array_equal(outputs[0], outputs[2])
