"""A small random-weight decoder-only transformer in NumPy, cut open around its attention.

Per layer: RMSNorm -> Q/K/V projection -> RoPE on q and k -> attention (done elsewhere: the serving path's
operations, or the full recompute) -> output projection and residual -> RMSNorm -> SwiGLU MLP and residual.
The attention shape (heads, KV heads, head sizes) is a real model's; the rest is shrunk so the demo runs in
seconds. Weights are scaled so attention is sharp (scores of a few units), not a near-uniform average.

Shapes: x [N, hidden]; q [N, heads, head_dim]; k [N, kv_heads, head_dim]; v [N, kv_heads, value_dim], or None for
MLA, whose values are the first value_dim channels of its one latent key head; attention output
[N, heads, value_dim]; logits [N, vocab].
"""
import numpy as np


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def apply_rope(x, positions, rope_dim, theta=10000.0):
    """Rotates the trailing rope_dim channels of every head of x [N, heads, dim] by each row's position."""
    half = rope_dim // 2
    freqs = theta ** (-np.arange(half, dtype=np.float64) * 2.0 / rope_dim)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * freqs[None, :]  # [N, half]
    cos = np.cos(angles).astype(np.float32)[:, None, :]
    sin = np.sin(angles).astype(np.float32)[:, None, :]
    out = x.copy()
    first, second = x[..., -rope_dim:-half], x[..., -half:]
    out[..., -rope_dim:-half] = first * cos - second * sin
    out[..., -half:] = second * cos + first * sin
    return out


class Layer:
    def __init__(self, shape, hidden, mlp, rng, score_gain, branch_gain):
        def weight(rows, cols, gain=1.0):
            return (rng.standard_normal((rows, cols)) * gain / np.sqrt(rows)).astype(np.float32)

        self.attn_norm = (1 + 0.1 * rng.standard_normal(hidden)).astype(np.float32)
        self.mlp_norm = (1 + 0.1 * rng.standard_normal(hidden)).astype(np.float32)
        self.wq = weight(hidden, shape.heads * shape.head_dim, score_gain)
        self.wk = weight(hidden, shape.kv_heads * shape.head_dim, score_gain)
        self.wv = None if shape.mla else weight(hidden, shape.kv_heads * shape.value_dim)
        self.wo = weight(shape.heads * shape.value_dim, hidden, branch_gain)
        self.w_gate = weight(hidden, mlp)
        self.w_up = weight(hidden, mlp)
        self.w_down = weight(mlp, hidden, branch_gain)


class TinyTransformer:
    def __init__(self, shape, layers=2, hidden=256, vocab=512, seed=0):
        rng = np.random.default_rng(seed)
        self.shape = shape
        self.vocab = vocab
        self.hidden = hidden
        # Scores q.k * 1/sqrt(D) with standard-normal q and k channels have unit spread; the gain makes them a
        # few units, so each query attends to a few keys and a wrong key or position shows in the output.
        self.score_gain = 1.6
        # Attention and MLP add about a third of the embedding's size to the residual stream: the next token
        # depends on the context (roughly half the greedy choices differ from what the current token alone
        # suggests), yet often enough on the last tokens that a cheap n-gram drafter is sometimes right.
        self.branch_gain = 0.3
        self.embedding = rng.standard_normal((vocab, hidden)).astype(np.float32)
        self.layers = [Layer(shape, hidden, 2 * hidden, rng, self.score_gain, self.branch_gain)
                       for _ in range(layers)]
        self.final_norm = np.ones(hidden, dtype=np.float32)
        self.unembedding = (rng.standard_normal((hidden, vocab)) * 3 / np.sqrt(hidden)).astype(np.float32)

    @property
    def qk_scale(self):
        return float(1.0 / np.sqrt(self.shape.head_dim))

    def embed(self, tokens):
        return self.embedding[np.asarray(tokens, dtype=np.int64)]

    def qkv(self, index, x, positions):
        """x [N, hidden] at absolute positions [N] -> q, k, v of layer `index` (v None for MLA)."""
        layer, shape = self.layers[index], self.shape
        h = rms_norm(x, layer.attn_norm)
        q = (h @ layer.wq).reshape(len(x), shape.heads, shape.head_dim)
        k = (h @ layer.wk).reshape(len(x), shape.kv_heads, shape.head_dim)
        q = apply_rope(q, positions, shape.rope_dim)
        k = apply_rope(k, positions, shape.rope_dim)
        v = None if shape.mla else (h @ layer.wv).reshape(len(x), shape.kv_heads, shape.value_dim)
        return q, k, v

    def finish_layer(self, index, x, attention):
        """Residual stream after layer `index`, given its attention output [N, heads, value_dim]."""
        layer = self.layers[index]
        x = x + attention.reshape(len(x), -1) @ layer.wo
        h = rms_norm(x, layer.mlp_norm)
        gate = h @ layer.w_gate
        return x + (gate / (1 + np.exp(-gate)) * (h @ layer.w_up)) @ layer.w_down

    def logits(self, x):
        return rms_norm(x, self.final_norm) @ self.unembedding
