"""The two activation dtypes the demo serves in, and their NumPy form at the operations' boundary: float16, and
ml_dtypes.bfloat16 (the bf16 NumPy dtype atbx takes). Both round float32 to nearest even."""
import ml_dtypes
import numpy as np

DTYPES = ("fp16", "bf16")
NUMPY_DTYPES = {"fp16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16)}


def to_op(values, dtype):
    """float32 values -> the array an operation takes, C-contiguous."""
    return np.ascontiguousarray(values, dtype=NUMPY_DTYPES[dtype])


def from_op(array):
    """An operation's output -> float32."""
    return np.asarray(array, dtype=np.float32)


def round_to(values, dtype):
    """float32 values rounded to the dtype and back: what an operation sees of them."""
    return from_op(to_op(values, dtype))
