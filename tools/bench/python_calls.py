#!/usr/bin/env python3
"""What a call costs through atbx's Python package: small calls, where the binding, Setup and Execute's checks
weigh as much as the kernel, timed through `atbx.Operation` and through the functions.

Each row is the best of --spells spells of --seconds each, in microseconds per call, on fresh random data:
PagedAttention decode steps (32 query heads on 8 kv heads of 128 channels, fp16, blocks of 128) at short
contexts and a ReshapeAndCache write of one decode step's tokens.

    .venv/bin/python tools/bench/python_calls.py [--threads N] [--seconds S] [--spells K] [--package DIR]

--package puts DIR first on sys.path (a build tree's python/ folder, build/release/python) to time that build.
"""
import argparse
import sys
import time

HEADS, KV_HEADS, HEAD_SIZE, BLOCK_SIZE = 32, 8, 128, 128


def best_microseconds(call, seconds, spells):
    call()
    best = float("inf")
    for _ in range(spells):
        start, count = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            call()
            count += 1
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1e6


def decode_rows(atbx, np, rng, threads, seconds, spells):
    for batch, context in ((1, 16), (1, 128), (8, 128), (1, 1024)):
        blocks = batch * -(-context // BLOCK_SIZE)
        key_cache = rng.standard_normal((blocks, BLOCK_SIZE, KV_HEADS, HEAD_SIZE)).astype(np.float16)
        value_cache = rng.standard_normal(key_cache.shape).astype(np.float16)
        query = rng.standard_normal((batch, HEADS, HEAD_SIZE)).astype(np.float16)
        block_tables = np.arange(blocks, dtype=np.int32).reshape(batch, -1)
        context_lens = np.full(batch, context, np.int32)
        inputs = [query, key_cache, value_cache, block_tables, context_lens]
        scale = HEAD_SIZE ** -0.5
        op = atbx.Operation("PagedAttention", {"headNum": HEADS, "kvHeadNum": KV_HEADS, "qkScale": scale},
                            backend="cpu", threads=threads)
        by_operation = best_microseconds(lambda: op(inputs), seconds, spells)
        by_function = best_microseconds(
            lambda: atbx.paged_attention(*inputs, head_num=HEADS, kv_head_num=KV_HEADS, qk_scale=scale,
                                         backend="cpu", threads=threads), seconds, spells)
        yield f"PagedAttention b{batch} ctx{context}", by_operation, by_function


def cache_write_row(atbx, np, rng, threads, seconds, spells):
    tokens = 8
    key_cache = np.zeros((64, BLOCK_SIZE, KV_HEADS, HEAD_SIZE), np.float16)
    value_cache = np.zeros_like(key_cache)
    key = rng.standard_normal((tokens, KV_HEADS, HEAD_SIZE)).astype(np.float16)
    value = rng.standard_normal(key.shape).astype(np.float16)
    slots = np.arange(tokens, dtype=np.int32) * BLOCK_SIZE + 5
    inputs = [key, value, key_cache, value_cache, slots]
    op = atbx.Operation("ReshapeAndCache", {}, backend="cpu", threads=threads)
    by_operation = best_microseconds(lambda: op(inputs), seconds, spells)
    by_function = best_microseconds(lambda: atbx.reshape_and_cache(*inputs, backend="cpu", threads=threads),
                                    seconds, spells)
    yield f"ReshapeAndCache {tokens} tokens", by_operation, by_function


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="threads per call (default: 1)")
    parser.add_argument("--seconds", type=float, default=0.25, help="length of a spell (default: 0.25)")
    parser.add_argument("--spells", type=int, default=7, help="spells per row, the best kept (default: 7)")
    parser.add_argument("--package", help="folder holding the atbx package to time (default: the installed)")
    args = parser.parse_args()
    if args.package:
        sys.path.insert(0, args.package)
    import numpy as np

    import atbx

    rng = np.random.default_rng(0)
    print(f"atbx {atbx.__version__} from {atbx.__file__}, {args.threads} thread(s), best of {args.spells} "
          f"spells of {args.seconds} s")
    print(f"{'call':32s} {'Operation (us)':>15s} {'function (us)':>15s}")
    for rows in (decode_rows, cache_write_row):
        for name, by_operation, by_function in rows(atbx, np, rng, args.threads, args.seconds, args.spells):
            print(f"{name:32s} {by_operation:15.1f} {by_function:15.1f}", flush=True)


if __name__ == "__main__":
    main()
