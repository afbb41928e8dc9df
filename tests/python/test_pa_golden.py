"""PagedAttention through case files (atbx run --backend ref) against the independent NumPy golden.

Queries and keys are drawn from U(-3, 3) so that the softmax is sharp: with U(-1, 1) data attention is nearly
uniform and a wrong scale or a wrong key would hide inside the precision bound (see
test_decode_detects_a_small_scale_error).
"""
import math
import os

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision, read_output, run, write_case
from golden_pa import paged_attention


def block_tables_for(context_lens, block_size, num_blocks, rng):
    width = max(1, max((n + block_size - 1) // block_size for n in context_lens))
    ids = rng.permutation(num_blocks)
    table = np.zeros((len(context_lens), width), dtype=np.int32)
    used = 0
    for b, n in enumerate(context_lens):
        count = (n + block_size - 1) // block_size
        table[b, :count] = ids[used:used + count]
        used += count
    return table


def decode_case(tmp_path, dtype, layout, heads, kv_heads, head_dim, block_size, lens):
    """Writes a decode case; returns (case path, inputs, param)."""
    rng = np.random.default_rng(len(lens) * 1000 + heads)
    num_blocks = sum((n + block_size - 1) // block_size for n in lens) + 3
    cache_shape = ((num_blocks, kv_heads, block_size, head_dim) if layout == "BNSD"
                   else (num_blocks, block_size, kv_heads, head_dim))
    inputs = [
        Tensor(rng.uniform(-3, 3, (len(lens), heads, head_dim)), dtype),
        Tensor(rng.uniform(-3, 3, cache_shape), dtype),
        Tensor(rng.uniform(-1, 1, cache_shape), dtype),
        Tensor(block_tables_for(lens, block_size, num_blocks, rng), "int32"),
        Tensor(np.array(lens), "int32"),
    ]
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / math.sqrt(head_dim),
             "inputLayout": 1 if layout == "BNSD" else 0}
    return write_case(tmp_path, "PagedAttention", param, inputs, ["out.npy"]), inputs, param


def golden_for(inputs, param, lens, layout, scale_error=1.0):
    q, k, v, table, _ = inputs
    return paged_attention(q.values(), k.values(), v.values(), table.array, lens, param["headNum"],
                           param["kvHeadNum"], param["qkScale"] * scale_error, layout=layout)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["BSND", "BNSD"])
@pytest.mark.parametrize("heads,kv_heads,head_dim,block_size,lens", [
    (8, 2, 64, 16, [17, 40, 1, 33]),      # GQA 4, partial last blocks, a one-token sequence
    (5, 5, 40, 32, [70]),                 # MHA, batch 1, head size not a power of two
    (16, 1, 128, 128, [300, 129, 128]),   # MQA 16, ATB's block size
])
def test_decode(atbx, tmp_path, dtype, layout, heads, kv_heads, head_dim, block_size, lens):
    case, inputs, param = decode_case(tmp_path, dtype, layout, heads, kv_heads, head_dim, block_size, lens)
    result = run(atbx, "run", case, "--backend", "ref")
    assert result.returncode == 0, result.stderr
    out = read_output(os.path.join(tmp_path, "out.npy"), dtype)
    assert_precision(out, golden_for(inputs, param, lens, layout), dtype, head_dim, max(lens))


def test_decode_detects_a_small_scale_error(atbx, tmp_path):
    """The data are sharp enough that a golden 2% off in scale fails the precision check."""
    lens = [17, 40, 1, 33]
    case, inputs, param = decode_case(tmp_path, "float16", "BSND", 8, 2, 64, 16, lens)
    assert run(atbx, "run", case, "--backend", "ref").returncode == 0
    out = read_output(os.path.join(tmp_path, "out.npy"), "float16")
    with pytest.raises(AssertionError):
        assert_precision(out, golden_for(inputs, param, lens, "BSND", scale_error=1.02), "float16", 64, max(lens))
