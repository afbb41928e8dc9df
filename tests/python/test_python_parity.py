"""The Python package and the command-line tool on the same data give identical bits: PagedAttention (masks,
GQA, speculative decode), SelfAttention PA_ENCODER and ReshapeAndCache, float16 and bfloat16, on the CPU
backend and the reference; and the package's results meet the precision standard against the NumPy golden."""
import ml_dtypes
import numpy as np
import pytest

import atbx
import pa_cases
from atbx_case import Tensor, assert_precision
from python_package_cases import api_array, cli_run, pa_call, rac_call, raw_bits, sa_pa_encoder_call

PA_CALLS = {
    "decode": dict(),
    "gqa4_mask": dict(heads=16, kv_heads=4, lens=(70, 1, 129), mask=pa_cases.norm3),
    "spec": dict(lens=(9, 20), q_lens=[3, 2], mask=pa_cases.spec_triangle),
    "mha_alibi": dict(heads=4, kv_heads=4, head_dim=72, lens=(40, 3), mask=pa_cases.alibi4),
}


@pytest.mark.parametrize("backend", ["cpu", "ref"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(PA_CALLS))
def test_paged_attention_matches_cli_bit_for_bit(atbx_cli, tmp_path, name, dtype, backend):
    call, inputs = pa_call(seed=len(name), dtype=dtype, **PA_CALLS[name])
    tensors = [call.tensors[n] for n in pa_cases.input_order(call.param)]
    (expected,) = cli_run(atbx_cli, tmp_path, "PagedAttention", call.param, tensors, ["out.npy"], backend)
    (out,) = atbx.Operation("PagedAttention", call.param, backend=backend)(inputs)
    assert out.dtype == (ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16)
    np.testing.assert_array_equal(raw_bits(out), raw_bits(expected))
    written = ~np.isnan(call.golden())
    assert_precision(out.astype(np.float64)[written], call.golden()[written], dtype, call.head_dim_v,
                              call.max_context)


def test_paged_attention_function_matches_operation(tmp_path):
    call, inputs = pa_call(seed=4, heads=16, kv_heads=4, lens=(70, 1, 129), mask=pa_cases.norm3)
    (expected,) = atbx.Operation("PagedAttention", call.param)(inputs)
    query, key_cache, value_cache, block_tables, context_lens, mask = inputs
    out = atbx.paged_attention(query, key_cache, value_cache, block_tables, context_lens, mask=mask,
                               head_num=16, kv_head_num=4, qk_scale=call.param["qkScale"])
    np.testing.assert_array_equal(raw_bits(out), raw_bits(expected))


def test_speculative_decode_function_derives_calc_type():
    call, inputs = pa_call(seed=5, lens=(9, 20), q_lens=[3, 2], mask=pa_cases.spec_triangle)
    (expected,) = atbx.Operation("PagedAttention", call.param)(inputs)
    query, key_cache, value_cache, block_tables, context_lens, mask, q_seq_len = inputs
    out = atbx.paged_attention(query, key_cache, value_cache, block_tables, context_lens, mask=mask,
                               mask_type=pa_cases.SPEC, q_seq_len=q_seq_len, head_num=8, kv_head_num=2,
                               qk_scale=call.param["qkScale"])
    np.testing.assert_array_equal(raw_bits(out), raw_bits(expected))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_self_attention_matches_cli_bit_for_bit(atbx_cli, tmp_path, dtype):
    param, tensors = sa_pa_encoder_call(seed=3, dtype=dtype)
    (expected,) = cli_run(atbx_cli, tmp_path, "SelfAttention", param, tensors, ["out.npy"])
    query, key, value, seq_len = [api_array(t) for t in tensors]
    out = atbx.self_attention(query, key, value, seq_len=seq_len, head_num=6, kv_head_num=2,
                              qk_scale=param["qkScale"], calc_type=3)
    np.testing.assert_array_equal(raw_bits(out), raw_bits(expected))
    (via_operation,) = atbx.Operation("SelfAttention", param)([query, key, value, seq_len])
    np.testing.assert_array_equal(raw_bits(via_operation), raw_bits(expected))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8"])
def test_reshape_and_cache_matches_cli_bit_for_bit(atbx_cli, tmp_path, dtype):
    param, tensors = rac_call(seed=7, dtype=dtype)
    expected = cli_run(atbx_cli, tmp_path, "ReshapeAndCache", param, tensors, ["k.npy", "v.npy"])
    key, value, key_cache, value_cache, slots = [api_array(t).copy() for t in tensors]
    before = key_cache.copy()
    assert atbx.reshape_and_cache(key, value, key_cache, value_cache, slots) is None
    np.testing.assert_array_equal(raw_bits(key_cache), raw_bits(expected[0]))
    np.testing.assert_array_equal(raw_bits(value_cache), raw_bits(expected[1]))
    assert not np.array_equal(raw_bits(key_cache), raw_bits(before)), "the call wrote nothing"


def test_reshape_and_cache_operation_returns_the_updated_caches():
    _, tensors = rac_call(seed=8, dtype="float16")
    inputs = [api_array(t).copy() for t in tensors]
    outputs = atbx.Operation("ReshapeAndCache", {})(inputs)
    assert outputs[0] is inputs[2] and outputs[1] is inputs[3]


def test_bfloat16_round_trip():
    """bfloat16 in as ml_dtypes.bfloat16, out as ml_dtypes.bfloat16, bits as the uint16-bits path computes."""
    call, inputs = pa_call(seed=9, dtype="bfloat16")
    (out,) = atbx.Operation("PagedAttention", call.param)(inputs)
    assert out.dtype == ml_dtypes.bfloat16
    assert inputs[0].dtype == ml_dtypes.bfloat16
    values = out.astype(np.float32)
    np.testing.assert_array_equal(values.astype(ml_dtypes.bfloat16).view(np.uint16), out.view(np.uint16))
    assert_precision(values.astype(np.float64), call.golden(), "bfloat16", call.head_dim_v,
                              call.max_context)


def test_fractal_nz_caches_match_cli_bit_for_bit(atbx_cli, tmp_path):
    """formats= marks FRACTAL_NZ inputs: ReshapeAndCache on atlas-inference, whose caches are NZ."""
    rng = np.random.default_rng(70)
    tokens, heads, head_size, block_size, num_blocks = 41, 3, 48, 32, 3
    nz_shape = (num_blocks, heads * head_size // 16, block_size, 16)
    tensors = [Tensor(rng.uniform(-100, 100, (tokens, heads, head_size)), "float16"),
               Tensor(rng.uniform(-100, 100, (tokens, heads, head_size)), "float16"),
               Tensor(rng.uniform(-100, 100, nz_shape), "float16", "FRACTAL_NZ"),
               Tensor(rng.uniform(-100, 100, nz_shape), "float16", "FRACTAL_NZ"),
               Tensor((rng.permutation(2 * num_blocks * block_size)[:tokens] - num_blocks * block_size), "int32")]
    expected = cli_run(atbx_cli, tmp_path, "ReshapeAndCache", {}, tensors, ["k.npy", "v.npy"],
                       platform="atlas-inference")
    inputs = [t.array.copy() for t in tensors]
    op = atbx.Operation("ReshapeAndCache", {}, platform="atlas-inference")
    with pytest.raises(atbx.ConstraintError):
        op(inputs)  # ND caches: atlas-inference takes NZ only
    op(inputs, formats=["ND", "ND", "FRACTAL_NZ", "FRACTAL_NZ", "ND"])
    np.testing.assert_array_equal(raw_bits(inputs[2]), raw_bits(expected[0]))
    np.testing.assert_array_equal(raw_bits(inputs[3]), raw_bits(expected[1]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_self_attention_cache_in_the_op_updates_the_callers_caches(atbx_cli, tmp_path, dtype):
    """calcType ENCODER with the KV cache in the op: attnOut, and the caches written in place, as the CLI's."""
    rng = np.random.default_rng(71)
    layers, heads, kv_heads, d, max_seq, seq_len = 2, 4, 2, 32, 16, [5, 3]
    n = sum(seq_len)
    tensors = [Tensor(rng.uniform(-2.5, 2.5, (n, heads * d)), dtype),
               Tensor(rng.uniform(-2.5, 2.5, (n, kv_heads * d)), dtype),
               Tensor(rng.uniform(-1, 1, (n, kv_heads * d)), dtype),
               Tensor(rng.uniform(-2.5, 2.5, (layers, len(seq_len), max_seq, kv_heads * d)), dtype),
               Tensor(rng.uniform(-1, 1, (layers, len(seq_len), max_seq, kv_heads * d)), dtype),
               Tensor(np.array(seq_len), "int32"), Tensor(np.array(seq_len), "int32"), Tensor(np.array([1]), "int32")]
    param = {"headNum": heads, "kvHeadNum": kv_heads, "qkScale": 1 / np.sqrt(d), "calcType": 1}
    expected = cli_run(atbx_cli, tmp_path, "SelfAttention", param, tensors, ["out.npy", "k.npy", "v.npy"])
    query, key, value, cache_k, cache_v, token_offset, seq_lens, layer_id = [api_array(t).copy() for t in tensors]
    out = atbx.self_attention(query, key, value, cache_k=cache_k, cache_v=cache_v, token_offset=token_offset,
                              seq_len=seq_lens, layer_id=layer_id, head_num=heads, kv_head_num=kv_heads,
                              qk_scale=param["qkScale"], calc_type=1, backend="cpu")
    np.testing.assert_array_equal(raw_bits(out), raw_bits(expected[0]))
    np.testing.assert_array_equal(raw_bits(cache_k), raw_bits(expected[1]))
    np.testing.assert_array_equal(raw_bits(cache_v), raw_bits(expected[2]))
    assert not np.array_equal(raw_bits(cache_k), raw_bits(tensors[3].array)), "the caches were not written"
