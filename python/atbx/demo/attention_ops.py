"""Every layer's paged KV cache, and the atbx operations that write and read it.

Caches (BSND, one pair per layer): key [num_blocks, block_size, kv_heads, head_dim], value [..., value_dim]; MLA
keeps one combined latent cache [num_blocks, block_size, 1, head_dim] whose first value_dim channels are the
values. Inputs are passed in ATB's order (docs/spec/self_attention.md 2.4, 2.5 and 4.1;
docs/spec/paged_attention.md 2.1); params are the case-file JSON `param` (docs/case-files.md).

- write:   ReshapeAndCache, rows [T, kv_heads, D] to slots [T] (MLA: key only, kvCacheCfg K_CACHE_V_BYPASS).
- prefill: SelfAttention PA_ENCODER over packed prompts (their keys and values passed directly, causal mask).
- prefix:  SelfAttention PREFIX_ENCODER: the new part of each prompt against its cached prefix plus itself; the
           cache must already hold both (ATB's rule), so the new rows are written first.
- decode:  PagedAttention, one query row per sequence.
- verify:  PagedAttention calcType SPEC: q_len_b rows per sequence (a draft plus the token before it), causal.

atlas-350 runs only the basic calls (docs/spec/DECISIONS.md, platform profiles): no PREFIX_ENCODER, no SPEC, and
its PA_ENCODER masks are int8 flags (1 hides a key).
"""
import numpy as np

from .dtypes import NUMPY_DTYPES, to_op

# Mask values (docs/spec/DECISIONS.md 8 and 12): fp16 masks are added to the scores (-10000 hides a key); bf16
# masks of PA_ENCODER and of MLA SPEC decoding are 0/1 flags (1 hides a key); other PagedAttention masks are additive.
ADDITIVE_MASKED = -10000.0

CALC_PA_ENCODER, CALC_PREFIX_ENCODER = 3, 4
PA_CALC_SPEC = 1
SA_MASK_NORM, SA_MASK_CAUSAL = 1, 9
PA_MASK_NORM, PA_MASK_SPEC = 1, 3
KERNEL_HIGH_PRECISION = 1
RAC_KEY_ONLY = 1


BASIC_ONLY_PLATFORMS = ("atlas-350",)


def causal_mask(size, flags, dtype):
    """[size, size] mask hiding key j from query i when j > i: flags (1) or additive (-10000); dtype "int8" for
    integer flags."""
    upper = np.triu(np.ones((size, size), dtype=np.float32), 1)
    if dtype == "int8":
        return upper.astype(np.int8)
    return to_op(upper if flags else upper * ADDITIVE_MASKED, dtype)


class AttentionOps:
    """make_op(label, op name, case-file param) -> a callable taking ATB-ordered inputs, returning the outputs."""

    def __init__(self, make_op, shape, dtype, layers, num_blocks, block_size, max_context, qk_scale,
                 platform="atlas-a2"):
        self.shape, self.dtype, self.block_size = shape, dtype, block_size
        basic = platform in BASIC_ONLY_PLATFORMS
        self.max_context = max_context
        element = NUMPY_DTYPES[dtype]
        key_shape = (num_blocks, block_size, shape.kv_heads, shape.head_dim)
        value_shape = (num_blocks, block_size, shape.kv_heads, shape.value_dim)
        self.key_cache = [np.zeros(key_shape, element) for _ in range(layers)]
        self.value_cache = None if shape.mla else [np.zeros(value_shape, element) for _ in range(layers)]

        heads = {"headNum": shape.heads, "kvHeadNum": shape.kv_heads, "qkScale": qk_scale}
        mla = {"mlaVHeadSize": shape.value_dim} if shape.mla else {}
        self._write = make_op("ReshapeAndCache", "ReshapeAndCache",
                              {"kvCacheCfg": RAC_KEY_ONLY} if shape.mla else {})
        self._prefill = make_op("SelfAttention PA_ENCODER", "SelfAttention",
                                {**heads, "calcType": CALC_PA_ENCODER, "maskType": SA_MASK_NORM, **mla})
        self._prefix = None if shape.mla or basic else make_op(
            "SelfAttention PREFIX_ENCODER", "SelfAttention",
            {**heads, "calcType": CALC_PREFIX_ENCODER, "maskType": SA_MASK_CAUSAL, "isTriuMask": 1,
             "kernelType": KERNEL_HIGH_PRECISION})
        self._decode = make_op("PagedAttention", "PagedAttention", {**heads, **mla})
        spec_mask = PA_MASK_SPEC if shape.mla else PA_MASK_NORM
        self._verify = None if basic else make_op(
            "PagedAttention SPEC", "PagedAttention",
            {**heads, **mla, "calcType": PA_CALC_SPEC, "maskType": spec_mask})
        # The prefill mask is shared by every call ([max, max] covers every prompt); bf16 reads it as flags.
        self._prefill_mask = causal_mask(max_context, dtype == "bf16", "int8" if basic else dtype)
        # Non-MLA SPEC: one square NORM mask, read at row L_b - q_b + i (docs/spec/paged_attention.md 3.5).
        self._verify_square_mask = None if shape.mla else causal_mask(max_context, False, dtype)
        self._spec_flags = shape.mla and dtype == "bf16"

    @property
    def supports_prefix(self):
        """PREFIX_ENCODER has no MLA form and is atlas-a2 only (docs/spec/self_attention.md 5.1)."""
        return self._prefix is not None

    @property
    def supports_spec(self):
        return self._verify is not None

    def kernels(self):
        """label -> the kernel its last call ran ("cpu:scalar", ...), for the operations that ran."""
        ops = (self._write, self._prefill, self._prefix, self._decode, self._verify)
        return {op.label: op.kernel for op in ops if op is not None and op.kernel}

    def cache_bytes(self):
        caches = self.key_cache + (self.value_cache or [])
        return sum(c.nbytes for c in caches)

    def copy_block(self, source, destination):
        """Copy-on-write: block `source`'s rows into block `destination`, in every layer."""
        for cache in self.key_cache + (self.value_cache or []):
            cache[destination] = cache[source]

    def write(self, layer, keys, values, slots):
        """keys [T, kv_heads, D] (and values [T, kv_heads, Dv]) into cache rows `slots` [T] of `layer`."""
        slots = np.asarray(slots, dtype=np.int32)
        if self.shape.mla:
            (self.key_cache[layer],) = self._write([to_op(keys, self.dtype), self.key_cache[layer], slots])
            return
        self.key_cache[layer], self.value_cache[layer] = self._write(
            [to_op(keys, self.dtype), to_op(values, self.dtype), self.key_cache[layer], self.value_cache[layer],
             slots])

    def prefill(self, q, k, v, lengths):
        """Whole prompts packed: q [N, H, D], k [N, Hk, D], v [N, Hk, Dv] (None for MLA) -> [N, H, Dv]."""
        inputs = [to_op(q, self.dtype), to_op(k, self.dtype)]
        if not self.shape.mla:
            inputs.append(to_op(v, self.dtype))
        inputs += [self._prefill_mask, np.asarray(lengths, dtype=np.int32)]
        return self._prefill(inputs)[0]

    def prefill_after_prefix(self, layer, q, new_lengths, total_lengths, tables):
        """The new rows q [sum(new), H, D] of prompts whose prefix is cached; their own K/V are written."""
        return self._prefix([to_op(q, self.dtype), self.key_cache[layer], self.value_cache[layer],
                             self._table(tables), np.asarray(new_lengths, dtype=np.int32),
                             np.asarray(total_lengths, dtype=np.int32)])[0]

    def decode(self, layer, q, tables, context_lengths):
        """One row per sequence: q [B, H, D] over each sequence's first context_lengths[b] keys -> [B, H, Dv]."""
        return self._decode(self._paged_inputs(layer, q, tables, context_lengths))[0]

    def verify(self, layer, q, tables, context_lengths, query_lengths):
        """q [sum(query_lengths), H, D]: the last query_lengths[b] positions of sequence b, causally."""
        inputs = self._paged_inputs(layer, q, tables, context_lengths)
        inputs += [self._spec_mask(context_lengths, query_lengths), np.asarray(query_lengths, dtype=np.int32)]
        return self._verify(inputs)[0]

    def _paged_inputs(self, layer, q, tables, context_lengths):
        inputs = [to_op(q, self.dtype), self.key_cache[layer]]
        if not self.shape.mla:
            inputs.append(self.value_cache[layer])
        return inputs + [self._table(tables), np.asarray(context_lengths, dtype=np.int32)]

    def _spec_mask(self, context_lengths, query_lengths):
        """Non-MLA: the square NORM mask. MLA: a SPEC mask [T, max L], row cu_b + i hiding keys past L_b - q_b + i."""
        if not self.shape.mla:
            return self._verify_square_mask
        columns = np.arange(max(context_lengths))
        rows = [columns > length - count + i
                for length, count in zip(context_lengths, query_lengths) for i in range(count)]
        hidden = np.array(rows, dtype=np.float32)
        return to_op(hidden if self._spec_flags else hidden * ADDITIVE_MASKED, self.dtype)

    def _table(self, tables):
        """Block tables padded to one width with block 0 (entries past a sequence's length are never read)."""
        width = max(len(t) for t in tables)
        table = np.zeros((len(tables), width), dtype=np.int32)
        for row, blocks in zip(table, tables):
            row[:len(blocks)] = blocks
        return table
