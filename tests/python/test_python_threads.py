"""Several Python threads calling atbx at once: each on its own Operation, the results are those of the same
calls made one after another, and the calls overlap (the GIL is released while they execute); threads sharing
one Operation take turns and get correct results too."""
import threading

import atbx
from atbx import _atbx
from python_package_cases import pa_call, raw_bits

THREADS = 4


def long_call(seed):
    """A decode that the float64 reference takes tens of milliseconds over, so that calls in other threads
    overlap it even on a loaded two-core machine (the vector kernels can finish it within one time slice of
    the scheduler there)."""
    return pa_call(seed=seed, heads=32, kv_heads=8, head_dim=128, block_size=128, lens=(1500, 977, 1203))


def run_in_threads(work):
    """Runs work(index) in THREADS threads started together; re-raises the first failure."""
    barrier = threading.Barrier(THREADS)
    results, errors = [None] * THREADS, []

    def body(index):
        try:
            barrier.wait()
            results[index] = work(index)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_operations_in_threads_give_the_serial_results_and_overlap():
    calls = [long_call(seed) for seed in range(THREADS)]
    operations = [atbx.Operation("PagedAttention", call.param, backend="ref", threads=1) for call, _ in calls]
    serial = [op(inputs)[0] for op, (_, inputs) in zip(operations, calls)]
    _atbx._reset_runs_in_flight()
    parallel = run_in_threads(lambda i: [operations[i](calls[i][1])[0] for _ in range(3)])
    for expected, outputs in zip(serial, parallel):
        for out in outputs:
            assert raw_bits(out).tobytes() == raw_bits(expected).tobytes()
    assert _atbx._max_runs_in_flight() >= 2, "no two calls ever ran at once: is the GIL held during execution?"


def test_threads_sharing_one_operation_take_turns():
    call, inputs = pa_call(seed=40)
    op = atbx.Operation("PagedAttention", call.param, threads=1)
    (expected,) = op(inputs)
    results = run_in_threads(lambda i: [op(inputs)[0] for _ in range(5)])
    for outputs in results:
        for out in outputs:
            assert raw_bits(out).tobytes() == raw_bits(expected).tobytes()
