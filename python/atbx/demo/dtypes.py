"""The two activation dtypes the demo serves in, and their NumPy form at the operations' boundary.

fp16 is NumPy's float16. bf16 has no NumPy dtype: as in case files (docs/case-files.md), a bf16 tensor is a
uint16 array of raw bf16 bits, rounded from float32 to nearest even.
"""
import numpy as np

DTYPES = ("fp16", "bf16")


def to_op(values, dtype):
    """float32 values -> the array an operation takes (float16, or uint16 bf16 bits)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    if dtype == "fp16":
        return values.astype(np.float16)
    bits = values.view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def from_op(array, dtype):
    """An operation's output (float16, or uint16 bf16 bits) -> float32."""
    if dtype == "fp16":
        return np.asarray(array, dtype=np.float32)
    return (np.asarray(array).astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_to(values, dtype):
    """float32 values rounded to the dtype and back: what an operation sees of them."""
    return from_op(to_op(values, dtype), dtype)


def itemsize(dtype):
    return 2
