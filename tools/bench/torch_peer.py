#!/usr/bin/env python3
"""PyTorch peer of `atbx bench --peer torch`: times the attention a PyTorch user writes for the same shapes.

atbx starts this script once per run and keeps it beside itself: it sends one row per line (a JSON object
describing the shape, see tools/atbx/bench/*_row.cpp) on stdin right after timing atbx on that row, and reads one
JSON line back: {"name", "ms", "dtype", "ms_by_dtype"} or {"error"}. One process for the whole run means PyTorch
is imported once, and each peer timing follows atbx's within seconds, under the same load.

What is timed is what a user writes with PyTorch's own operators: scores = q @ k^T * scale (query heads grouped
by the kv head they share), + mask, softmax, @ v. KV is held contiguous in the compute dtype (bf16 or fp32,
converted once, untimed, as a user would keep their cache); int8 caches are dequantised inside the timed step
(k.to(dtype) * scale). Attention rows are timed in bf16 and fp32 and the faster is reported. Cold rows rotate
over as many layers as atbx's rows do (enough KV to exceed the last-level cache, within the memory bound).
"""
import math

import torch

from peer_common import layer_count, serve, time_calls

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32, "fp16": torch.float16, "int8": torch.int8}
SCORE_CHUNK_BYTES = 1 << 30  # prefill: score matrices are computed in chunks of query heads under 1 GiB


def element_size(dtype):
    return torch.tensor([], dtype=dtype).element_size()


def attention(q, k, v, scale, mask):
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores + mask
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def kv_store(request, compute):
    """The dtype the cache is kept in and the dequantisation the timed step does (int8 caches only)."""
    return (torch.int8, True) if request["dtype"] == "int8" else (compute, False)


def decode_seconds(request, compute):
    b, ctx, qt = request["batch"], request["context"], request["query_tokens"]
    h, hk, d, dv = request["heads"], request["kv_heads"], request["head_size"], request["head_size_v"]
    mla = request["mla"]
    group = h // hk
    store, dequant = kv_store(request, compute)
    channels = d if mla else d + dv
    layer_bytes = b * hk * ctx * channels * element_size(store)
    count = layer_count(request, layer_bytes)
    if count == 0:
        raise MemoryError("one layer does not fit in the memory bound")
    layers = []
    for _ in range(count):
        if dequant:
            kv = torch.randint(-100, 100, (b, hk, ctx, channels), dtype=torch.int8)
        else:
            kv = (torch.rand(b, hk, ctx, channels) * 2 - 1).to(compute)
        layers.append(kv)
    # Query rows of one kv head: its group of query heads, each with its query tokens: [B, Hk, G * qt, D].
    q = (torch.rand(b, hk, group * qt, d) * 2 - 1).to(compute)
    mask = None
    if qt > 1:
        visible = torch.arange(ctx)[None, :] <= (ctx - qt + torch.arange(qt))[:, None]
        mask = torch.zeros(qt, ctx).masked_fill(~visible, float("-inf")).repeat(group, 1).to(compute)
    scale = 1.0 / math.sqrt(d)
    descale = torch.full((channels,), 0.01, dtype=compute)

    def step(kv):
        if dequant:
            kv = kv.to(compute) * descale
        k = kv[..., :d]
        v = kv[..., :dv] if mla else kv[..., d:]
        return attention(q, k, v, scale, mask)

    return time_calls(step, layers, request)


def visible_mask(rows, keys, prefix, window, dtype, dense=False):
    """Additive mask [rows, keys]: query i (at position prefix + i) sees keys j <= prefix + i, within window;
    None when every key is visible (dense)."""
    if dense:
        return None
    position = prefix + torch.arange(rows)[:, None]
    j = torch.arange(keys)[None, :]
    visible = j <= position
    if window > 0:
        visible &= j > position - window
    return torch.zeros(rows, keys).masked_fill(~visible, float("-inf")).to(dtype)


def prefill_seconds(request, compute):
    h, hk, d, dv = request["heads"], request["kv_heads"], request["head_size"], request["head_size_v"]
    prefix, window, mla = request["prefix"], request["window"], request["mla"]
    group = h // hk
    scale = 1.0 / math.sqrt(d)
    sequences = []
    for s in request["seq_lens"]:
        keys = prefix + s
        # Query heads grouped by their kv head: q [Hk, G, S, D] against K [Hk, 1, keys, D] (broadcast over G).
        q = (torch.rand(hk, group, s, d) * 2 - 1).to(compute)
        kv = (torch.rand(hk, 1, keys, d if mla else d + dv) * 2 - 1).to(compute)
        # Query heads per chunk (all of them when the fp32 scores fit in SCORE_CHUNK_BYTES).
        chunk = max(1, min(h, SCORE_CHUNK_BYTES // max(s * keys * 4, 1)))
        mask = visible_mask(s, keys, prefix, window, compute, request.get("kind") == "dense")
        sequences.append((q, kv, mask, chunk))

    def step(_):
        for q, kv, mask, chunk in sequences:
            k = kv[..., :d]
            v = kv[..., :dv] if mla else kv[..., d:]
            if chunk >= group:
                heads = chunk // group  # whole kv heads per chunk
                for first in range(0, hk, heads):
                    attention(q[first:first + heads], k[first:first + heads], v[first:first + heads], scale, mask)
            else:
                for head in range(hk):
                    for g in range(0, group, chunk):
                        attention(q[head, g:g + chunk], k[head], v[head], scale, mask)

    return time_calls(step, [None], request)


def cache_write_seconds(request):
    t, hk, d, bs = request["tokens"], request["kv_heads"], request["head_size"], request["block_size"]
    dtype = DTYPES[request["dtype"]]
    blocks = (t + bs - 1) // bs
    order = torch.randperm(blocks)
    slots = (order[torch.arange(t) // bs] * bs + torch.arange(t) % bs).long()
    layer_bytes = 2 * (t + blocks * bs) * hk * d * element_size(dtype)
    count = layer_count(request, layer_bytes)
    if count == 0:
        raise MemoryError("one layer does not fit in the memory bound")

    def tensor(rows):
        if dtype == torch.int8:
            return torch.randint(-100, 100, (rows, hk, d), dtype=torch.int8)
        return (torch.rand(rows, hk, d) * 2 - 1).to(dtype)

    layers = [(tensor(t), tensor(t), tensor(blocks * bs), tensor(blocks * bs)) for _ in range(count)]

    def step(layer):
        key, value, key_cache, value_cache = layer
        key_cache[slots] = key
        value_cache[slots] = value

    return time_calls(step, layers, request)


def answer(request):
    torch.set_num_threads(request["threads"])
    name = "torch " + torch.__version__
    if request["op"] == "cache_write":
        if request.get("mode", "nd") != "nd":  # torch's index_put is the peer of the ND layout only
            return {"error": "no torch peer for the " + request["mode"] + " cache layout"}
        seconds = cache_write_seconds(request)
        return {"name": name, "ms": seconds * 1e3, "dtype": request["dtype"]}
    timed = prefill_seconds if request["op"] == "prefill" else decode_seconds
    by_dtype = {}
    with torch.no_grad():
        for label in ("bf16", "fp32"):
            by_dtype[label] = timed(request, DTYPES[label]) * 1e3
    best = min(by_dtype, key=by_dtype.get)
    return {"name": f"{name} {best}", "ms": by_dtype[best], "dtype": best, "ms_by_dtype": by_dtype}


def main():
    serve({"name": "torch " + torch.__version__, "mkldnn": torch.backends.mkldnn.is_available()}, answer)


if __name__ == "__main__":
    main()
