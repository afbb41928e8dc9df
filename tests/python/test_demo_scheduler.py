"""The demo's continuous-batching scheduler, driven without any model: sequences grow by random amounts (as
speculative steps do), some fork, some share a system prompt; after every step the block bookkeeping must hold."""
import collections

import numpy as np
import pytest

from demo_support import import_demo_module

block_manager = import_demo_module("block_manager")
scheduler_module = import_demo_module("scheduler")
workload = import_demo_module("workload")

BLOCK = 8


def check_invariants(scheduler):
    blocks = scheduler.blocks
    references = collections.Counter(b for seq in scheduler.running for b in seq.table)
    for block in range(blocks.num_blocks):
        assert blocks.refcount[block] == references[block], f"block {block}"
    assert blocks.num_in_use() == len(references)
    assert len(scheduler.running) <= scheduler.max_batch
    assert blocks.num_available() >= scheduler.outstanding_budget() >= 0
    for seq in scheduler.running:
        assert len(seq.table) * BLOCK >= len(seq.tokens) - 1  # every written position has its block


def serve(requests, num_blocks, max_batch, seed):
    """Runs the requests to completion with random growth; returns the scheduler."""
    rng = np.random.default_rng(seed)
    blocks = block_manager.BlockManager(num_blocks, BLOCK)
    scheduler = scheduler_module.Scheduler(blocks, max_batch, max_prefill_tokens=200, use_prefix_cache=True)
    pending = collections.deque(requests)
    step = 0
    while pending or not scheduler.idle():
        while pending and pending[0].arrival_step <= step:
            scheduler.arrive(pending.popleft())
        decoding = list(scheduler.running)
        for seq in scheduler.admit():
            scheduler.prepare_write(seq, seq.cached_prefix, seq.prompt_len - 1)
            seq.tokens.append(0)
            blocks.cache_prefix(seq.request.prompt, seq.table)
            if seq.request.samples == 2:
                scheduler.fork(seq).tokens.append(1)
        for seq in decoding:
            grow = int(rng.integers(1, 4)) if seq.remaining > 1 else 1
            grow = min(grow, seq.remaining)
            first = len(seq.tokens) - 1
            scheduler.prepare_write(seq, first, first + grow - 1)
            seq.tokens.extend([2] * grow)
        scheduler.retire()
        check_invariants(scheduler)
        step += 1
        assert step < 10000, "the scheduler stopped making progress"
    return scheduler


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_request_finishes_with_its_tokens_and_every_block_comes_back(seed):
    requests = workload.make_requests(40, (1, 30), (1, 20), shared_prefix=17, fork_fraction=0.3, vocab=50,
                                      arrival_interval=0.7, seed=seed)
    scheduler = serve(requests, num_blocks=24, max_batch=6, seed=seed)
    samples = collections.Counter(seq.request.request_id for seq in scheduler.finished)
    assert samples == {r.request_id: r.samples for r in requests}
    for seq in scheduler.finished:
        assert seq.generated == seq.request.max_new_tokens
    blocks = scheduler.blocks
    assert blocks.num_available() == blocks.num_blocks and not any(blocks.refcount)
    assert blocks.stats.reused > 0            # finished sequences' blocks served later ones
    assert blocks.stats.prefix_hits > 0       # the system prompt's two full blocks were shared
    assert blocks.stats.copies_on_write > 0   # forks copied their shared partial block
    assert blocks.stats.peak_in_use <= blocks.num_blocks


def test_admission_waits_for_blocks_instead_of_running_out():
    # Each request needs 4 blocks for its lifetime; 9 blocks hold two at a time.
    requests = [workload.Request(i, list(range(100 * i, 100 * i + 20)), 12, 0) for i in range(5)]
    scheduler = serve(requests, num_blocks=9, max_batch=8, seed=0)
    assert len(scheduler.finished) == 5
    assert scheduler.blocks.stats.peak_in_use <= 9


def test_admission_is_first_come_first_served():
    requests = [workload.Request(i, list(range(10 * i, 10 * i + 9)), 3, 0) for i in range(6)]
    blocks = block_manager.BlockManager(64, BLOCK)
    scheduler = scheduler_module.Scheduler(blocks, max_batch=4, max_prefill_tokens=1000, use_prefix_cache=False)
    for request in requests:
        scheduler.arrive(request)
    assert [seq.request.request_id for seq in scheduler.admit()] == [0, 1, 2, 3]
    assert [r.request_id for r in scheduler.waiting] == [4, 5]


def test_admission_counts_the_forks_still_to_come_against_the_batch():
    requests = [workload.Request(i, list(range(10 * i, 10 * i + 9)), 3, 0, samples=2) for i in range(3)]
    blocks = block_manager.BlockManager(64, BLOCK)
    scheduler = scheduler_module.Scheduler(blocks, max_batch=5, max_prefill_tokens=1000, use_prefix_cache=False)
    for request in requests:
        scheduler.arrive(request)
    admitted = scheduler.admit()
    assert [seq.request.request_id for seq in admitted] == [0, 1]   # 2 x 2 sequences; a third pair needs 6
    for seq in admitted:
        scheduler.prepare_write(seq, 0, seq.prompt_len - 1)
        seq.tokens.append(0)
        scheduler.fork(seq)
    assert len(scheduler.running) == 4


def test_a_sequence_cannot_write_past_its_reserved_blocks():
    blocks = block_manager.BlockManager(16, BLOCK)
    scheduler = scheduler_module.Scheduler(blocks, max_batch=4, max_prefill_tokens=1000, use_prefix_cache=False)
    scheduler.arrive(workload.Request(0, [1] * 10, 5, 0))   # 14 positions: 2 blocks
    (seq,) = scheduler.admit()
    scheduler.prepare_write(seq, 0, 15)
    with pytest.raises(AssertionError, match="past its reserved blocks"):
        scheduler.prepare_write(seq, 16, 16)
