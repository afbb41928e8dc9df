"""Prefill, cache and decode across the three operations, against one full-sequence causal attention.

A batch of prompts is prefilled with SelfAttention (PA_ENCODER, causal NORM mask); ReshapeAndCache writes the
prompts' keys and values into a paged cache; PagedAttention then decodes further tokens one step at a time, each
step's key and value written by ReshapeAndCache first. Every output row of every step must match causal attention
over the whole sequence (prompt and decoded tokens) computed here in float64.
"""
import math
import os

import numpy as np
import pytest

from atbx_case import Tensor, assert_precision, cpu_paths, read_output, run, run_on_cpu_path, write_case

HEADS, KV_HEADS, HEAD_DIM, BLOCK = 8, 2, 64, 16


def causal_attention(q, k, v, scale):
    """q [S, H, D], k and v [S, Hk, D] of one sequence -> [S, H, D]: row i attends to keys 0..i."""
    group = q.shape[1] // k.shape[1]
    out = np.zeros_like(q)
    hidden = np.triu(np.ones((q.shape[0], q.shape[0]), dtype=bool), 1)
    for h in range(q.shape[1]):
        scores = np.where(hidden, -np.inf, q[:, h] @ k[:, h // group].T * scale)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        out[:, h] = (weights / weights.sum(axis=1, keepdims=True)) @ v[:, h // group]
    return out


class PagedCache:
    """The paged KV cache the steps share: shuffled distinct blocks per sequence, random filler elsewhere."""

    def __init__(self, lengths, dtype, rng):
        blocks = [math.ceil(n / BLOCK) for n in lengths]
        self.num_blocks = sum(blocks) + 3
        ids = rng.permutation(self.num_blocks)
        self.table = np.zeros((len(lengths), max(blocks)), dtype=np.int32)
        used = 0
        for b, count in enumerate(blocks):
            self.table[b, :count] = ids[used:used + count]
            used += count
        shape = (self.num_blocks, BLOCK, KV_HEADS, HEAD_DIM)
        self.key = Tensor(rng.uniform(-1, 1, shape), dtype)
        self.value = Tensor(rng.uniform(-1, 1, shape), dtype)
        self.dtype = dtype

    def slot(self, b, position):
        return int(self.table[b, position // BLOCK]) * BLOCK + position % BLOCK

    def write(self, atbx, directory, keys, values, slots):
        """ReshapeAndCache of rows keys/values [T, Hk, D] to the slots; the cache takes the op's outputs."""
        case = write_case(directory, "ReshapeAndCache", {},
                          [Tensor(keys, self.dtype), Tensor(values, self.dtype), self.key, self.value,
                           Tensor(np.array(slots), "int32")], ["key_cache.npy", "value_cache.npy"])
        result = run(atbx, "run", case)
        assert result.returncode == 0, result.stderr
        self.key.array = np.load(os.path.join(directory, "key_cache.npy"))
        self.value.array = np.load(os.path.join(directory, "value_cache.npy"))


def prefill(atbx, directory, q, k, v, prompts, dtype, scale, path):
    """SelfAttention PA_ENCODER over the packed prompts with a causal NORM mask on one CPU path; returns
    [sum(prompts), H, D]."""
    longest = max(prompts)
    upper = np.triu(np.ones((longest, longest)), 1)
    # fp16 on the default kernel reads the mask additively; bf16 reads 0/1 flags (DECISIONS 12).
    mask = Tensor(upper * -10000.0 if dtype == "float16" else upper, dtype)
    param = {"headNum": HEADS, "kvHeadNum": KV_HEADS, "qkScale": scale, "calcType": 3, "maskType": 1}
    case = write_case(directory, "SelfAttention", param,
                      [Tensor(q, dtype), Tensor(k, dtype), Tensor(v, dtype), mask, Tensor(np.array(prompts), "int32")],
                      ["attn.npy"])
    result = run_on_cpu_path(atbx, path, case)
    assert result.returncode == 0, result.stderr
    return read_output(os.path.join(directory, "attn.npy"), dtype)


def decode(atbx, directory, q, cache, lengths, scale):
    """PagedAttention over the cache for one query row per sequence; returns [B, H, D]."""
    param = {"headNum": HEADS, "kvHeadNum": KV_HEADS, "qkScale": scale}
    case = write_case(directory, "PagedAttention", param,
                      [Tensor(q, cache.dtype), cache.key, cache.value, Tensor(cache.table, "int32"),
                       Tensor(np.array(lengths), "int32")], ["attn.npy"])
    result = run(atbx, "run", case)
    assert result.returncode == 0, result.stderr
    return read_output(os.path.join(directory, "attn.npy"), cache.dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_prefill_cache_decode_matches_full_causal_attention(atbx, tmp_path, dtype):
    rng = np.random.default_rng(2026)
    prompts, steps = [37, 5, 64, 1], 3
    totals = [p + steps for p in prompts]
    scale = 1 / math.sqrt(HEAD_DIM)
    # Whole sequences, rounded to the dtype once so every operation and the golden see the same values.
    seqs = [(Tensor(rng.uniform(-3, 3, (n, HEADS, HEAD_DIM)), dtype).values(),
             Tensor(rng.uniform(-3, 3, (n, KV_HEADS, HEAD_DIM)), dtype).values(),
             Tensor(rng.uniform(-1, 1, (n, KV_HEADS, HEAD_DIM)), dtype).values()) for n in totals]
    golden = [causal_attention(q, k, v, scale) for q, k, v in seqs]

    def packed(part, rows):
        return np.concatenate([seqs[b][part][rows(b)] for b in range(len(prompts))])

    prompt_rows = lambda b: slice(0, prompts[b])
    prompt_golden = np.concatenate([golden[b][:prompts[b]] for b in range(len(prompts))])
    # The prefill on every CPU path (cpu:amx runs its 64-row blocks on AMX tiles), the decode on the default.
    for path in cpu_paths(atbx):
        attn = prefill(atbx, tmp_path / f"prefill_{path}", packed(0, prompt_rows), packed(1, prompt_rows),
                       packed(2, prompt_rows), prompts, dtype, scale, path)
        assert_precision(attn, prompt_golden, dtype, HEAD_DIM, max(prompts))

    cache = PagedCache(totals, dtype, rng)
    slots = [cache.slot(b, j) for b in range(len(prompts)) for j in range(prompts[b])]
    cache.write(atbx, tmp_path / "cache", packed(1, prompt_rows), packed(2, prompt_rows), slots)

    for step in range(steps):
        positions = [p + step for p in prompts]
        row = lambda b: slice(positions[b], positions[b] + 1)
        cache.write(atbx, tmp_path / f"cache{step}", packed(1, row), packed(2, row),
                    [cache.slot(b, positions[b]) for b in range(len(prompts))])
        out = decode(atbx, tmp_path / f"decode{step}", packed(0, row), cache, [p + 1 for p in positions], scale)
        expected = np.stack([golden[b][positions[b]] for b in range(len(prompts))])
        assert_precision(out, expected, dtype, HEAD_DIM, max(positions) + 1)
