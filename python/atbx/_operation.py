"""atbx.Operation: any of the three operations, created from a case-file param dict and called on arrays in
ATB's input order."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from . import _arrays, _atbx
from ._errors import Violation

PLATFORMS = ("atlas-a2", "atlas-inference", "atlas-training", "atlas-350")
BACKENDS = ("auto", "ref", "cpu")
_MAX_CACHED_SPECS = 256  # sets of input descriptors whose outputs an Operation keeps


def _json_value(value: Any) -> Any:
    """NumPy scalars in a param dict, as JSON numbers and booleans."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"param value {value!r} of type {type(value).__name__} is not a JSON number, bool or list")


class Operation:
    """One ATB operation: PagedAttention, SelfAttention or ReshapeAndCache.

    Args:
        op: "PagedAttention", "SelfAttention" or "ReshapeAndCache".
        param: exactly the case-file JSON's "param" object (docs/case-files.md): ATB's field names
            ("headNum", "kvHeadNum", "qkScale", "maskType", ...), enums as integers; absent fields take ATB's
            defaults.
        platform: the profile whose rules apply: "atlas-a2" (default), "atlas-inference", "atlas-training",
            "atlas-350".
        backend: "auto" (the fastest kernel that supports the call), "cpu" or "ref" (float64 reference).
        threads: threads for execution; None or 0 uses every hardware thread.

    Raises:
        ParamError: an unknown op or field, or a value of the wrong JSON type.
        ConstraintError: the param breaks a rule of the platform profile.

    One Operation runs one call at a time: calls from several threads on the same object run one after
    another; calls on different objects run in parallel (the GIL is released while they execute).
    """

    def __init__(self, op: str, param: Mapping[str, Any] | None = None, *, platform: str = "atlas-a2",
                 backend: str = "auto", threads: int | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r} ({', '.join(BACKENDS)})")
        if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 0):
            raise ValueError(f"threads must be an int >= 0 (0: every hardware thread) or None, got {threads!r}")
        self._handle = _atbx.Operation(op, json.dumps(dict(param or {}), default=_json_value), platform)
        self.backend = backend
        self.threads = threads
        # Fixed by the param: read once, not on every call.
        self._input_names = self._handle.input_names
        self._output_names = self._handle.output_names
        self._output_aliases = self._handle.output_aliases
        self._specs: dict[tuple[Any, ...], list[tuple[list[int], int, int]]] = {}  # _output_specs' results

    @property
    def op(self) -> str:
        """"PagedAttention", "SelfAttention" or "ReshapeAndCache"."""
        return self._handle.op

    @property
    def param(self) -> dict[str, Any]:
        """Every param field by ATB name, as the case-file JSON spells it (defaults filled in)."""
        return json.loads(self._handle.param_json)

    @property
    def platform(self) -> str:
        return self._handle.platform

    @property
    def input_names(self) -> list[str]:
        """ATB's names of the inputs this param takes, in ATB order ("query", "keyCache", ...)."""
        return list(self._input_names)

    @property
    def output_names(self) -> list[str]:
        return list(self._output_names)

    @property
    def kernel(self) -> str:
        """The kernel the last call ran ("cpu:scalar", "reference", ...); empty before the first call."""
        return self._handle.kernel

    def _label(self, index: int) -> str:
        names = self._input_names
        return f"input {index} ({names[index]})" if index < len(names) else f"input {index}"

    def infer_shape(self, inputs: Sequence[Any], *, formats: Sequence[str | None] | None = None
                    ) -> list[_arrays.TensorSpec]:
        """Output shapes and dtypes for these inputs (arrays or TensorSpecs, in ATB order).

        Raises ConstraintError when the inputs' descriptors break a rule."""
        descs = [_arrays.describe(a, lambda i=i: self._label(i), _arrays.format_code(formats, i))
                 for i, a in enumerate(inputs)]
        return [_arrays.TensorSpec(tuple(shape), _arrays.DTYPE_NAMES[dtype], _arrays.FORMAT_NAMES[fmt])
                for shape, dtype, fmt in self._handle.infer_shape(descs)]

    def check(self, inputs: Sequence[Any], *, formats: Sequence[str | None] | None = None) -> list[Violation]:
        """Validates the whole call without executing it: every violation of the first failing stage, or []."""
        args = self._array_args(inputs, formats)
        return [Violation(*v) for v in self._handle.check(args)]

    def __call__(self, inputs: Sequence[Any], *, out: Sequence[Any | None] | None = None,
                 formats: Sequence[str | None] | None = None) -> list[Any]:
        """Runs the operation; returns its ATB outputs (attnOut; for ReshapeAndCache the caches it updated).

        Args:
            inputs: NumPy arrays or PyTorch CPU tensors in ATB's input order (`input_names`), C-contiguous.
                They are used in place, never copied: caches the operation updates are updated in the
                caller's arrays.
            out: optional arrays to write each output into (None for an output atbx should allocate; an
                output that is an updated input is that input).
            formats: optional per-input format, "ND" (default) or "FRACTAL_NZ".

        New outputs are of the first input's kind: numpy in, numpy out; torch in, torch out.

        Raises:
            ConstraintError: the call breaks a rule (its rule_id, status and message say which and why).
            TypeError: an input is not an array, or of a dtype ATB has no name for.
            ValueError: an input is not C-contiguous, read-only or not in CPU memory.
        """
        args = self._array_args(inputs, formats)
        aliases = self._output_aliases
        specs = self._output_specs(inputs, args)
        if out is not None and len(out) != len(specs):
            raise ValueError(f"out has {len(out)} arrays; {self.op} with this param has {len(specs)} outputs "
                             f"({', '.join(self._output_names)})")
        like_torch = len(inputs) > 0 and _arrays.is_torch(inputs[0])
        outputs = []
        for i, (shape, dtype, _) in enumerate(specs):
            given = out[i] if out is not None else None
            if aliases[i] >= 0:
                if given is not None and given is not inputs[aliases[i]]:
                    raise ValueError(f"output {i} ({self._output_names[i]}) is input {aliases[i]}, updated in "
                                     "place; pass None or that input as its out")
                outputs.append(inputs[aliases[i]])
            else:
                outputs.append(given if given is not None
                               else _arrays.empty_like_kind(like_torch, shape, _arrays.DTYPE_NAMES[dtype]))
        out_args = [_arrays.array_arg(a, lambda i=i: f"output {i} ({self._output_names[i]})", specs[i][2])
                    for i, a in enumerate(outputs)]
        self._handle.run(args, out_args, self.backend, self.threads or 0)
        return outputs

    def _array_args(self, inputs: Sequence[Any], formats: Sequence[str | None] | None) -> list[Any]:
        return [_arrays.array_arg(a, lambda i=i: self._label(i), _arrays.format_code(formats, i))
                for i, a in enumerate(inputs)]

    def _output_specs(self, inputs: Sequence[Any], args: Sequence[Any]) -> list[tuple[list[int], int, int]]:
        """The outputs' (shape, dtype code, format code) for these inputs' descriptors, worked out once per
        distinct set of descriptors: a decode loop repeats a few (the output depends on nothing else)."""
        key = tuple((tuple(inputs[i].shape), a[1], a[2]) for i, a in enumerate(args))
        specs = self._specs.get(key)
        if specs is None:
            specs = self._handle.infer_shape([(list(shape), dtype, fmt) for shape, dtype, fmt in key])
            if len(self._specs) >= _MAX_CACHED_SPECS:
                self._specs.clear()
            self._specs[key] = specs
        return specs

    def __repr__(self) -> str:
        return (f"atbx.Operation({self.op!r}, {self.param!r}, platform={self.platform!r}, "
                f"backend={self.backend!r}, threads={self.threads!r})")
