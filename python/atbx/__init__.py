"""atbx: Ascend Transformer Boost's attention operations (PagedAttention, SelfAttention, ReshapeAndCache) on
x86-64 CPUs, for NumPy arrays and PyTorch CPU tensors.

    import atbx
    out = atbx.paged_attention(query, key_cache, value_cache, block_tables, context_lens,
                               head_num=32, kv_head_num=8, qk_scale=0.0884)
    op = atbx.Operation("PagedAttention", {"headNum": 32, "kvHeadNum": 8, "qkScale": 0.0884})
    (out,) = op([query, key_cache, value_cache, block_tables, context_lens])

docs/python.md is the reference.
"""

from ._atbx import __version__, rules
from ._arrays import TensorSpec
from ._errors import ConstraintError, ParamError, Violation
from ._functions import paged_attention, reshape_and_cache, self_attention
from ._operation import BACKENDS, PLATFORMS, Operation

__all__ = ["__version__", "BACKENDS", "ConstraintError", "Operation", "ParamError", "PLATFORMS", "TensorSpec",
           "Violation", "paged_attention", "reshape_and_cache", "rules", "self_attention"]
