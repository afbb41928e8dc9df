"""MLA through case files against the NumPy golden (docs/spec/paged_attention.md 3.9): the combined cache (V = the first
mlaVHeadSize channels of K), split caches with K head != V head, dynamic batch, the mlaOptimization block size
256, and MLA + SPEC (MTP) with fp16 additive and bf16 0/1 masks; ATB's _mla.py, _mtp.py and kernelstest MLA/MTP
grids, shapes reduced."""
import numpy as np
import pytest

from atbx_case import Tensor
from pa_cases import LONG, build, norm3, run_and_check, spec_flags, spec_triangle


def spec_mask_for(dtype):
    return spec_flags if dtype == "bfloat16" else spec_triangle


# _mla.py split (ATB: T=98, 4/1, 576/512, ctx 819) and kernelstest split (T=20, H=128 or 4).
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_split_cache_576_512(atbx, tmp_path, dtype):
    rng = np.random.default_rng(700)
    run_and_check(atbx, tmp_path, build(rng, 4, 1, 576, 128, [200] * 3, dtype, head_dim_v=512))


# _mla.py combine (ATB: T=32, H=8, 576/512, ctx 819): {fp16, bf16} x {no mask, norm3, dynamic batch with and
# without mask}; Dv = Dk; kernelstest combine 192/128 (ATB: T=64, H=32).
COMBINE = [
    dict(heads=8, head_dim=576, mla_v=512, lens=[150] * 4),
    dict(heads=8, head_dim=576, mla_v=512, lens=[150] * 4, mask=norm3),
    dict(heads=8, head_dim=576, mla_v=512, lens=[150, 0, 150, 150, 0], status=[1, 0, 1, 1, 0]),
    dict(heads=8, head_dim=576, mla_v=512, lens=[150, 0, 150, 0], status=[1, 0, 1, 0], mask=norm3),
    dict(heads=8, head_dim=576, mla_v=576, lens=[90, 0, 90], status=[1, 0, 1]),
    dict(heads=8, head_dim=192, mla_v=128, lens=[300] * 8),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("index", range(len(COMBINE)))
def test_combined_cache(atbx, tmp_path, dtype, index):
    case = dict(COMBINE[index])
    rng = np.random.default_rng(710 + index)
    call = build(rng, case.pop("heads"), 1, case.pop("head_dim"), 128, case.pop("lens"), dtype, repeats=True,
                 **case)
    run_and_check(atbx, tmp_path, call)


# The mlaOptimization path: block size 256 with H in {16, 32}, 576/512 (ATB: T=1, H=16, ctx 256).
def test_combined_cache_block_size_256(atbx, tmp_path):
    rng = np.random.default_rng(720)
    run_and_check(atbx, tmp_path, build(rng, 16, 1, 576, 256, [256], "float16", mla_v=512, extra_blocks=0))


# _mtp.py (ATB: B=3, H=32) and kernelstest MTP, reduced: (heads, dk, dv, q_lens, lens, masked, dtype).
MTP = [
    (4, 576, 512, [20, 20, 20], [100, 100, 100], False, "float16"),
    (4, 576, 512, [20, 20, 20], [100, 100, 100], False, "bfloat16"),
    (4, 192, 128, [20, 20, 20], [134, 134, 134], False, "float16"),
    (4, 192, 128, [19, 20, 19], [134, 112, 134], True, "float16"),
    (4, 192, 128, [19, 20, 19], [134, 112, 134], True, "bfloat16"),
    (4, 576, 512, [13, 7, 13], [199, 134, 199], True, "float16"),
    (4, 192, 128, [32] * 5, [100] * 5, True, "float16"),      # partial-triu (ATB: B=27, q=256, L=766)
    (4, 192, 128, [50, 50, 50], [120, 120, 120], True, "bfloat16"),  # (ATB: B=11, H=16, q=1056, L=1963)
    (8, 576, 512, [4] * 4, [273] * 4, True, "bfloat16"),      # (ATB: B=32, q=4, L=273)
]
if LONG:
    MTP += [
        (32, 576, 512, [111] * 3, [512] * 3, False, "float16"),
        (4, 192, 128, [1056], [1963], True, "bfloat16"),
    ]


@pytest.mark.parametrize("heads,dk,dv,q_lens,lens,masked,dtype", MTP)
def test_multi_token_prediction(atbx, tmp_path, heads, dk, dv, q_lens, lens, masked, dtype):
    rng = np.random.default_rng(sum(lens) + heads)
    mask = spec_mask_for(dtype) if masked else None
    run_and_check(atbx, tmp_path, build(rng, heads, 1, dk, 128, lens, dtype, mla_v=dv, q_lens=q_lens, mask=mask))


# _mtp.py's qScale case: q is multiplied by qScale (rounded to its dtype) before everything else.
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_multi_token_prediction_q_scale(atbx, tmp_path, dtype):
    rng = np.random.default_rng(730)
    call = build(rng, 4, 1, 192, 128, [50, 64], dtype, mla_v=128, q_lens=[7, 9], mask=spec_mask_for(dtype),
                 q_scale=0.2, qk_scale=1.0 / 4)
    run_and_check(atbx, tmp_path, call)


def test_bf16_flag_mask_read_as_additive_fails(atbx, tmp_path):
    """Adding the bf16 0/1 MTP mask instead of scaling it by -3e38 misses the precision."""
    rng = np.random.default_rng(731)
    call = build(rng, 4, 1, 64, 16, [40, 33], "bfloat16", mla_v=48, q_lens=[8, 6], mask=spec_flags)
    out = call.run(atbx, tmp_path)
    call.check(out)
    with pytest.raises(AssertionError):
        additive = Tensor(call.tensors["mask"].values(), "float16")  # the golden adds fp16 masks as they are
        call.check(out, call.golden(tensors={"mask": additive}))
