"""PagedAttention masks through case files against the NumPy golden (docs/spec/paged_attention.md 3.5): ATB's NORM and
ALIBI grids (kernelstest common, opstest _mask.py), the standard ALiBi slopes, shared and square 2-D masks, masks
larger than needed, logN; shapes reduced. Includes tests showing that a misread mask fails the comparison."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import LONG, alibi3, alibi4, alibi4_random_slopes, build, norm3, norm_shared, norm_square, \
    run_and_check

# kernelstest common NORM (ATB: 40/40 bf16 ctx 30000; ctx 15; ctx 200; H=Hk=1 BS=256 D=256 ctx 512) and
# opstest _mask.py (32/32, D=288, random V head, ctx 128).
NORM_GRID = [
    dict(heads=5, kv_heads=5, head_dim=128, block_size=128, lens=[400] * 3, dtype="bfloat16"),
    dict(heads=4, kv_heads=4, head_dim=128, block_size=128, lens=[15] * 4, dtype="float16"),
    dict(heads=6, kv_heads=6, head_dim=128, block_size=128, lens=[200] * 6, dtype="float16"),
    dict(heads=1, kv_heads=1, head_dim=256, block_size=256, lens=[512], dtype="float16"),
    dict(heads=8, kv_heads=8, head_dim=288, block_size=128, lens=[128], dtype="float16", head_dim_v=77),
]
# kernelstest common ALIBI with the alibi4 mask (ATB: 32/32 ctx 500; 13 rows 32/32 ctx 200; GQA 8/1; 127/1;
# 30/2; odd 33/33 over 20 blocks; 32/2 ctx 2048; split-KV 12/1 ctx 16390; 8/8 bf16 ctx 1780; 16/16 D=256 BS=64
# ctx 1780; 12/1 ctx 32768).
ALIBI_GRID = [
    dict(heads=8, kv_heads=8, head_dim=128, block_size=128, lens=[500] * 2, dtype="bfloat16"),
    dict(heads=4, kv_heads=4, head_dim=64, block_size=128, lens=[200] * 13, dtype="bfloat16"),
    dict(heads=8, kv_heads=1, head_dim=64, block_size=128, lens=[200] * 13, dtype="float16"),
    dict(heads=127, kv_heads=1, head_dim=32, block_size=128, lens=[88] * 4, dtype="float16"),
    dict(heads=30, kv_heads=2, head_dim=32, block_size=128, lens=[88] * 6, dtype="float16"),
    dict(heads=33, kv_heads=33, head_dim=16, block_size=128, lens=[88] * 3, dtype="float16", extra_blocks=15),
    dict(heads=32, kv_heads=2, head_dim=32, block_size=128, lens=[2048] * 2, dtype="float16"),
    dict(heads=12, kv_heads=1, head_dim=64, block_size=128, lens=[2050], dtype="float16"),
    dict(heads=8, kv_heads=8, head_dim=64, block_size=128, lens=[1780], dtype="bfloat16"),
    dict(heads=4, kv_heads=4, head_dim=256, block_size=64, lens=[300], dtype="float16"),
]
if LONG:  # ATB's contexts; heads reduced to keep each cache within a few million elements
    NORM_GRID += [dict(heads=2, kv_heads=1, head_dim=128, block_size=128, lens=[30000], dtype="bfloat16")]
    ALIBI_GRID += [
        dict(heads=12, kv_heads=1, head_dim=128, block_size=128, lens=[16390], dtype="float16"),
        dict(heads=12, kv_heads=1, head_dim=128, block_size=128, lens=[32768], dtype="float16"),
        dict(heads=8, kv_heads=8, head_dim=256, block_size=64, lens=[1780], dtype="float16"),
    ]


def build_from(case, seed, **more):
    case = dict(case)
    rng = np.random.default_rng(seed)
    return build(rng, case.pop("heads"), case.pop("kv_heads"), case.pop("head_dim"), case.pop("block_size"),
                 case.pop("lens"), case.pop("dtype"), repeats=True, **case, **more)


@pytest.mark.parametrize("index", range(len(NORM_GRID)))
def test_norm_grid(atbx, tmp_path, index):
    run_and_check(atbx, tmp_path, build_from(NORM_GRID[index], 100 + index, mask=norm3))


@pytest.mark.parametrize("index", range(len(ALIBI_GRID)))
def test_alibi_grid(atbx, tmp_path, index):
    run_and_check(atbx, tmp_path, build_from(ALIBI_GRID[index], 200 + index, mask=alibi4))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mask", [norm_shared, norm_square, alibi3, alibi4_random_slopes])
def test_mask_shapes(atbx, tmp_path, dtype, mask):
    rng = np.random.default_rng(300)
    run_and_check(atbx, tmp_path, build(rng, 6, 2, 48, 16, [33, 70, 1, 18], dtype, mask=mask))


# kernelstest LOGN (ATB: 30 rows, 32/32, ctx 69, bf16, NORM, logN U(1, 2)); the batch of context 0 shows that
# logN is indexed by the original batch.
@pytest.mark.parametrize("lens", [[69] * 30, [69, 0, 40, 13, 0, 69]])
def test_logn(atbx, tmp_path, lens):
    rng = np.random.default_rng(400 + len(lens))
    run_and_check(atbx, tmp_path, build(rng, 4, 4, 64, 16, lens, "bfloat16", mask=norm3, logn=True))


def test_square_mask_misread_without_prefix_fails(atbx, tmp_path):
    """Reading the square NORM mask at row 0 (no prefix shift) instead of row L_b - 1 misses the precision."""
    rng = np.random.default_rng(500)
    call = build(rng, 4, 2, 32, 16, [40, 23, 31], mask=norm_square)
    out = call.run(atbx, tmp_path)
    call.check(out)
    square = call.tensors["mask"].values()
    row_zero = np.broadcast_to(square[:1], square.shape).copy()
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors={"mask": Tensor(row_zero, "float16")}))


def test_alibi_misread_by_head_fails(atbx, tmp_path):
    """Reading the ALIBI mask of the next head misses the precision."""
    rng = np.random.default_rng(501)
    call = build(rng, 8, 2, 32, 16, [60, 45], mask=alibi4)
    out = call.run(atbx, tmp_path)
    call.check(out)
    rolled = np.roll(call.tensors["mask"].values(), 1, axis=1)
    with pytest.raises(AssertionError):
        call.check(out, call.golden(tensors={"mask": Tensor(rolled, "float16")}))
