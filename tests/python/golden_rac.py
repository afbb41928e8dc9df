"""Independent NumPy golden for ReshapeAndCache, written from docs/spec/self_attention.md section 4.2 and docs/spec/DECISIONS.md 19.

Caches are raw arrays (float16, int8, or uint16 holding bfloat16 bits) and rows are copied as they are, so copies
are exact. The KVHEAD_ROPE mean is computed twice: as the device does it (float32 sum in token order, float32
division, rounded to nearest even), to compare exactly, and in float64, to compare under the precision bound.
It shares no code with atbx.
"""
import numpy as np

from atbx_case import bf16_bits, bf16_values


def _as_float32(raw, dtype):
    return bf16_values(raw) if dtype == "bfloat16" else raw.astype(np.float32)


def _from_float32(values, dtype):
    return bf16_bits(values) if dtype == "bfloat16" else values.astype(np.float16)


def nd_slot_rows(cache):
    """An ND cache [NB, BS, heads, D] as one row per slot: [NB * BS, heads, D] (a view)."""
    nb, bs = cache.shape[:2]
    return cache.reshape(nb * bs, *cache.shape[2:])


def write_tokens(cache, rows, slots, nz=False):
    """ND, NZ and key-only: token t (all heads) to slot slots[t]; negative slots are skipped.

    rows: [T, heads, D]. ND cache [NB, BS, heads, D]; NZ cache [NB, heads * D / c, BS, c], where feature f of a
    token goes to cache[block, f // c, offset, f % c].
    """
    cache = cache.copy()
    for t, slot in enumerate(slots):
        if slot < 0:
            continue
        if nz:
            block_size, tile = cache.shape[2], cache.shape[3]
            features = rows[t].reshape(-1)
            cache[slot // block_size, :, slot % block_size, :] = features.reshape(-1, tile)
        else:
            nd_slot_rows(cache)[slot] = rows[t]
    return cache


def write_windows(cache, rows, slots, wins, seq_lens):
    """KVHEAD: item i = b * heads + h writes the last wins[i] tokens of head h of sequence b to consecutive slots
    from slots[i]. rows: [T, heads, D]; cache [NB, BS, 1, D]."""
    cache = cache.copy()
    flat = nd_slot_rows(cache)
    heads = rows.shape[1]
    end = np.cumsum(seq_lens)
    for i, slot in enumerate(slots):
        if slot < 0:
            continue
        b, h = divmod(i, heads)
        w = wins[i]
        for t in range(w):
            flat[slot + t, 0] = rows[end[b] - w + t, h]
    return cache


def write_rope(cache, rows, slots, wins, seq_lens, offsets, dtype, exact=True):
    """KVHEAD_ROPE: item i = b * heads + h with o = offsets[i], w = wins[i]: when o == -1 or w == 0 every token of
    head h of sequence b goes to consecutive slots from slots[i]; else tokens before o, then the mean of tokens
    [o, o + w) in one slot, then tokens from o + w.

    exact=True: the mean as float32 sums in token order divided in float32 and rounded to the dtype (the raw cache
    is returned). exact=False: the float64 mean, and the cache is returned as float64 values.
    """
    cache = cache.copy() if exact else _as_float32(cache, dtype).astype(np.float64)
    values = rows if exact else _as_float32(rows, dtype).astype(np.float64)
    flat = nd_slot_rows(cache)
    heads = rows.shape[1]
    start = np.concatenate(([0], np.cumsum(seq_lens)[:-1])).astype(int)
    for i, slot in enumerate(slots):
        if slot < 0:
            continue
        b, h = divmod(i, heads)
        length, w, o = seq_lens[b], wins[i], offsets[i]
        tokens = values[start[b]:start[b] + length, h]
        if o == -1 or w == 0:
            out = list(tokens)
        else:
            window = tokens[o:o + w]
            mean = _fp32_mean(window, dtype) if exact else window.mean(axis=0)
            out = list(tokens[:o]) + [mean] + list(tokens[o + w:])
        for k, row in enumerate(out):
            flat[slot + k, 0] = row
    return cache


def _fp32_mean(window, dtype):
    total = np.zeros(window.shape[1], dtype=np.float32)
    for row in window:
        total = total + _as_float32(row, dtype)
    return _from_float32(total / np.float32(len(window)), dtype)
