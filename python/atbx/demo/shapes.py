"""Attention shapes of real models the demo can serve (heads, KV heads, head sizes), by name."""
from dataclasses import dataclass


@dataclass(frozen=True)
class AttentionShape:
    name: str
    heads: int
    kv_heads: int
    head_dim: int      # query and key head size
    value_dim: int     # value head size (the output's head size)
    rope_dim: int      # channels of each query/key head that RoPE rotates (the trailing ones)
    mla: bool = False  # one combined latent KV head: V is the first value_dim channels of K (docs/spec MLA)

    @property
    def kv_width(self):
        """Channels one token stores per KV head: K and V, or the combined latent for MLA."""
        return self.head_dim if self.mla else self.head_dim + self.value_dim

    def describe(self):
        if self.mla:
            return (f"{self.name}: MLA, {self.heads} heads over 1 latent KV head of {self.head_dim} "
                    f"(values: first {self.value_dim}, RoPE: last {self.rope_dim})")
        return f"{self.name}: {self.heads} heads over {self.kv_heads} KV heads of {self.head_dim}"


SHAPES = {
    "llama3-8b": AttentionShape("llama3-8b", 32, 8, 128, 128, 128),
    "qwen2-7b": AttentionShape("qwen2-7b", 28, 4, 128, 128, 128),
    # DeepSeek-V2-Lite-like absorbed MLA: 512 latent channels plus a 64-channel RoPE key, one shared KV head.
    "mla": AttentionShape("mla", 16, 1, 576, 512, 64, mla=True),
}
