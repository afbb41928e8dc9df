"""The three operations as functions with ATB's parameter names in snake_case.

Each function builds the case-file param from its keyword arguments (a keyword left at None is left out, so
the field takes ATB's default), takes the Operation for that param (created on first use, then kept: see
_operation_for) and passes it the given tensors in the order ATB's param asks for. Enum-valued keywords take
what the case-file param takes (ATB's integer values).
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from typing import Any

from ._operation import Operation

# Operations a thread keeps for the functions, most recently used last: creating one (parsing and checking its
# param) took about 60 % of a small decode step's call, and a model calls the same few params layer after
# layer. Per thread, so that calls from several threads still run in parallel (an Operation runs one call at
# a time); a few dozen, since each keeps the workspace of its largest call.
_MAX_KEPT_OPERATIONS = 32
_kept = threading.local()


@functools.lru_cache(maxsize=None)  # the functions' keywords: a few dozen names, converted on every call
def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _snake(camel: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel)


def _run(op: str, tensors: dict[str, Any], params: dict[str, Any], out: Any, platform: str, backend: str,
         threads: int | None) -> list[Any]:
    """Calls this thread's Operation for the param (_operation_for) with the tensors (by snake_case name) in ATB
    order."""
    param = {_camel(name): value for name, value in params.items() if value is not None}
    operation = _operation_for(op, param, platform, backend, threads)
    given = {_camel(name): value for name, value in tensors.items() if value is not None}
    names = operation.input_names
    missing = [_snake(name) for name in names if name not in given]
    if missing:
        raise ValueError(f"{op} with param {param} takes {', '.join(_snake(n) for n in names)}; "
                         f"missing: {', '.join(missing)}")
    unused = [_snake(name) for name in given if name not in names]
    if unused:
        raise ValueError(f"{op} with param {param} takes no {', '.join(unused)} (it takes "
                         f"{', '.join(_snake(n) for n in names)}); set the param that asks for it")
    outputs = operation([given[name] for name in names], out=None if out is None else [out])
    return outputs


def _operation_for(op: str, param: dict[str, Any], platform: str, backend: str, threads: int | None) -> Operation:
    """This thread's Operation for the arguments: the kept one, or a new one. The key holds the param's values with
    their types (True and 1 are different JSON); a param holding a list cannot be a key and is not kept."""
    key = (op, tuple((name, type(value).__name__, value) for name, value in sorted(param.items())), platform,
           backend, threads)
    kept = getattr(_kept, "operations", None)
    if kept is None:
        kept = _kept.operations = OrderedDict()
    try:
        operation = kept.get(key)
    except TypeError:
        return Operation(op, param, platform=platform, backend=backend, threads=threads)
    if operation is not None:
        kept.move_to_end(key)
        return operation
    operation = Operation(op, param, platform=platform, backend=backend, threads=threads)
    kept[key] = operation
    if len(kept) > _MAX_KEPT_OPERATIONS:
        kept.popitem(last=False)
    return operation


def paged_attention(query, key_cache, value_cache, block_tables, context_lens, *, head_num: int,
                    kv_head_num: int = 0, qk_scale: float = 1.0, mask=None, mask_type: int | None = None,
                    calc_type: int | None = None, q_seq_len=None, batch_run_status=None,
                    k_descale=None, k_offset=None, v_descale=None, v_offset=None, razor_offset=None,
                    p_scale=None, log_n=None, quant_type: int | None = None, out_data_type: int | None = None,
                    compress_type: int | None = None, scale_type: int | None = None,
                    input_layout: int | None = None, mla_v_head_size: int | None = None,
                    q_scale: float | None = None, out=None, platform: str = "atlas-a2", backend: str = "auto",
                    threads: int | None = None):
    """PagedAttentionOperation: decode attention over a paged KV cache; returns attnOut.

    Shapes (BSND caches; TYPE_BNSD swaps the cache's block_size and kv_head dims):
        query         [num_tokens, head_num, head_size]            float16 or bfloat16 (int8 with QKV quant)
        key_cache     [num_blocks, block_size, kv_head_num, head_size]   query's dtype (int8 with dequant)
        value_cache   [num_blocks, block_size, kv_head_num, head_size_v] None for MLA (mla_v_head_size > 0)
        block_tables  [batch, max_blocks_per_seq]                   int32
        context_lens  [batch]                                        int32 (host)
        mask          NORM [batch, 1, max_ctx] or [1, max_ctx], ALIBI [batch, head_num, 1, max_ctx], SPEC ...
        q_seq_len     [batch] int32 (calcType SPEC: query tokens per batch)
        returns       [num_tokens, head_num, head_size_v]           query's dtype (out_data_type with quant)

    Derived param fields, unless given: maskType NORM (1) when a mask is given, calcType SPEC (1) when
    q_seq_len is given, batchRunStatusEnable when batch_run_status is given, hasQuantOffset when k_offset is
    given, scaleType LOGN (1) when log_n is given. docs/spec/paged_attention.md has every combination.
    """
    params = dict(head_num=head_num, kv_head_num=kv_head_num, qk_scale=qk_scale,
                  mask_type=mask_type if mask_type is not None else (1 if mask is not None else None),
                  calc_type=calc_type if calc_type is not None else (1 if q_seq_len is not None else None),
                  batch_run_status_enable=True if batch_run_status is not None else None,
                  has_quant_offset=True if k_offset is not None else None,
                  scale_type=scale_type if scale_type is not None else (1 if log_n is not None else None),
                  quant_type=quant_type, out_data_type=out_data_type, compress_type=compress_type,
                  input_layout=input_layout, mla_v_head_size=mla_v_head_size, q_scale=q_scale)
    tensors = dict(query=query, key_cache=key_cache, value_cache=value_cache, block_tables=block_tables,
                   context_lens=context_lens, mask=mask, batch_run_status=batch_run_status, k_descale=k_descale,
                   k_offset=k_offset, v_descale=v_descale, v_offset=v_offset, q_seq_len=q_seq_len,
                   razor_offset=razor_offset, p_scale=p_scale, log_n=log_n)
    return _run("PagedAttention", tensors, params, out, platform, backend, threads)[0]


def self_attention(query, key=None, value=None, *, head_num: int, seq_len, kv_head_num: int | None = None,
                   qk_scale: float | None = None, q_scale: float | None = None, calc_type: int | None = None,
                   mask=None, mask_type: int | None = None, kv_seq_len=None, token_offset=None, layer_id=None,
                   cache_k=None, cache_v=None, block_tables=None, batch_run_status=None, slopes=None,
                   qk_descale=None, qk_offset=None, vpv_descale=None, vpv_offset=None, p_scale=None, log_n=None,
                   quant_type: int | None = None, out_data_type: int | None = None,
                   is_triu_mask: int | None = None, kernel_type: int | None = None,
                   clamp_type: int | None = None, clamp_min: float | None = None, clamp_max: float | None = None,
                   kvcache_cfg: int | None = None, scale_type: int | None = None,
                   input_layout: int | None = None, mla_v_head_size: int | None = None,
                   cache_type: int | None = None, window_size: int | None = None, out=None,
                   platform: str = "atlas-a2", backend: str = "auto", threads: int | None = None):
    """SelfAttentionOperation: prefill (and FA-cache decode) attention; returns attnOut.

    Modes by calc_type: UNDEFINED (0) / ENCODER (1) / DECODER (2) keep the KV cache in the op (cache_k,
    cache_v [layers, batch, max_seq, kv_head_num * head_size] updated in place with key and value; with
    kvcache_cfg K_BYPASS_V_BYPASS (1) the caches already hold them and key/value are not given);
    PA_ENCODER (3) attends over packed key/value of the current tokens; PREFIX_ENCODER (4) reads the prefix
    from a paged cache (key/value are the caches, block_tables, kv_seq_len).

    Shapes (PA_ENCODER):
        query    [num_tokens, head_num, head_size]       float16 or bfloat16 (int8 with QKV quant)
        key      [num_tokens, kv_head_num, head_size]
        value    [num_tokens, kv_head_num, head_size_v]  None for MLA (mla_v_head_size > 0)
        seq_len  [batch] int32 (host)
        returns  [num_tokens, head_num, head_size_v]

    Derived param fields, unless given: maskType NORM (1) when a mask is given, batchRunStatusEnable when
    batch_run_status is given, scaleType LOGN (1) when log_n is given. docs/spec/self_attention.md has every
    mode and mask.
    """
    params = dict(head_num=head_num, kv_head_num=kv_head_num, qk_scale=qk_scale, q_scale=q_scale,
                  calc_type=calc_type,
                  mask_type=mask_type if mask_type is not None else (1 if mask is not None else None),
                  batch_run_status_enable=True if batch_run_status is not None else None,
                  scale_type=scale_type if scale_type is not None else (1 if log_n is not None else None),
                  quant_type=quant_type, out_data_type=out_data_type, is_triu_mask=is_triu_mask,
                  kernel_type=kernel_type, clamp_type=clamp_type, clamp_min=clamp_min, clamp_max=clamp_max,
                  kvcache_cfg=kvcache_cfg, input_layout=input_layout, mla_v_head_size=mla_v_head_size,
                  cache_type=cache_type, window_size=window_size)
    tensors = dict(query=query, key=key, value=value, cache_k=cache_k, cache_v=cache_v,
                   block_tables=block_tables, mask=mask, token_offset=token_offset, seq_len=seq_len,
                   kv_seq_len=kv_seq_len, layer_id=layer_id, batch_run_status=batch_run_status, slopes=slopes,
                   qk_descale=qk_descale, qk_offset=qk_offset, vpv_descale=vpv_descale, vpv_offset=vpv_offset,
                   p_scale=p_scale, log_n=log_n)
    return _run("SelfAttention", tensors, params, out, platform, backend, threads)[0]


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, *, wins=None, seq_len=None,
                      offset_index=None, compress_type: int | None = None, kv_cache_cfg: int | None = None,
                      platform: str = "atlas-a2", backend: str = "auto", threads: int | None = None) -> None:
    """ReshapeAndCacheOperation: writes the new tokens' key and value into the paged caches, in place.

    Shapes (ND caches):
        key           [num_tokens, kv_head_num, head_size]       float16, bfloat16 or int8
        value         [num_tokens, kv_head_num, head_size_v]     None with K_CACHE_V_BYPASS
        key_cache     [num_blocks, block_size, kv_head_num, head_size]       key's dtype, updated in place
        value_cache   [num_blocks, block_size, kv_head_num, head_size_v]     None with K_CACHE_V_BYPASS
        slot_mapping  [num_tokens] int32: the cache row (block * block_size + offset) of each token; < 0 skips

    Derived param fields, unless given: kvCacheCfg K_CACHE_V_BYPASS (1) when value and value_cache are None;
    compressType KVHEAD_ROPE (2) when offset_index is given, KVHEAD (1) when wins is given.
    """
    if kv_cache_cfg is None and value is None and value_cache is None:
        kv_cache_cfg = 1
    if compress_type is None:
        compress_type = 2 if offset_index is not None else (1 if wins is not None else None)
    tensors = dict(key=key, value=value, key_cache=key_cache, value_cache=value_cache, slot_mapping=slot_mapping,
                   wins=wins, seq_len=seq_len, offset_index=offset_index)
    _run("ReshapeAndCache", tensors, dict(compress_type=compress_type, kv_cache_cfg=kv_cache_cfg), None,
         platform, backend, threads)
