"""Case files for tests: writing them, running atbx on them, reading the outputs, and ATB's precision standard.

The helpers here know the case-file format (docs/case-files.md), nothing about the operations' math: goldens
live in golden_*.py, written from the specs.
"""
import json
import os
import subprocess

import numpy as np

DESCR = {"float16": np.float16, "bfloat16": np.uint16, "float32": np.float32, "int8": np.int8,
         "int32": np.int32, "int64": np.int64, "uint64": np.uint64}


def bf16_bits(values):
    """float values -> raw bfloat16 bits (uint16), rounded to nearest even."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_values(bits):
    """raw bfloat16 bits (uint16) -> float32 values."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


class Tensor:
    """An input tensor of a case: its values (float or integer) and its case-file dtype and format."""

    def __init__(self, values, dtype, fmt="ND"):
        self.dtype = dtype
        self.format = fmt
        if dtype == "bfloat16":
            self.array = bf16_bits(values)
        else:
            self.array = np.ascontiguousarray(np.asarray(values).astype(DESCR[dtype]))

    def values(self):
        """The values the op sees, as float64 (bfloat16 decoded)."""
        if self.dtype == "bfloat16":
            return bf16_values(self.array).astype(np.float64)
        return self.array.astype(np.float64)


def write_case(directory, op, param, inputs, outputs, platform=None):
    """Writes inputs as .npy files and the case file; returns the case file's path."""
    os.makedirs(directory, exist_ok=True)
    entries = []
    for index, tensor in enumerate(inputs):
        name = f"in{index}.npy"
        np.save(os.path.join(directory, name), tensor.array)
        entry = {"file": name, "dtype": tensor.dtype}
        if tensor.format != "ND":
            entry["format"] = tensor.format
        entries.append(entry)
    case = {"op": op, "param": param, "inputs": entries, "outputs": [{"file": f} for f in outputs]}
    if platform:
        case["platform"] = platform
    path = os.path.join(directory, "case.json")
    with open(path, "w") as f:
        json.dump(case, f, indent=1)
    return path


def run(atbx, *args):
    """Runs atbx with the arguments; returns the CompletedProcess (text output)."""
    return subprocess.run([atbx, *args], capture_output=True, text=True, timeout=600)


_cpu_paths = {}


def cpu_paths(atbx):
    """The CPU kernel paths this machine runs (`atbx paths`), fastest first. ATBX_TEST_CPU_PATHS=fastest keeps
    only the first: the sanitizer build runs the goldens on the path the machine uses, the Release build on
    every path."""
    if atbx not in _cpu_paths:
        listing = run(atbx, "paths").stdout.splitlines()
        paths = [line.split()[0] for line in listing if line.endswith(" available")]
        if os.environ.get("ATBX_TEST_CPU_PATHS") == "fastest":
            paths = paths[:1]
        _cpu_paths[atbx] = paths
    return _cpu_paths[atbx]


def run_on_cpu_path(atbx, path, case, *args):
    """Runs a case file on the cpu backend with one CPU path forced (ATBX_CPU_PATH)."""
    env = {**os.environ, "ATBX_CPU_PATH": path}
    return subprocess.run([atbx, "run", case, "--backend", "cpu", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def read_output(path, dtype):
    """An output .npy file as float64 values (bfloat16 decoded)."""
    array = np.load(path)
    if dtype == "bfloat16":
        return bf16_values(array).astype(np.float64)
    return array.astype(np.float64)


def precision_epsilon(dtype, head_dim, max_kv_len):
    """ATB's 'new standard' epsilon (docs/spec/DECISIONS.md)."""
    small = head_dim * max_kv_len + 4 < 2048
    if dtype == "float16":
        return 2.0 ** -8 if small else 2.0 ** -7
    if dtype == "bfloat16":
        return 2.0 ** -7 if small else 2.0 ** -6
    return 2.0 ** -11


def assert_precision(out, golden, dtype, head_dim, max_kv_len):
    """Every element: |out - golden| <= eps * max(1, |golden|); NaN never passes."""
    eps = precision_epsilon(dtype, head_dim, max_kv_len)
    out = np.asarray(out, dtype=np.float64)
    golden = np.asarray(golden, dtype=np.float64)
    assert out.shape == golden.shape, f"shape {out.shape} != golden {golden.shape}"
    bound = eps * np.maximum(1.0, np.abs(golden))
    error = np.abs(out - golden)
    bad = ~(error <= bound)
    if bad.any():
        worst = np.unravel_index(np.nanargmax(np.where(np.isnan(error), np.inf, error / bound)), out.shape)
        raise AssertionError(f"{bad.sum()} of {out.size} elements over eps={eps}: worst at {worst}: "
                             f"out {out[worst]} golden {golden[worst]}")
