#!/usr/bin/env python3
"""OpenVINO peer of `atbx bench --peer openvino`: times OpenVINO's CPU PagedAttention on the same shapes.

OpenVINO's CPU plugin runs the paged attention that vLLM's OpenVINO backend and optimum-intel serve with; on the
machines this project measured it is the strongest CPU peer. The protocol is that of tools/bench/torch_peer.py
(tools/bench/peer_common.py): one row per line in, {"name", "ms", "dtype", "ms_by_dtype"} or {"error"} out.

What is timed is one inference of a model holding a single PagedAttentionExtension op, compiled for the CPU with
INFERENCE_NUM_THREADS set to the row's threads and one stream, as an engine calls it: the query, key and value of
the step's new tokens (fp32, [tokens, heads * head size]) and the sequences' past lengths, block indices and
caches. The op also writes the new tokens' keys and values into the caches, which atbx's decode and prefill rows
leave to ReshapeAndCache: a few KiB per decode step. The caches are in the plugin's own layout, [blocks, kv
heads, 32 tokens, head size] (its block size is 32); blocks are handed out in shuffled order, as atbx's rows do.

The KV precision follows the row's KV bytes: 2-byte rows (fp16, bf16) run on f16 caches (inference precision
f32: the plugin keeps f16 caches only then) and on bf16 caches (inference precision bf16), 1-byte rows (int8) on
the plugin's u8 caches (keys quantised per channel, values per token) with inference precision f32 and bf16; the
faster is reported. OpenVINO's op is always causal: dense prefills have no peer. The latent MLA rows (one 576-wide
kv head whose first 512 channels are the values) run with separate K (576) and V (512) caches, the op's only form,
so OpenVINO reads 1.9x the bytes atbx does there. Cold rows rotate over as many layers (each its own caches) as
atbx's rows do.
"""
import numpy as np
import openvino as ov
from openvino import opset13 as ops
from openvino._pyopenvino.op import _PagedAttentionExtension

from peer_common import layer_count, serve, time_calls

# (KV cache precision, inference precision) pairs tried for a row of each KV dtype.
PRECISIONS = {"fp16": [("f16", "f32"), ("bf16", "bf16")], "bf16": [("f16", "f32"), ("bf16", "bf16")],
              "int8": [("u8", "f32"), ("u8", "bf16")]}
# Inputs 14-27 of PagedAttentionExtension (cache rotation, xattention, sinks, adaptive RKV, token types, qq bias)
# left empty: (numpy dtype, shape) of each constant. Input 13, the score aggregation window, is one 0 per sequence.
UNUSED_INPUTS = [(np.int32, (0,)), (np.int32, (0,)), (np.float32, (0,)), (np.float32, (0,)),
                 (np.int32, ()), (np.int32, ()), (np.float32, (0,)), (np.int32, ()), (np.int32, (0,)),
                 (np.int32, (0,)), (np.int32, (0,)), (np.int32, (0,)), (np.uint8, (0,)), (np.int32, (0,))]
RUNTIME_INPUTS = ["query", "key", "value", "key_cache", "value_cache", "past_lens", "subsequence_begins",
                  "block_indices", "block_indices_begins", "max_context_len"]

core = ov.Core()


def compile_attention(heads, kv_heads, d, dv, sequences, window, cache_precision, inference_precision, threads):
    """A compiled one-op model for `sequences` sequences (its score aggregation window holds one value per
    sequence: a scalar there made the CPU plugin read past it) and its caches' (element type, rows, columns) per
    block and kv head."""
    f32, i32 = ov.Type.f32, ov.Type.i32
    params = {
        "query": ops.parameter([-1, heads * d], f32), "key": ops.parameter([-1, kv_heads * d], f32),
        "value": ops.parameter([-1, kv_heads * dv], f32),
        "key_cache": ops.parameter(ov.PartialShape.dynamic(4), ov.Type.dynamic),
        "value_cache": ops.parameter(ov.PartialShape.dynamic(4), ov.Type.dynamic),
        "past_lens": ops.parameter([-1], i32), "subsequence_begins": ops.parameter([-1], i32),
        "block_indices": ops.parameter([-1], i32), "block_indices_begins": ops.parameter([-1], i32),
        "max_context_len": ops.parameter([], i32)}
    constant = lambda value, dtype: ops.constant(np.array(value, dtype=dtype)).output(0)
    arguments = [params[name].output(0) for name in RUNTIME_INPUTS[:9]]
    arguments += [constant(1.0 / np.sqrt(d), np.float32), constant(window, np.int32),
                  constant(np.zeros(0), np.float32), params["max_context_len"].output(0)]
    arguments.append(constant(np.zeros(sequences), np.int32))
    arguments += [constant(np.zeros(shape), dtype) for dtype, shape in UNUSED_INPUTS]
    attention = _PagedAttentionExtension(arguments)
    info = attention.get_rt_info()
    info["num_k_heads"], info["k_head_size"], info["num_v_heads"], info["v_head_size"] = kv_heads, d, kv_heads, dv
    model = ov.Model([attention.output(0)], [params[name] for name in RUNTIME_INPUTS])
    compiled = core.compile_model(model, "CPU", {
        "INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
        "KV_CACHE_PRECISION": cache_precision, "INFERENCE_PRECISION_HINT": inference_precision})
    caches = []
    for port in compiled.inputs[3:5]:
        shape = port.get_partial_shape()
        caches.append((port.get_element_type(), shape[2].get_length(), shape[3].get_length()))
    return compiled, caches


def random_cache(element_type, shape, first_scale_row, first_scale_column, rng):
    """A cache tensor [blocks, kv heads, rows, columns] of random values in [-1, 1); u8: random bytes, with the
    rows from first_scale_row (keys' per-channel scales and zero points) and the columns from first_scale_column
    (values' per-token ones) holding finite floats (0.01)."""
    if element_type == ov.Type.u8:
        data = rng.integers(0, 256, size=shape, dtype=np.uint8)
        scales = lambda view: np.full(view.shape[:-1] + (view.shape[-1] // 4,), 0.01, np.float32).view(np.uint8)
        data[:, :, first_scale_row:, :] = scales(data[:, :, first_scale_row:, :])
        data[:, :, :, first_scale_column:] = scales(data[:, :, :, first_scale_column:])
        return ov.Tensor(data)
    values = rng.random(shape, dtype=np.float32) * 2 - 1
    if element_type == ov.Type.f16:
        return ov.Tensor(values.astype(np.float16))
    tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(shape)))
    tensor.data.view(np.uint16)[...] = (values.view(np.uint32) >> 16).astype(np.uint16)  # .data is an fp16 view
    return tensor


def attention_seconds(request, sequences, window, cache_precision, inference_precision):
    """Median seconds of one call over `sequences`: (past tokens, new tokens) each."""
    h, hk, d, dv = request["heads"], request["kv_heads"], request["head_size"], request["head_size_v"]
    compiled, caches = compile_attention(h, hk, d, dv, len(sequences), window, cache_precision, inference_precision,
                                         request["threads"])
    (key_type, key_rows, key_columns), (value_type, value_rows, value_columns) = caches
    block_tokens = value_rows
    rng = np.random.default_rng(7)
    new_tokens = sum(new for _, new in sequences)
    blocks_each = [-(-(past + new) // block_tokens) for past, new in sequences]
    blocks = sum(blocks_each)
    element = 1 if key_type == ov.Type.u8 else 2
    layer_bytes = blocks * hk * (key_rows * key_columns + value_rows * value_columns) * element
    count = layer_count(request, layer_bytes)
    if count == 0:
        raise MemoryError("one layer does not fit in the memory bound")
    inputs = {
        "query": ov.Tensor(rng.random((new_tokens, h * d), dtype=np.float32) * 2 - 1),
        "key": ov.Tensor(rng.random((new_tokens, hk * d), dtype=np.float32) * 2 - 1),
        "value": ov.Tensor(rng.random((new_tokens, hk * dv), dtype=np.float32) * 2 - 1),
        "past_lens": ov.Tensor(np.array([past for past, _ in sequences], np.int32)),
        "subsequence_begins": ov.Tensor(np.cumsum([0] + [new for _, new in sequences], dtype=np.int32)),
        "block_indices": ov.Tensor(rng.permutation(blocks).astype(np.int32)),
        "block_indices_begins": ov.Tensor(np.cumsum([0] + blocks_each, dtype=np.int32)),
        "max_context_len": ov.Tensor(np.array(max(past + new for past, new in sequences), np.int32))}
    requests = []
    for _ in range(count):
        infer = compiled.create_infer_request()
        layer = dict(inputs)
        layer["key_cache"] = random_cache(key_type, (blocks, hk, key_rows, key_columns), block_tokens,
                                          key_columns, rng)
        layer["value_cache"] = random_cache(value_type, (blocks, hk, value_rows, value_columns), value_rows, dv,
                                            rng)
        for index, name in enumerate(RUNTIME_INPUTS):
            infer.set_input_tensor(index, layer[name])
        requests.append(infer)
    return time_calls(lambda infer: infer.infer(), requests, request)


def row_sequences(request):
    """(past tokens, new tokens) of each sequence of the row, and its sliding window (0: none)."""
    if request["op"] == "decode":
        past = request["context"] - request["query_tokens"]
        return [(past, request["query_tokens"])] * request["batch"], 0
    return [(request["prefix"], s) for s in request["seq_lens"]], request["window"]


def answer(request):
    name = "openvino " + ov.get_version().split("-")[0]
    if request["op"] == "cache_write":
        return {"error": "no openvino peer for cache writes (its PagedAttention writes its own tokens)"}
    if request["op"] == "prefill" and request["kind"] == "dense":
        return {"error": "no openvino peer for dense prefills (its PagedAttention is causal)"}
    sequences, window = row_sequences(request)
    by_precision = {}
    for cache_precision, inference_precision in PRECISIONS[request["dtype"]]:
        label = cache_precision if request["dtype"] != "int8" else f"{cache_precision}/{inference_precision}"
        by_precision[label] = attention_seconds(request, sequences, window, cache_precision,
                                                inference_precision) * 1e3
    best = min(by_precision, key=by_precision.get)
    return {"name": f"{name} {best}", "ms": by_precision[best], "dtype": best, "ms_by_dtype": by_precision}


def main():
    serve({"name": "openvino " + ov.get_version(), "cpu": core.get_property("CPU", "FULL_DEVICE_NAME"),
           "capabilities": core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")}, answer)


if __name__ == "__main__":
    main()
