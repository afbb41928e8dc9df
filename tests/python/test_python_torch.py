"""PyTorch CPU tensors in and out through DLPack: torch in, torch out, the same bits as NumPy arrays give;
torch.bfloat16; out= tensors and in-place caches written where they are; and torch and atbx imported in either
order in one process both run (atbx's threading stays its own)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import atbx
from python_package_cases import api_array, pa_call, rac_call, raw_bits

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs python3-torch)")


def as_torch(array):
    """A torch tensor sharing the array's memory (bfloat16 through its bits)."""
    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def torch_bits(tensor):
    if tensor.dtype == torch.bfloat16:
        return raw_bits(tensor.view(torch.int16).numpy())
    return raw_bits(tensor.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_torch_in_torch_out_same_bits_as_numpy(dtype):
    call, inputs = pa_call(seed=50, dtype=dtype, heads=16, kv_heads=4, lens=(70, 1, 129))
    op = atbx.Operation("PagedAttention", call.param)
    (expected,) = op(inputs)
    (out,) = op([as_torch(a) for a in inputs])
    assert isinstance(out, torch.Tensor)
    assert out.dtype == (torch.bfloat16 if dtype == "bfloat16" else torch.float16)
    np.testing.assert_array_equal(torch_bits(out), raw_bits(expected))


def test_torch_out_is_written_in_place():
    call, inputs = pa_call(seed=51)
    tensors = [as_torch(a) for a in inputs]
    op = atbx.Operation("PagedAttention", call.param)
    out = torch.full((3, 8, 64), float("nan"), dtype=torch.float16)
    (result,) = op(tensors, out=[out])
    assert result is out
    seen_inputs, seen_outputs = op._handle.last_pointers()
    assert seen_inputs == [t.data_ptr() for t in tensors]
    assert seen_outputs == [out.data_ptr()]
    assert not torch.isnan(out).any()


def test_tensors_that_require_grad_are_read_in_place():
    call, inputs = pa_call(seed=52, dtype="float16")
    tensors = [as_torch(a) for a in inputs]
    query = tensors[0].float().requires_grad_(True)
    tensors[0] = query.detach().half().requires_grad_(True)
    (out,) = atbx.Operation("PagedAttention", call.param)(tensors)
    (expected,) = atbx.Operation("PagedAttention", call.param)(inputs)
    np.testing.assert_array_equal(torch_bits(out), raw_bits(expected))


def test_reshape_and_cache_updates_torch_caches():
    _, tensors = rac_call(seed=53, dtype="bfloat16")
    arrays = [api_array(t).copy() for t in tensors]
    expected = [a.copy() for a in arrays]
    atbx.reshape_and_cache(*expected)
    caches = [as_torch(a) for a in arrays]
    atbx.reshape_and_cache(*caches)
    np.testing.assert_array_equal(torch_bits(caches[2]), raw_bits(expected[2]))
    np.testing.assert_array_equal(torch_bits(caches[3]), raw_bits(expected[3]))


def test_a_bool_tensor_has_atbs_bool_dtype():
    call, inputs = pa_call(seed=54)
    inputs[4] = torch.ones(3, dtype=torch.bool)
    with pytest.raises(atbx.ConstraintError) as error:
        atbx.Operation("PagedAttention", call.param)(inputs)
    assert "bool" in error.value.message


SCRIPT = """
import sys
first, second = sys.argv[1:3]
__import__(first)
__import__(second)
import numpy as np
import torch
import atbx
sys.path.insert(0, {tests!r})
from python_package_cases import pa_call
torch.set_num_threads(2)
a = torch.randn(256, 256)
torch_result = (a @ a).sum().item()
call, inputs = pa_call(seed=55)
op = atbx.Operation("PagedAttention", call.param, threads=2)
(numpy_out,) = op(inputs)
(torch_out,) = op([torch.from_numpy(x) for x in inputs])
assert np.array_equal(numpy_out.view(np.uint16), torch_out.numpy().view(np.uint16))
assert abs((a @ a).sum().item() - torch_result) <= 1e-3 * max(1.0, abs(torch_result))
print("ok", op.kernel)
"""


@pytest.mark.parametrize("order", [("torch", "atbx"), ("atbx", "torch")])
def test_torch_and_atbx_in_one_process_in_either_order(order):
    tests = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, "-c", SCRIPT.format(tests=tests), *order], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")
