"""The machine's streaming-read ceiling, measured in the same run as the KV bandwidth it is compared with (a
shared machine's ceiling drifts; one measured elsewhere says little).

NumPy's max over a float32 buffer far larger than the caches reads memory at close to the rate the cores can
stream it; `threads` threads each reduce their own slice (NumPy releases the GIL while it reduces).
"""
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def measure_read_ceiling(threads, megabytes=256, repeats=3):
    """Best-of-`repeats` bytes per second of one streaming read of a `megabytes` buffer."""
    buffer = np.ones(megabytes * 2**20 // 4, dtype=np.float32)
    slices = np.array_split(buffer, max(1, threads))
    best = float("inf")
    with ThreadPoolExecutor(max(1, threads)) as pool:
        for _ in range(repeats):
            start = time.perf_counter()
            list(pool.map(np.max, slices))
            best = min(best, time.perf_counter() - start)
    return buffer.nbytes / best
