"""The model over a whole token sequence at once, without any cache: plain NumPy causal attention.

This is the serving path's yardstick. q, k and v are rounded to the serving dtype exactly as the serving path
rounds them before handing them to the operations, and the attention output is rounded the same way, so both
paths compute one function; only the operations' summation order and internal precision differ.
"""
import numpy as np

from .dtypes import round_to


def causal_attention(q, k, v, scale):
    """q [S, H, D], k [S, Hk, D], v [S, Hk, Dv] of one sequence -> [S, H, Dv]; row i attends to keys 0..i.

    Query heads [g*G, (g+1)*G) share KV head g (G = H / Hk), so each KV head's G query heads are one batch of
    matrix products: scores [Hk, G, S, S], in float32 like the operations' own accumulation.
    """
    length, heads, _ = q.shape
    kv_heads, group = k.shape[1], heads // k.shape[1]
    grouped = q.reshape(length, kv_heads, group, -1).transpose(1, 2, 0, 3)    # [Hk, G, S, D]
    scores = np.matmul(grouped, k.transpose(1, 2, 0)[:, None]) * np.float32(scale)  # [Hk, G, S, S]
    scores[..., np.triu(np.ones((length, length), dtype=bool), 1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.matmul(weights, v.transpose(1, 0, 2)[:, None])                   # [Hk, G, S, Dv]
    return out.transpose(2, 0, 1, 3).reshape(length, heads, -1).astype(np.float32)


def full_recompute_logits(model, tokens, dtype):
    """Logits [len(tokens), vocab] of every position of `tokens`, recomputed from scratch."""
    x = model.embed(tokens)
    positions = np.arange(len(tokens))
    for index in range(len(model.layers)):
        q, k, v = model.qkv(index, x, positions)
        q, k = round_to(q, dtype), round_to(k, dtype)
        v = k[..., :model.shape.value_dim] if v is None else round_to(v, dtype)
        attention = round_to(causal_attention(q, k, v, model.qk_scale), dtype)
        x = model.finish_layer(index, x, attention)
    return model.logits(x)
