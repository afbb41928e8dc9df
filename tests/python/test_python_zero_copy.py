"""Zero copy: the core reads and writes the caller's memory. The pointers the core was given are the arrays'
own, out= arrays are written where they are, in-place cache writes land in the caller's arrays, and inputs the
core cannot use in place (non-contiguous, read-only) are refused with a clear error instead of copied."""
import numpy as np
import pytest

import atbx
from python_package_cases import api_array, pa_call, rac_call, raw_bits


def pointer(array):
    return array.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_the_core_sees_the_callers_pointers(dtype):
    call, inputs = pa_call(seed=11, dtype=dtype)
    op = atbx.Operation("PagedAttention", call.param)
    out = np.full((3, 8, 64), np.nan, dtype=inputs[0].dtype)
    (result,) = op(inputs, out=[out])
    assert result is out
    seen_inputs, seen_outputs = op._handle.last_pointers()
    assert seen_inputs == [pointer(a) for a in inputs]
    assert seen_outputs == [pointer(out)]
    assert not np.isnan(out.astype(np.float32)).any(), "out= was not written in place"


def test_out_matches_a_fresh_output():
    call, inputs = pa_call(seed=12)
    op = atbx.Operation("PagedAttention", call.param)
    (fresh,) = op(inputs)
    out = np.full_like(fresh, np.nan)
    op(inputs, out=[out])
    np.testing.assert_array_equal(raw_bits(out), raw_bits(fresh))


def test_reshape_and_cache_writes_land_in_the_callers_caches():
    _, tensors = rac_call(seed=13, dtype="float16", tokens=6)
    key, value, key_cache, value_cache, slots = [api_array(t).copy() for t in tensors]
    key_before, value_before = key_cache.copy(), value_cache.copy()
    atbx.reshape_and_cache(key, value, key_cache, value_cache, slots)
    rows_k = key_cache.reshape(-1, *key_cache.shape[2:])
    rows_v = value_cache.reshape(-1, *value_cache.shape[2:])
    written = set()
    for token, slot in enumerate(slots):
        if slot >= 0:
            np.testing.assert_array_equal(rows_k[slot], key[token])
            np.testing.assert_array_equal(rows_v[slot], value[token])
            written.add(int(slot))
    untouched = [r for r in range(rows_k.shape[0]) if r not in written]
    np.testing.assert_array_equal(rows_k[untouched], key_before.reshape(rows_k.shape)[untouched])
    np.testing.assert_array_equal(rows_v[untouched], value_before.reshape(rows_v.shape)[untouched])
    assert written, "no slot was non-negative"


def test_a_non_contiguous_input_is_refused():
    call, inputs = pa_call(seed=14)
    wide = np.repeat(inputs[0], 2, axis=2)
    inputs[0] = wide[:, :, ::2]
    with pytest.raises(ValueError, match=r"input 0 \(query\) is not C-contiguous"):
        atbx.Operation("PagedAttention", call.param)(inputs)


def test_a_fortran_order_input_is_refused():
    call, inputs = pa_call(seed=15)
    inputs[0] = np.asfortranarray(inputs[0])
    with pytest.raises(ValueError, match="not C-contiguous"):
        atbx.Operation("PagedAttention", call.param)(inputs)


def test_a_read_only_input_is_refused():
    call, inputs = pa_call(seed=16)
    inputs[1].flags.writeable = False
    with pytest.raises(ValueError, match=r"input 1 \(keyCache\) is read-only"):
        atbx.Operation("PagedAttention", call.param)(inputs)
