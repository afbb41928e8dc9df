"""Parallel / speculative decoding (calcType SPEC) through case files against the NumPy golden (docs/spec/paged_attention.md
3.6): ATB's lookahead, bf16 lookahead and parallel-decoding grids with SPEC masks [T, S] and square NORM masks,
rows packed per batch, batches with one query token on the same math; shapes reduced. Includes a test showing
that a misread SPEC mask fails the comparison."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import LONG, build, norm_per_batch, norm_square, run_and_check, spec_triangle

# (heads, kv_heads, head_dim, block_size, q_lens, lens, mask, dtype)
GRID = [
    # _parallel_decoding_910B.py and lookahead (ATB: 32/32, BS 128 and 16)
    (4, 4, 128, 128, [1, 15, 30, 6], [10, 64, 64, 64], spec_triangle, "float16"),
    (4, 4, 128, 16, [1, 15, 30, 6], [10, 64, 64, 64], spec_triangle, "float16"),
    # lookahead, one token per batch, long contexts (ATB: H=40, L=[13333, 23333, 33331])
    (5, 5, 64, 128, [1, 1, 1], [1333, 2333, 331], spec_triangle, "float16"),
    # lookahead with the square NORM mask (ATB: q=[15, 103, 1024], L=[64, 103, 1025], BS 32)
    (2, 2, 64, 32, [15, 103, 200], [64, 103, 201], norm_square, "float16"),
    # lookahead, H=1 (ATB: q=[256, 256, 15], L=[512, 512, 2048])
    (1, 1, 128, 128, [64, 64, 15], [128, 128, 512], spec_triangle, "float16"),
    # bf16 lookahead at BS 128 and 16
    (4, 4, 128, 128, [1, 4, 9], [15, 14, 29], spec_triangle, "bfloat16"),
    (4, 4, 128, 16, [1, 4, 9], [15, 14, 29], spec_triangle, "bfloat16"),
    (2, 2, 64, 128, [64, 64, 15], [128, 128, 512], spec_triangle, "bfloat16"),
    # GQA with odd sizes and a batch without context
    (6, 2, 40, 16, [3, 2, 7, 1], [19, 0, 40, 5], spec_triangle, "float16"),
    (6, 3, 24, 16, [5, 1, 12], [33, 7, 12], norm_square, "bfloat16"),
    # a 3-D NORM mask [B, S, S] (DECISIONS 5)
    (4, 2, 32, 16, [6, 1, 9], [30, 12, 25], norm_per_batch, "float16"),
]
if LONG:
    GRID += [
        (32, 32, 128, 128, [1, 15, 30, 6], [10, 64, 64, 64], spec_triangle, "float16"),
        (1, 1, 128, 128, [1, 1, 1], [13333, 23333, 33331], spec_triangle, "float16"),
        (4, 4, 128, 32, [15, 103, 1024], [64, 103, 1025], norm_square, "float16"),
        (1, 1, 128, 128, [256, 256, 15], [512, 512, 2048], spec_triangle, "bfloat16"),
    ]


@pytest.mark.parametrize("heads,kv_heads,head_dim,block_size,q_lens,lens,mask,dtype", GRID)
def test_parallel_decoding(atbx, tmp_path, heads, kv_heads, head_dim, block_size, q_lens, lens, mask, dtype):
    rng = np.random.default_rng(sum(q_lens) + sum(lens))
    call = build(rng, heads, kv_heads, head_dim, block_size, lens, dtype, q_lens=q_lens, mask=mask)
    run_and_check(atbx, tmp_path, call)


def test_spec_mask_misread_by_row_fails(atbx, tmp_path):
    """Reading SPEC mask row i instead of the packed row cu_b + i misses the precision."""
    rng = np.random.default_rng(600)
    call = build(rng, 4, 2, 32, 16, [30, 40, 25], q_lens=[6, 9, 4], mask=spec_triangle)
    out = call.run(atbx, tmp_path)
    call.check(out)
    m = call.tensors["mask"].values()
    unpacked = np.concatenate([m[0:6], m[0:9], m[0:4]])  # row i of every batch
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors={"mask": Tensor(unpacked, "float16")}))
