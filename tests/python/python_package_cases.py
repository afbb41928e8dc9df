"""Calls for the Python-package tests (test_python_*.py): the same random calls the case-file tests use, as the
arrays the Python API takes (bfloat16 as ml_dtypes.bfloat16), and the command-line tool's result on the same
data for comparison."""
import os

import ml_dtypes
import numpy as np

import pa_cases
from atbx_case import Tensor, run, write_case


def api_array(tensor):
    """A case-file Tensor's array as the Python API takes it (bfloat16 bits viewed as ml_dtypes.bfloat16)."""
    return tensor.array.view(ml_dtypes.bfloat16) if tensor.dtype == "bfloat16" else tensor.array


def raw_bits(array):
    """The bytes of an array, to compare results bit for bit whatever their dtype or kind."""
    return np.ascontiguousarray(np.asarray(array)).view(np.uint8)


def pa_call(seed=1, dtype="float16", heads=8, kv_heads=2, head_dim=64, block_size=16, lens=(5, 33, 17), **kwargs):
    """A PagedAttention call (pa_cases.build) and its inputs in ATB order as API arrays."""
    call = pa_cases.build(np.random.default_rng(seed), heads, kv_heads, head_dim, block_size, list(lens), dtype,
                          **kwargs)
    inputs = [api_array(call.tensors[name]) for name in pa_cases.input_order(call.param)]
    return call, inputs


def cli_run(atbx_cli, directory, op, param, tensors, outputs, backend="cpu", platform=None):
    """Runs a case through the command-line tool; returns its outputs as stored (bfloat16 as uint16 bits)."""
    case = write_case(str(directory), op, param, tensors, outputs, platform=platform)
    result = run(atbx_cli, "run", case, "--backend", backend)
    assert result.returncode == 0, result.stderr
    return [np.load(os.path.join(str(directory), name)) for name in outputs]


def sa_pa_encoder_call(seed, dtype, heads=6, kv_heads=2, head_dim=40, q_lens=(7, 1, 12)):
    """A SelfAttention PA_ENCODER call: packed q/k/v of the current tokens (no cache), sharp data."""
    rng = np.random.default_rng(seed)
    tokens = sum(q_lens)
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / np.sqrt(head_dim), "calcType": 3}
    tensors = [Tensor(rng.uniform(-3, 3, (tokens, heads, head_dim)), dtype),
               Tensor(rng.uniform(-3, 3, (tokens, kv_heads, head_dim)), dtype),
               Tensor(rng.uniform(-1, 1, (tokens, kv_heads, head_dim)), dtype),
               Tensor(np.array(q_lens), "int32")]
    return param, tensors


def rac_call(seed, dtype, tokens=13, heads=3, head_dim=24, block_size=8, num_blocks=5):
    """A ReshapeAndCache call: random tokens, pre-filled caches, distinct slots with some negative (skipped)."""
    rng = np.random.default_rng(seed)
    slots = (rng.permutation(2 * num_blocks * block_size)[:tokens] - num_blocks * block_size).astype(np.int32)
    tensors = [Tensor(rng.uniform(-100, 100, (tokens, heads, head_dim)), dtype),
               Tensor(rng.uniform(-100, 100, (tokens, heads, head_dim)), dtype),
               Tensor(rng.uniform(-100, 100, (num_blocks, block_size, heads, head_dim)), dtype),
               Tensor(rng.uniform(-100, 100, (num_blocks, block_size, heads, head_dim)), dtype),
               Tensor(slots, "int32")]
    return {}, tensors
