"""PagedAttention decode through case files (atbx run --backend ref) against the independent NumPy golden:
ATB's basic decode grid (kernelstest common "basic", the split-cache op test), shapes reduced, odd sizes and GQA
ratios kept.

Queries and keys are drawn from U(-3, 3) so that the softmax is sharp: with U(-1, 1) data attention is nearly
uniform and a wrong scale or a wrong key would hide inside the precision bound (see
test_decode_detects_a_small_scale_error).
"""
import numpy as np
import pytest

from pa_cases import LONG, build, run_and_check


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["BSND", "BNSD"])
@pytest.mark.parametrize("heads,kv_heads,head_dim,block_size,lens", [
    (8, 2, 64, 16, [17, 40, 1, 33]),      # GQA 4, partial last blocks, a one-token sequence
    (5, 5, 40, 32, [70]),                 # MHA, batch 1, head size not a power of two
    (16, 1, 128, 128, [300, 129, 128]),   # MQA 16, ATB's block size
])
def test_decode(atbx, tmp_path, dtype, layout, heads, kv_heads, head_dim, block_size, lens):
    rng = np.random.default_rng(len(lens) * 1000 + heads)
    run_and_check(atbx, tmp_path, build(rng, heads, kv_heads, head_dim, block_size, lens, dtype, layout=layout))


# kernelstest common, "basic" (ATB: 32/32 ctx 819; 24/1 D=256 ctx 3000; 40/40 D=96 the ctx list; 8/4 bf16
# ctx 13164 over 3000 blocks), reduced.
BASIC = [
    dict(heads=8, kv_heads=8, head_dim=128, block_size=128, lens=[219] * 6, dtype="float16"),
    dict(heads=24, kv_heads=1, head_dim=256, block_size=16, lens=[300] * 4, dtype="float16"),
    dict(heads=5, kv_heads=5, head_dim=96, block_size=16, lens=[300, 30, 1400, 33, 65, 1, 16, 1400, 30],
         dtype="float16"),
    dict(heads=8, kv_heads=4, head_dim=64, block_size=128, lens=[1316, 700, 1316], dtype="bfloat16",
         extra_blocks=20),
]
if LONG:  # ATB's contexts; heads reduced to keep each cache within a few million elements
    BASIC += [
        dict(heads=8, kv_heads=8, head_dim=128, block_size=128, lens=[819] * 6, dtype="float16"),
        dict(heads=24, kv_heads=1, head_dim=256, block_size=16, lens=[3000] * 4, dtype="float16"),
        dict(heads=2, kv_heads=2, head_dim=96, block_size=16,
             lens=[3000, 300, 14000, 33, 65, 1, 16, 14000, 300], dtype="float16"),
        dict(heads=2, kv_heads=1, head_dim=128, block_size=128, lens=[13164] * 2, dtype="bfloat16"),
    ]


@pytest.mark.parametrize("case", BASIC)
def test_basic_grid(atbx, tmp_path, case):
    case = dict(case)
    rng = np.random.default_rng(sum(case["lens"]))
    run_and_check(atbx, tmp_path, build(rng, case.pop("heads"), case.pop("kv_heads"), case.pop("head_dim"),
                                         case.pop("block_size"), case.pop("lens"), case.pop("dtype"),
                                         repeats=True, **case))


# test_paged_attention_operation.py: K head 288, V head random in [1, 288), GQA 2 (ATB: 32/16, ctx 1024).
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_split_cache_k288_v_random(atbx, tmp_path, dtype):
    rng = np.random.default_rng(288)
    head_dim_v = int(rng.integers(1, 288))
    run_and_check(atbx, tmp_path, build(rng, 8, 4, 288, 128, [256, 256], dtype, head_dim_v=head_dim_v))


# Atlas 350: plain decode only, qkScale in (0, 1].
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_decode_atlas_350(atbx, tmp_path, dtype):
    rng = np.random.default_rng(350)
    run_and_check(atbx, tmp_path, build(rng, 8, 2, 64, 128, [300, 17, 129], dtype, platform="atlas-350",
                                         qk_scale=0.125))


def test_decode_detects_a_small_scale_error(atbx, tmp_path):
    """The data are sharp enough that a golden 2% off in scale fails the precision check."""
    rng = np.random.default_rng(4008)
    call = build(rng, 8, 2, 64, 16, [17, 40, 1, 33])
    out = call.run(atbx, tmp_path)
    call.check(out)
    with pytest.raises(AssertionError):
        call.check(out, call.golden(param={"qkScale": call.param["qkScale"] * 1.02}))
