"""ReshapeAndCache through case files (atbx run) against the independent NumPy golden (golden_rac.py), every mode.

Tokens and caches hold random data (caches pre-filled, so untouched rows are checked unchanged), slots are distinct
and random with negative ones, sizes are odd; ATB's kernel test shapes (docs/spec/self_attention.md 6.5) are kept with fewer
heads, tokens and blocks. Cache writes must match bit for bit; the KVHEAD_ROPE mean matches exactly the golden that
sums in float32, and the float64 mean within err * max(1, |g|) (2^-8 float16, 2^-7 bfloat16).
"""
import math
import os

import numpy as np
import pytest

from atbx_case import Tensor, bf16_values, run, write_case
from golden_rac import write_rope, write_tokens, write_windows

OP = "ReshapeAndCache"
KVHEAD, ROPE = 1, 2
KEY_ONLY, NZ_A2 = 1, 2


def random_tensor(rng, shape, dtype, fmt="ND"):
    if dtype == "int8":
        return Tensor(rng.integers(-128, 128, shape), dtype, fmt)
    return Tensor(rng.uniform(-100, 100, shape), dtype, fmt)


def distinct_slots(rng, tokens, cache_slots):
    """Distinct slots in [-cache_slots, cache_slots): about half are negative (skipped)."""
    return (rng.permutation(2 * cache_slots)[:tokens] - cache_slots).astype(np.int32)


def nz_cache_shape(num_blocks, heads, head_size, block_size, tile=16):
    return (num_blocks, heads * head_size // tile, block_size, tile)


def run_case(atbx, directory, param, inputs, outputs, platform=None, backend="ref"):
    """Writes and runs the case; returns the output arrays as written (raw: bfloat16 as uint16 bits)."""
    case = write_case(directory, OP, param, inputs, outputs, platform)
    result = run(atbx, "run", case, "--backend", backend)
    assert result.returncode == 0, result.stderr
    return [np.load(os.path.join(directory, name)) for name in outputs]


def assert_bits_equal(out, golden):
    assert out.dtype == golden.dtype and out.shape == golden.shape, (out.dtype, out.shape, golden.dtype, golden.shape)
    bad = np.flatnonzero(out.view(np.uint8) != golden.view(np.uint8))
    assert bad.size == 0, f"{bad.size} bytes differ, first at byte {bad[0]}"


@pytest.mark.parametrize("tokens", [100, 50, 1])
@pytest.mark.parametrize("dk,dv,dtype", [(576, 512, "int8"), (320, 256, "float16"), (400, 200, "bfloat16"),
                                         (576, 576, "int8"), (320, 320, "float16"), (400, 400, "bfloat16")])
def test_nd_atb_kernel_shapes(atbx, tmp_path, tokens, dk, dv, dtype):
    """test_reshape_and_cache.py: 64 heads and 512 blocks reduced to 3 heads and 3 blocks of 128."""
    rng = np.random.default_rng(tokens * 7 + dk)
    heads, block_size, num_blocks = 3, 128, 3
    key = random_tensor(rng, (tokens, heads, dk), dtype)
    value = random_tensor(rng, (tokens, heads, dv), dtype)
    key_cache = random_tensor(rng, (num_blocks, block_size, heads, dk), dtype)
    value_cache = random_tensor(rng, (num_blocks, block_size, heads, dv), dtype)
    slots = distinct_slots(rng, tokens, num_blocks * block_size)
    if tokens == 1:
        slots[0] = abs(slots[0] + 1)  # one token: make sure it is written
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32")]
    out = run_case(atbx, tmp_path, {}, inputs, ["keyCache.npy", "valueCache.npy"])
    assert_bits_equal(out[0], write_tokens(key_cache.array, key.array, slots))
    assert_bits_equal(out[1], write_tokens(value_cache.array, value.array, slots))


@pytest.mark.parametrize("backend", ["ref", "cpu"])
@pytest.mark.parametrize("platform", ["atlas-a2", "atlas-350"])
def test_nd_odd_sizes(atbx, tmp_path, backend, platform):
    rng = np.random.default_rng(5)
    tokens, heads, dk, dv, block_size, num_blocks = 37, 5, 24, 40, 7, 9
    key = random_tensor(rng, (tokens, heads, dk), "float16")
    value = random_tensor(rng, (tokens, heads, dv), "float16")
    key_cache = random_tensor(rng, (num_blocks, block_size, heads, dk), "float16")
    value_cache = random_tensor(rng, (num_blocks, block_size, heads, dv), "float16")
    slots = distinct_slots(rng, tokens, num_blocks * block_size)
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32")]
    out = run_case(atbx, tmp_path, {}, inputs, ["k.npy", "v.npy"], platform, backend)
    assert_bits_equal(out[0], write_tokens(key_cache.array, key.array, slots))
    assert_bits_equal(out[1], write_tokens(value_cache.array, value.array, slots))


@pytest.mark.parametrize("dtype", ["float16", "int8", "bfloat16"])
def test_key_only(atbx, tmp_path, dtype):
    rng = np.random.default_rng(11)
    tokens, heads, head_size, block_size, num_blocks = 29, 3, 56, 9, 4
    key = random_tensor(rng, (tokens, heads, head_size), dtype)
    key_cache = random_tensor(rng, (num_blocks, block_size, heads, head_size), dtype)
    slots = distinct_slots(rng, tokens, num_blocks * block_size)
    out = run_case(atbx, tmp_path, {"kvCacheCfg": KEY_ONLY}, [key, key_cache, Tensor(slots, "int32")], ["k.npy"])
    assert_bits_equal(out[0], write_tokens(key_cache.array, key.array, slots))


def nz_case(rng, tokens, heads, dk, dv, block_size, num_blocks, key_dtype, value_dtype, key_tile):
    key = random_tensor(rng, (tokens, heads, dk), key_dtype)
    value = random_tensor(rng, (tokens, heads, dv), value_dtype)
    key_cache = random_tensor(rng, nz_cache_shape(num_blocks, heads, dk, block_size, key_tile), key_dtype,
                              "FRACTAL_NZ")
    value_cache = random_tensor(rng, nz_cache_shape(num_blocks, heads, dv, block_size), value_dtype, "FRACTAL_NZ")
    return key, value, key_cache, value_cache


@pytest.mark.parametrize("dk,dv,key_dtype,value_dtype", [(512, 64, "int8", "float16"), (128, 128, "int8", "float16"),
                                                         (128, 128, "bfloat16", "float16"),
                                                         (64, 128, "int8", "bfloat16")])
def test_nz_a2_atb_kernel_shapes(atbx, tmp_path, dk, dv, key_dtype, value_dtype):
    """test_reshape_and_cache_nz.py: 6144 tokens and 64 blocks reduced to 300 tokens and 4 blocks of 128."""
    rng = np.random.default_rng(dk + dv)
    tokens, heads, block_size, num_blocks = 300, 1, 128, 4
    key_tile = 32 if key_dtype == "int8" else 16
    key, value, key_cache, value_cache = nz_case(rng, tokens, heads, dk, dv, block_size, num_blocks, key_dtype,
                                                 value_dtype, key_tile)
    slots = distinct_slots(rng, tokens, num_blocks * block_size)
    slots[slots == 0] = slots[0]  # slot 0 for token 0, as ATB's test does; the slots stay distinct
    slots[0] = 0
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32")]
    out = run_case(atbx, tmp_path, {"kvCacheCfg": NZ_A2}, inputs, ["k.npy", "v.npy"])
    assert_bits_equal(out[0], write_tokens(key_cache.array, key.array, slots, nz=True))
    assert_bits_equal(out[1], write_tokens(value_cache.array, value.array, slots, nz=True))


@pytest.mark.parametrize("platform,tokens,heads,head_size,block_size,num_blocks", [
    ("atlas-inference", 200, 1, 128, 128, 2),   # CSV row 39 with 200 of its 8192 tokens and 2 of its 96 blocks
    ("atlas-inference", 41, 3, 48, 32, 3),
    ("atlas-training", 23, 5, 16, 16, 2),
])
def test_nz_products(atbx, tmp_path, platform, tokens, heads, head_size, block_size, num_blocks):
    rng = np.random.default_rng(tokens)
    key, value, key_cache, value_cache = nz_case(rng, tokens, heads, head_size, head_size, block_size, num_blocks,
                                                 "float16", "float16", 16)
    slots = distinct_slots(rng, tokens, num_blocks * block_size)
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32")]
    out = run_case(atbx, tmp_path, {}, inputs, ["k.npy", "v.npy"], platform)
    assert_bits_equal(out[0], write_tokens(key_cache.array, key.array, slots, nz=True))
    assert_bits_equal(out[1], write_tokens(value_cache.array, value.array, slots, nz=True))


def compress_inputs(rng, dtype, heads, head_size, seq_lens, extra_tokens, block_size, num_blocks):
    tokens = int(sum(seq_lens)) + extra_tokens
    key = random_tensor(rng, (tokens, heads, head_size), dtype)
    value = random_tensor(rng, (tokens, heads, head_size), dtype)
    key_cache = random_tensor(rng, (num_blocks, block_size, 1, head_size), dtype)
    value_cache = random_tensor(rng, (num_blocks, block_size, 1, head_size), dtype)
    return key, value, key_cache, value_cache


@pytest.mark.parametrize("batch", [1, 2])
@pytest.mark.parametrize("dtype", ["int8", "float16", "bfloat16"])
def test_kvhead_atb_kernel_shapes(atbx, tmp_path, batch, dtype):
    """test_reshape_and_cache_wins.py: sequences of 4000 with windows of 1501 reduced to 400 and 151; each head's
    window starts a fresh block (slots = cumulative ceil(win / BS) * BS)."""
    rng = np.random.default_rng(batch)
    heads, head_size, block_size, seq_len, win = 4, 128, 128, 400, 151
    seq_lens = np.full(batch, seq_len, dtype=np.int32)
    blocks_per_head = math.ceil(win / block_size)
    num_blocks = batch * heads * blocks_per_head + 1
    key, value, key_cache, value_cache = compress_inputs(rng, dtype, heads, head_size, seq_lens, 0, block_size,
                                                         num_blocks)
    wins = np.full(batch * heads, win, dtype=np.int32)
    slots = (np.arange(batch * heads) * blocks_per_head * block_size).astype(np.int32)
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32"), Tensor(wins, "int32"),
              Tensor(seq_lens, "int32")]
    out = run_case(atbx, tmp_path, {"compressType": KVHEAD}, inputs, ["k.npy", "v.npy"])
    assert_bits_equal(out[0], write_windows(key_cache.array, key.array, slots, wins, seq_lens))
    assert_bits_equal(out[1], write_windows(value_cache.array, value.array, slots, wins, seq_lens))


def random_head_slots(rng, rows, cache_slots):
    """Runs of rows[i] consecutive slots, at random places without overlap; about a quarter negative."""
    slots = np.full(len(rows), -1, dtype=np.int32)
    placed = [i for i in rng.permutation(len(rows)) if rng.random() > 0.25]
    free = cache_slots - sum(rows[i] for i in placed)
    assert free >= 0
    gaps = np.sort(rng.integers(0, free + 1, len(placed)))
    position = 0
    for k, i in enumerate(placed):
        slots[i] = position + gaps[k]
        position += rows[i]
    slots[slots < 0] = -rng.integers(1, cache_slots + 1, int((slots < 0).sum()))
    return slots


def test_kvhead_random_windows(atbx, tmp_path):
    rng = np.random.default_rng(23)
    heads, head_size, block_size, num_blocks = 3, 96, 7, 30
    seq_lens = np.array([9, 1, 0, 14, 30], dtype=np.int32)
    wins = np.array([rng.integers(0, n + 1) for n in seq_lens for _ in range(heads)], dtype=np.int32)
    slots = random_head_slots(rng, wins, num_blocks * block_size)
    key, value, key_cache, value_cache = compress_inputs(rng, "float16", heads, head_size, seq_lens, 3, block_size,
                                                         num_blocks)
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32"), Tensor(wins, "int32"),
              Tensor(seq_lens, "int32")]
    out = run_case(atbx, tmp_path, {"compressType": KVHEAD}, inputs, ["k.npy", "v.npy"])
    assert_bits_equal(out[0], write_windows(key_cache.array, key.array, slots, wins, seq_lens))
    assert_bits_equal(out[1], write_windows(value_cache.array, value.array, slots, wins, seq_lens))


def rope_rows(seq_lens, wins, offsets, heads):
    return [seq_lens[i // heads] - wins[i] + 1 if offsets[i] != -1 and wins[i] > 0 else seq_lens[i // heads]
            for i in range(len(wins))]


def check_rope(atbx, tmp_path, rng, dtype, heads, head_size, block_size, num_blocks, seq_lens, wins, offsets, slots):
    key, value, key_cache, value_cache = compress_inputs(rng, dtype, heads, head_size, seq_lens, 2, block_size,
                                                         num_blocks)
    inputs = [key, value, key_cache, value_cache, Tensor(slots, "int32"), Tensor(wins, "int32"),
              Tensor(seq_lens, "int32"), Tensor(offsets, "int32")]
    out = run_case(atbx, tmp_path, {"compressType": ROPE}, inputs, ["k.npy", "v.npy"])
    eps = 2.0 ** -8 if dtype == "float16" else 2.0 ** -7
    for got, cache, rows in ((out[0], key_cache, key), (out[1], value_cache, value)):
        assert_bits_equal(got, write_rope(cache.array, rows.array, slots, wins, seq_lens, offsets, dtype))
        golden = write_rope(cache.array, rows.array, slots, wins, seq_lens, offsets, dtype, exact=False)
        values = bf16_values(got) if dtype == "bfloat16" else got.astype(np.float64)
        bound = eps * np.maximum(1.0, np.abs(golden))
        assert np.all(np.abs(values - golden) <= bound)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rope_atb_kernel_shapes(atbx, tmp_path, dtype):
    """test_reshape_and_cache_wins_rope.py: len U[1024, 4096] reduced to U[64, 300]; win U[0, len], offset
    U[-1, len - win] shared by every head; D = 256, BS = 256; each head's rows follow the previous head's."""
    rng = np.random.default_rng(3 if dtype == "float16" else 4)
    batch, heads, head_size, block_size = 3, 2, 256, 256
    length = int(rng.integers(64, 301))
    win = int(rng.integers(2, length + 1))
    offset = int(rng.integers(0, length - win + 1))
    seq_lens = np.full(batch, length, dtype=np.int32)
    wins = np.full(batch * heads, win, dtype=np.int32)
    offsets = np.full(batch * heads, offset, dtype=np.int32)
    offsets[1] = -1  # one head without compression
    rows = rope_rows(seq_lens, wins, offsets, heads)
    slots = np.concatenate(([0], np.cumsum(rows)[:-1])).astype(np.int32)
    num_blocks = math.ceil(sum(rows) / block_size) + 1
    check_rope(atbx, tmp_path, rng, dtype, heads, head_size, block_size, num_blocks, seq_lens, wins, offsets, slots)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rope_random_windows(atbx, tmp_path, dtype):
    rng = np.random.default_rng(31)
    heads, head_size, block_size, num_blocks = 3, 64, 9, 40
    seq_lens = np.array([1, 17, 2, 0, 25, 13], dtype=np.int32)
    wins, offsets = [], []
    for n in seq_lens:
        for _ in range(heads):
            w = int(rng.integers(0, n + 1))
            wins.append(w)
            offsets.append(int(rng.integers(-1, n - w + 1)))
    wins, offsets = np.array(wins, dtype=np.int32), np.array(offsets, dtype=np.int32)
    slots = random_head_slots(rng, rope_rows(seq_lens, wins, offsets, heads), num_blocks * block_size)
    check_rope(atbx, tmp_path, rng, dtype, heads, head_size, block_size, num_blocks, seq_lens, wins, offsets, slots)


def test_slot_outside_the_cache_is_a_rule_violation(atbx, tmp_path):
    rng = np.random.default_rng(2)
    key = random_tensor(rng, (3, 2, 16), "float16")
    cache = random_tensor(rng, (2, 16, 2, 16), "float16")
    case = write_case(tmp_path, OP, {"kvCacheCfg": KEY_ONLY}, [key, cache, Tensor(np.array([0, 32, -1]), "int32")],
                      ["k.npy"])
    result = run(atbx, "run", case)
    assert result.returncode == 2
    assert "rac.device.slots_in_range" in result.stderr
    assert not os.path.exists(os.path.join(tmp_path, "k.npy"))
