"""What the peers of `atbx bench --peer` share: how many layers a cold row rotates over, how a row is timed, and
the line protocol (one JSON request per line on stdin, one JSON answer per line on stdout)."""
import json
import math
import statistics
import sys
import time


def layer_count(request, layer_bytes):
    """Layers a row rotates over: one when warm; when cold, enough to exceed the last-level cache (the request's
    cold_bytes), within its memory bound. 0 when one layer does not fit."""
    fit = max(request["memory_bytes"] // max(layer_bytes, 1), 0)
    if fit < 1:
        return 0
    if not request["cold"]:
        return 1
    return int(min(max(math.ceil(request["cold_bytes"] / layer_bytes), 1), fit))


def time_calls(step, layers, request):
    """Median seconds of step(layer) over rotating layers, after one untimed call (as atbx times its rows)."""
    step(layers[0])
    times = []
    start = time.perf_counter()
    i = 1
    while True:
        elapsed = time.perf_counter() - start
        runs = len(times)
        if runs > 0 and elapsed >= request["seconds"] and (
                runs >= request["min_runs"] or elapsed >= 4 * request["seconds"]):
            break
        layer = layers[i % len(layers)]
        t0 = time.perf_counter()
        step(layer)
        times.append(time.perf_counter() - t0)
        i += 1
    return statistics.median(times)


def serve(hello, answer):
    """Prints the peer's self-description, then answers each request line; a failing row reports its error and
    the peer keeps serving the next."""
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)
