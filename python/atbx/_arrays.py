"""NumPy arrays and PyTorch tensors as atbx sees them: ATB dtype names and codes, the array kind, and the
zero-copy views handed to the extension (bfloat16 and bool travel as same-sized integers)."""

from __future__ import annotations

import sys
from typing import Any, Callable, NamedTuple, Sequence

import ml_dtypes
import numpy as np

# ATB dtype name -> CANN aclDataType code (include/atbx/types.h).
DTYPE_CODES = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "uint32": 8, "int64": 9,
               "uint64": 10, "bool": 12, "bfloat16": 27}
DTYPE_NAMES = {code: name for name, code in DTYPE_CODES.items()}
FORMAT_CODES = {"ND": 2, "FRACTAL_NZ": 29}
FORMAT_NAMES = {code: name for name, code in FORMAT_CODES.items()}
# NumPy dtypes (native byte order) by ATB name: one dict lookup per array, where reading `dtype.name` runs
# NumPy's Python code (about a third of a small call's time in the wrapper).
_NUMPY_NAMES = {np.dtype(ml_dtypes.bfloat16 if name == "bfloat16" else name): name for name in DTYPE_CODES}

# An argument's name in messages ("input 0 (query)"), built only when a message needs it.
Label = Callable[[], str]


class TensorSpec(NamedTuple):
    """A tensor described without data: shape, ATB dtype name ("float16", "bfloat16", ...), format."""

    shape: tuple[int, ...]
    dtype: str
    format: str = "ND"


def _torch():
    """The torch module when the program imported it (atbx never imports torch itself)."""
    return sys.modules.get("torch")


def is_torch(array: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(array, torch.Tensor)


def dtype_name(array: Any, label: Label) -> str:
    """The ATB dtype name of a NumPy array or torch tensor; TypeError when ATB has no such dtype."""
    if isinstance(array, np.ndarray):
        name = _NUMPY_NAMES.get(array.dtype)
        if name is not None:
            return name
        if array.dtype.name in DTYPE_CODES:
            raise TypeError(f"{label()} has dtype {array.dtype.name} in non-native byte order ({array.dtype.str}); "
                            "atbx reads arrays in native order (pass x.astype(x.dtype.newbyteorder('=')))")
        name = array.dtype.name
    elif is_torch(array):
        name = str(array.dtype).removeprefix("torch.")
    else:
        raise TypeError(f"{label()} must be a numpy.ndarray or a torch.Tensor, got {type(array).__name__}")
    if name not in DTYPE_CODES:
        raise TypeError(f"{label()} has dtype {name}; atbx takes {', '.join(sorted(DTYPE_CODES))} "
                        "(bfloat16 as ml_dtypes.bfloat16 or torch.bfloat16)")
    return name


def format_code(formats: Sequence[str | None] | None, index: int) -> int:
    name = formats[index] if formats is not None and index < len(formats) else None
    if name is None:
        return FORMAT_CODES["ND"]
    if name not in FORMAT_CODES:
        raise ValueError(f"unknown format {name!r} (ND, FRACTAL_NZ)")
    return FORMAT_CODES[name]


def extension_view(array: Any, name: str, label: Label) -> Any:
    """The array as the extension binds it, sharing its memory: bfloat16 and bool as uint16 and uint8."""
    if isinstance(array, np.ndarray):
        if not array.flags.writeable:
            raise ValueError(f"{label()} is read-only; atbx binds arrays in place (operations may update caches)")
        if name == "bfloat16":
            return array.view(np.uint16)
        if name == "bool":
            return array.view(np.uint8)
        return array
    torch = _torch()
    if array.device.type != "cpu":
        raise ValueError(f"{label()} is on device {array.device}; atbx runs on the CPU")
    if array.requires_grad:
        array = array.detach()
    if name == "bool":
        return array.view(torch.uint8)
    return array


def array_arg(array: Any, label: Label, fmt: int) -> tuple[Any, int, int]:
    name = dtype_name(array, label)
    return extension_view(array, name, label), DTYPE_CODES[name], fmt


def empty_like_kind(like_torch: bool, shape: Sequence[int], dtype: str) -> Any:
    """A new array of the kind of the call's first input: numpy in, numpy out; torch in, torch out."""
    if like_torch:
        torch = _torch()
        return torch.empty(tuple(shape), dtype=getattr(torch, dtype))
    numpy_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    return np.empty(tuple(shape), dtype=numpy_dtype)


def describe(array: Any, label: Label, fmt: int) -> tuple[list[int], int, int]:
    """(shape, dtype code, format code) of an array or a TensorSpec."""
    if isinstance(array, TensorSpec):
        if array.dtype not in DTYPE_CODES:
            raise TypeError(f"{label()} has dtype {array.dtype}; atbx takes {', '.join(sorted(DTYPE_CODES))}")
        return list(array.shape), DTYPE_CODES[array.dtype], FORMAT_CODES[array.format]
    return list(array.shape), DTYPE_CODES[dtype_name(array, label)], fmt
