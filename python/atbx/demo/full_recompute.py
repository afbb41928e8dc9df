"""The model over a whole token sequence at once, without any cache: plain NumPy causal attention.

This is the serving path's yardstick. q, k and v are rounded to the serving dtype exactly as the serving path
rounds them before handing them to the operations, and the attention output is rounded the same way, so both
paths compute one function; only the operations' summation order and internal precision differ. Attention itself
is float64 here.
"""
import numpy as np

from .dtypes import round_to


def causal_attention(q, k, v, scale):
    """q [S, H, D], k [S, Hk, D], v [S, Hk, Dv] of one sequence -> [S, H, Dv]; row i attends to keys 0..i."""
    group = q.shape[1] // k.shape[1]
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    hidden = np.triu(np.ones((len(q), len(q)), dtype=bool), 1)
    out = np.empty((q.shape[0], q.shape[1], v.shape[2]))
    for h in range(q.shape[1]):
        scores = np.where(hidden, -np.inf, q64[:, h] @ k64[:, h // group].T * scale)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        out[:, h] = (weights / weights.sum(axis=1, keepdims=True)) @ v64[:, h // group]
    return out.astype(np.float32)


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
