"""The serving loop: each step admits arrived requests and prefills them, decodes every running sequence by one
token (or verifies a draft of several), and retires the finished ones.

Per layer, a prefill is one ReshapeAndCache of the new rows plus SelfAttention PA_ENCODER (prompts computed
whole) and/or PREFIX_ENCODER (prompts whose first blocks came from the prefix cache); a decode step is one
ReshapeAndCache of each sequence's newest row(s) plus one PagedAttention call, with calcType SPEC when any
sequence carries a draft. Greedy decoding; every logits row that chose a token is kept for the final check.
"""
import time
from collections import deque

import numpy as np

from .dtypes import from_op
from .metrics import Metrics


class Engine:
    def __init__(self, model, ops, scheduler, drafter, spec_k):
        self.model, self.ops, self.scheduler = model, ops, scheduler
        self.drafter, self.spec_k = drafter, spec_k
        self.metrics = Metrics()

    def run(self, requests, on_step=None):
        """Serves every request to completion; on_step(engine) is called after each step."""
        pending = deque(sorted(requests, key=lambda r: r.arrival_step))
        step, start = 0, time.perf_counter()
        while pending or not self.scheduler.idle():
            if self.scheduler.idle():
                step = max(step, pending[0].arrival_step)  # nothing to do until the next arrival
            while pending and pending[0].arrival_step <= step:
                self.scheduler.arrive(pending.popleft())
            self.step()
            step += 1
            if on_step:
                on_step(self)
        self.metrics.wall_seconds = time.perf_counter() - start
        return self.scheduler.finished

    def step(self):
        started = time.perf_counter()
        decoding = list(self.scheduler.running)
        admitted = self.scheduler.admit()
        if not admitted and not decoding:
            raise RuntimeError("a waiting request can never be admitted (more blocks than the cache holds)")
        generated = 0
        if admitted:
            generated += self._prefill(admitted)
        if decoding:
            generated += self._decode(decoding)
        self.scheduler.retire()
        self.metrics.record_step(started, time.perf_counter(), len(decoding), len(admitted), generated)

    # -- prefill --------------------------------------------------------------------------------------------
    def _prefill(self, seqs):
        whole = [s for s in seqs if s.cached_prefix == 0]
        after_prefix = [s for s in seqs if s.cached_prefix > 0]
        ordered = whole + after_prefix
        for seq in ordered:
            self.scheduler.prepare_write(seq, seq.cached_prefix, seq.prompt_len - 1)
        positions = np.concatenate([np.arange(s.cached_prefix, s.prompt_len) for s in ordered])
        tokens = np.concatenate([s.tokens[s.cached_prefix:s.prompt_len] for s in ordered])
        slots = [self.scheduler.slot(s, p) for s in ordered for p in range(s.cached_prefix, s.prompt_len)]
        split = sum(s.prompt_len for s in whole)
        x = self.model.embed(tokens)
        for layer in range(len(self.model.layers)):
            with self.metrics.timing("model"):
                q, k, v = self.model.qkv(layer, x, positions)
            with self.metrics.timing("attention"):
                self.ops.write(layer, k, v, slots)
                parts = []
                if whole:
                    parts.append(self.ops.prefill(q[:split], k[:split], None if v is None else v[:split],
                                                  [s.prompt_len for s in whole]))
                if after_prefix:
                    parts.append(self.ops.prefill_after_prefix(
                        layer, q[split:], [s.prompt_len - s.cached_prefix for s in after_prefix],
                        [s.prompt_len for s in after_prefix], [s.table for s in after_prefix]))
                attention = from_op(np.concatenate(parts))
            with self.metrics.timing("model"):
                x = self.model.finish_layer(layer, x, attention)
        with self.metrics.timing("model"):
            last_rows = np.cumsum([s.prompt_len - s.cached_prefix for s in ordered]) - 1
            logits = self.model.logits(x[last_rows])
        self.metrics.prefill_tokens += len(tokens)
        self.metrics.prefix_tokens += sum(s.cached_prefix for s in ordered)
        generated = 0
        for seq, row in zip(ordered, logits):
            seq.logits[seq.prompt_len - 1] = row
            seq.tokens.append(int(np.argmax(row)))
            self.drafter.observe(seq.tokens, seq.prompt_len)
            generated += 1
            if self.scheduler.use_prefix_cache:
                self.scheduler.blocks.cache_prefix(seq.request.prompt, seq.table)
            if seq.request.samples == 2:
                generated += self._fork(seq, row)
        return generated

    def _fork(self, parent, row):
        """The second sample starts from the runner-up token; it shares the prompt's blocks until it writes."""
        child = self.scheduler.fork(parent)
        child.logits[child.prompt_len - 1] = row
        child.tokens.append(int(np.argsort(row)[-2]))
        child.forced.add(child.prompt_len - 1)
        return 1

    # -- decode ---------------------------------------------------------------------------------------------
    def _decode(self, seqs):
        drafts = [self.drafter.propose(s.tokens, min(self.spec_k, s.remaining - 1)) for s in seqs]
        for seq, draft in zip(seqs, drafts):
            first = len(seq.tokens) - 1
            for source, destination in self.scheduler.prepare_write(seq, first, first + len(draft)):
                with self.metrics.timing("kv_copy"):
                    self.ops.copy_block(source, destination)
        query_lengths = [1 + len(d) for d in drafts]
        context_lengths = [len(s.tokens) + len(d) for s, d in zip(seqs, drafts)]
        tokens = np.concatenate([[s.tokens[-1]] + d for s, d in zip(seqs, drafts)])
        positions = np.concatenate([np.arange(c - q, c) for c, q in zip(context_lengths, query_lengths)])
        slots = [self.scheduler.slot(s, int(p)) for s, c, q in zip(seqs, context_lengths, query_lengths)
                 for p in range(c - q, c)]
        tables = [s.table for s in seqs]
        speculative = any(drafts)
        x = self.model.embed(tokens)
        for layer in range(len(self.model.layers)):
            with self.metrics.timing("model"):
                q, k, v = self.model.qkv(layer, x, positions)
            with self.metrics.timing("attention"):
                self.ops.write(layer, k, v, slots)
            with self.metrics.timing("attention", decode=True):
                if speculative:
                    out = self.ops.verify(layer, q, tables, context_lengths, query_lengths)
                else:
                    out = self.ops.decode(layer, q, tables, context_lengths)
                attention = from_op(out)
            with self.metrics.timing("model"):
                x = self.model.finish_layer(layer, x, attention)
        with self.metrics.timing("model"):
            logits = self.model.logits(x)
        self.metrics.kv_bytes_read += len(self.model.layers) * self._kv_bytes(context_lengths)
        self.metrics.decode_calls += 1
        self.metrics.spec_calls += speculative
        return self._accept(seqs, drafts, logits)

    def _accept(self, seqs, drafts, logits):
        """Greedy verification: draft tokens are kept while they equal the target's choice, plus one more."""
        generated, accepted, row = 0, 0, 0
        for seq, draft in zip(seqs, drafts):
            first = len(seq.tokens) - 1
            for i in range(len(draft) + 1):
                choice = int(np.argmax(logits[row + i]))
                seq.logits[first + i] = logits[row + i]
                seq.tokens.append(choice)
                generated += 1
                if i == len(draft) or draft[i] != choice:
                    break
                seq.accepted += 1
                accepted += 1
            self.drafter.observe(seq.tokens, first + 1)
            seq.drafted += len(draft)
            row += len(draft) + 1
        self.metrics.drafted += sum(len(d) for d in drafts)
        self.metrics.accepted += accepted
        return generated

    def _kv_bytes(self, context_lengths):
        """Bytes of K and V one layer's decode call reads: every cached token of every sequence, once."""
        return sum(context_lengths) * self.ops.shape.kv_heads * self.ops.shape.kv_width * 2
