"""Independent NumPy golden for PagedAttention, written from paged_attention.md section 3 and DECISIONS.md.

Everything here is float64 and plain: gather the keys of each sequence through its block table, score, mask,
softmax, weight the values. It shares no code with atbx.
"""
import numpy as np


def gather(cache, block_tables, b, length, layout):
    """Rows [0, length) of sequence b: [length, kv_heads, head_dim]."""
    bs = cache.shape[2] if layout == "BNSD" else cache.shape[1]
    rows = []
    for j in range(length):
        block = block_tables[b][j // bs]
        slot = j % bs
        rows.append(cache[block, :, slot, :] if layout == "BNSD" else cache[block, slot, :, :])
    return np.stack(rows) if rows else np.zeros((0,) + cache.shape[2:])


def paged_attention(q, k_cache, v_cache, block_tables, context_lens, head_num, kv_head_num, qk_scale,
                    layout="BSND", q_seq_lens=None, mask_term=None):
    """q: [T, H, D]; caches by layout; returns [T, H, Dv] in float64.

    q_seq_lens: rows per batch (SPEC); None means one row per batch. Batches with context length 0 are skipped and
    take no query row. mask_term(b, i, h, length) -> [length] additive term for query row i of batch b.
    """
    kv_head_num = kv_head_num or head_num
    group = head_num // kv_head_num
    t_rows, _, _ = q.shape
    dv = v_cache.shape[-1]
    out = np.full((t_rows, head_num, dv), np.nan)
    row = 0
    for b, length in enumerate(context_lens):
        q_len = 1 if q_seq_lens is None else q_seq_lens[b]
        if length == 0 or q_len == 0:
            continue
        keys = gather(k_cache, block_tables, b, length, layout)
        values = gather(v_cache, block_tables, b, length, layout)
        for i in range(q_len):
            for h in range(head_num):
                kvh = h // group
                scores = keys[:, kvh, :] @ q[row + i, h, :] * qk_scale
                if mask_term is not None:
                    scores = scores + mask_term(b, i, h, length)
                weights = np.exp(scores - scores.max())
                weights /= weights.sum()
                out[row + i, h, :] = weights @ values[:, kvh, :]
        row += q_len
    return out
