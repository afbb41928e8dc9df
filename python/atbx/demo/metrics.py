"""What a run measures: time per bucket (attention operations, model math, KV block copies), per-step records
for the plot, token and KV-traffic counts."""
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class StepRecord:
    start: float      # seconds since the first step began
    end: float
    batch: int        # sequences decoded in this step
    admitted: int     # requests prefilled in this step
    generated: int    # tokens appended in this step


class Metrics:
    def __init__(self):
        self.seconds = defaultdict(float)
        self.decode_attention_seconds = 0.0
        self.steps = []
        self.wall_seconds = 0.0
        self.prefill_tokens = 0
        self.prefix_tokens = 0
        self.kv_bytes_read = 0
        self.decode_calls = 0
        self.spec_calls = 0
        self.drafted = 0
        self.accepted = 0
        self._origin = None

    @contextmanager
    def timing(self, bucket, decode=False):
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            self.seconds[bucket] += elapsed
            if decode:
                self.decode_attention_seconds += elapsed

    def record_step(self, start, end, batch, admitted, generated):
        if self._origin is None:
            self._origin = start
        self.steps.append(StepRecord(start - self._origin, end - self._origin, batch, admitted, generated))

    @property
    def generated(self):
        return sum(s.generated for s in self.steps)
