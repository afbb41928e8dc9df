"""The serving demo: `python -m atbx.demo --help`.

A small inference engine around atbx's three operations: a paged KV block manager with reference-counted prefix
sharing and copy-on-write (block_manager), continuous batching (scheduler), prefill through SelfAttention
PA_ENCODER / PREFIX_ENCODER, cache writes through ReshapeAndCache, decode and speculative verification through
PagedAttention (attention_ops, engine), a random-weight transformer in NumPy (model), and a check of every token
against a full recompute without the cache (full_recompute, check).
"""
