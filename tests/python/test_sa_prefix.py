"""SelfAttention PREFIX_ENCODER (prefix keys in a paged cache of 128-token blocks) through case files
(`atbx run --backend ref`) against the NumPy golden: ATB's prefix cases (docs/spec/self_attention.md 6.3 type 2012, 6.4
test_self_attention_prefix_encoder*), reduced. Masks are bottom-right aligned: query i of batch b sits at
position kv_b - q_b + i.
"""
import math

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision
from golden_sa import FLAG, alibi_slopes, alibi_term, causal_term, prefix_encoder, round_to
from sa_cases import (HIGH_PRECISION, MASK_ALIBI_COMPRESS, MASK_ALIBI_COMPRESS_SQRT, MASK_CAUSAL,
                      MASK_NORM_COMPRESS, PREFIX_ENCODER, int32, run_case, sharp, values)

BLOCK = 128


def prefix_case(atbx, tmp_path, dtype="float16", heads=6, kv_heads=2, d=128, q_lens=(44, 45), kv_lens=(172, 173),
                mask="compress", split_heads=False, seed=0, wrong_prefix=False):
    rng = np.random.default_rng(seed)
    q_lens, kv_lens = list(q_lens), list(kv_lens)
    batch = len(q_lens)
    blocks_per_seq = [(kv + BLOCK - 1) // BLOCK for kv in kv_lens]
    num_blocks = sum(blocks_per_seq) + 3
    width = max(blocks_per_seq)
    ids = rng.permutation(num_blocks)
    table = np.zeros((batch, width), dtype=np.int32)
    used = 0
    for b, count in enumerate(blocks_per_seq):
        table[b, :count] = ids[used:used + count]
        used += count
    q = sharp(rng, (sum(q_lens), heads * d), dtype)
    k4 = sharp(rng, (num_blocks, BLOCK, kv_heads, d), dtype)
    v4 = values(rng, (num_blocks, BLOCK, kv_heads, d), dtype)
    k = k4 if split_heads else Tensor(k4.values().reshape(num_blocks, BLOCK, kv_heads * d), dtype)
    v = v4 if split_heads else Tensor(v4.values().reshape(num_blocks, BLOCK, kv_heads * d), dtype)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(d), "calcType": PREFIX_ENCODER,
             "isTriuMask": 1, "kernelType": HIGH_PRECISION}
    inputs = [q, k, v, Tensor(table, "int32")]
    after = []
    slopes = alibi_slopes(heads)
    if mask == "compress":  # fp16 additive although HIGH_PRECISION; bf16 flags (DECISIONS 12)
        flags = dtype == "bfloat16"
        hidden = 1.0 if flags else -10000.0
        param["maskType"] = MASK_NORM_COMPRESS
        inputs.append(Tensor(causal_term(128, 128, hidden=hidden), dtype))

        def term(b, h, ql, kv, prefix):
            return causal_term(ql, kv, prefix=prefix, hidden=hidden) * (FLAG if flags else 1.0)
    elif mask == "causal":
        param["maskType"] = MASK_CAUSAL

        def term(b, h, ql, kv, prefix):
            return causal_term(ql, kv, prefix=prefix)
    elif mask in ("alibi", "sqrt"):
        param["maskType"] = MASK_ALIBI_COMPRESS if mask == "alibi" else MASK_ALIBI_COMPRESS_SQRT
        r, c = np.arange(256)[:, None], np.arange(256)[None, :]
        dist = np.sqrt(np.abs(r - c)) if mask == "sqrt" else (r - c).astype(np.float64)
        inputs.append(Tensor(np.where(c > r, dist + 60000.0, dist), dtype))
        after = [Tensor(-slopes, "float32")]
        slopes32 = np.float32(slopes).astype(np.float64)

        def term(b, h, ql, kv, prefix):
            return alibi_term(slopes32[h], ql, kv, prefix, form="distance" if mask == "alibi" else "sqrt")
    elif mask == "columns":  # [H, rows, 128]: the first 128 columns of the full mask
        param["maskType"] = MASK_ALIBI_COMPRESS
        rows = max(kv_lens)
        full = round_to(np.stack([alibi_term(s, rows, rows) for s in slopes]), dtype)
        inputs.append(Tensor(full[:, :, :128], dtype))
        after = [Tensor(np.zeros(heads), "float32")]

        def term(b, h, ql, kv, prefix):
            return full[h, prefix:prefix + ql, :kv]
    inputs += [int32(q_lens), int32(kv_lens)] + after
    out, = run_case(atbx, tmp_path, param, inputs, [("out.npy", dtype)])
    golden = prefix_encoder(q.values().reshape(-1, heads, d), k4.values(), v4.values(), table, q_lens, kv_lens,
                            1 / math.sqrt(d),
                            lambda b, h, ql, kv: term(b, h, ql, kv, 0 if wrong_prefix else kv - ql))
    assert_precision(out.reshape(golden.shape), golden, dtype, d, max(kv_lens))


@pytest.mark.parametrize("case", [
    # NORM_COMPRESS 128: H=12/1 -> 6/1, q = 172..181 -> 44..46 with kv - q = 128
    dict(heads=6, kv_heads=1, q_lens=(44, 45, 46), kv_lens=(172, 173, 174), mask="compress", seed=1),
    dict(dtype="bfloat16", heads=6, kv_heads=2, q_lens=(128, 3), kv_lens=(256, 131), mask="compress",
         split_heads=True, seed=2),
    # alibi compress / sqrt, q = 128, kv = 512 -> 256 (GQA 9/3 -> 6/2)
    dict(heads=6, kv_heads=2, q_lens=(128,), kv_lens=(256,), mask="alibi", seed=3),
    dict(dtype="bfloat16", heads=6, kv_heads=2, q_lens=(128, 1), kv_lens=(256, 129), mask="sqrt", seed=4),
    # [H, S, 128] alibi columns at absolute positions
    dict(heads=4, kv_heads=1, q_lens=(40, 3), kv_lens=(168, 131), mask="columns", seed=5),
    # causal mask: q = 1281, kv = 1537, H = 8/2 -> q = 129, kv = 385, H = 4/2; fp16 q = 1025, kv = 2049 -> 33, 289
    dict(dtype="bfloat16", heads=4, kv_heads=2, q_lens=(129,), kv_lens=(385,), mask="causal", seed=6),
    dict(heads=4, kv_heads=2, q_lens=(33,), kv_lens=(289,), mask="causal", split_heads=True, seed=7),
])
def test_prefix_grid(atbx, tmp_path, case):
    prefix_case(atbx, tmp_path, **case)


def test_prefix_alignment_is_observable(atbx, tmp_path):
    """The comparison fails for a golden that aligns the causal mask top-left instead of bottom-right."""
    with pytest.raises(AssertionError, match="elements over eps"):
        prefix_case(atbx, tmp_path, heads=4, kv_heads=2, q_lens=(33,), kv_lens=(161,), mask="causal", seed=8,
                    wrong_prefix=True)
