"""Continuous batching: requests arrive, are admitted when their blocks are guaranteed, prefill, decode step by
step beside the others, finish, and hand their blocks back for the next ones.

Admission is conservative: a sequence is admitted only if the blocks it may ever allocate (its final length in
blocks) fit beside what the running sequences may still allocate. Blocks are still allocated lazily, one at a
time as a sequence grows, so the block figures show real use; but no sequence can run out mid-flight, and none is
ever preempted. Invariant: available blocks >= sum of the running sequences' remaining budgets.
"""
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Sequence:
    seq_id: int
    request: object
    tokens: list
    table: list = field(default_factory=list)
    cached_prefix: int = 0       # prompt tokens whose KV came from the prefix cache
    budget: int = 0              # blocks this sequence may still allocate
    logits: dict = field(default_factory=dict)  # position p -> logits that chose tokens[p + 1]
    forced: set = field(default_factory=set)    # positions whose next token was forced (a fork's runner-up)
    drafted: int = 0
    accepted: int = 0

    @property
    def prompt_len(self):
        return len(self.request.prompt)

    @property
    def generated(self):
        return len(self.tokens) - self.prompt_len

    @property
    def remaining(self):
        return self.request.max_new_tokens - self.generated

    @property
    def done(self):
        return self.remaining <= 0


def lifetime_blocks(request, block_size):
    """Blocks one sequence of `request` holds at its longest: KV of prompt + new tokens but the last one."""
    return -(-(len(request.prompt) + request.max_new_tokens - 1) // block_size)


class Scheduler:
    def __init__(self, blocks, max_batch, max_prefill_tokens, use_prefix_cache):
        self.blocks = blocks
        self.max_batch = max_batch
        self.max_prefill_tokens = max_prefill_tokens
        self.use_prefix_cache = use_prefix_cache
        self.waiting = deque()
        self.running = []
        self.finished = []
        self._next_seq_id = 0

    def arrive(self, request):
        self.waiting.append(request)

    def outstanding_budget(self):
        return sum(seq.budget for seq in self.running)

    def admit(self):
        """New sequences to prefill this step, in arrival order (one per request; forks come after prefill)."""
        admitted, prefill_tokens, forks = [], 0, 0
        while self.waiting:
            request = self.waiting[0]
            if len(self.running) + forks + request.samples > self.max_batch:
                break
            if admitted and prefill_tokens + len(request.prompt) > self.max_prefill_tokens:
                break
            seq = self._try_reserve(request)
            if seq is None:
                break
            self.waiting.popleft()
            self.running.append(seq)
            admitted.append(seq)
            prefill_tokens += len(request.prompt) - seq.cached_prefix
            forks += request.samples - 1  # joins the batch after prefill
        return admitted

    def _try_reserve(self, request):
        """A sequence holding its prefix-cache hits, if every block the request may need can be guaranteed."""
        size = self.blocks.block_size
        table = []
        if self.use_prefix_cache:
            # At least one prompt token is computed (its logits choose the first new token).
            table = self.blocks.match_prefix(request.prompt, (len(request.prompt) - 1) // size)
        per_sequence = lifetime_blocks(request, size)
        # A fork shares the parent's partial last block; the first of the two to write it copies it, so the
        # pair may allocate one block more than two lone sequences; the parent holds that one.
        budget = per_sequence - len(table) + (request.samples - 1) * (per_sequence + 1)
        if self.blocks.num_available() - self.outstanding_budget() < budget:
            self.blocks.release_table(table)
            return None
        self.blocks.stats.prefix_hits += len(table)
        self.blocks.stats.prefix_hit_requests += bool(table)
        return Sequence(self._new_id(), request, list(request.prompt), table, len(table) * size, budget)

    def fork(self, parent):
        """The second sample of parent's request: shares every block, partial last one included."""
        per_sequence = lifetime_blocks(parent.request, self.blocks.block_size)
        parent.budget -= per_sequence  # the rest of the fork's reservation: its own blocks, or the copy
        child = Sequence(self._new_id(), parent.request, list(parent.tokens[:parent.prompt_len]),
                         self.blocks.fork(parent.table), parent.cached_prefix,
                         per_sequence - len(parent.table) + 1)
        self.running.append(child)
        return child

    def prepare_write(self, seq, first, last):
        """Makes positions first..last of seq writable: blocks added or copied; returns the copies to make."""
        copies = []
        size = self.blocks.block_size
        for logical in range(first // size, min(len(seq.table), last // size + 1)):
            pair = self.blocks.make_writable(seq.table, logical)
            if pair:
                copies.append(pair)
                seq.budget -= 1
        seq.budget -= len(self.blocks.grow(seq.table, last + 1))
        if seq.budget < 0:
            raise AssertionError(f"sequence {seq.seq_id} allocated past its reserved blocks")
        return copies

    def slot(self, seq, position):
        """The cache row (block * block_size + offset) that holds seq's key and value at `position`."""
        size = self.blocks.block_size
        return seq.table[position // size] * size + position % size

    def retire(self):
        """Finished sequences leave the batch and release their blocks; returns them."""
        done = [seq for seq in self.running if seq.done]
        for seq in done:
            self.running.remove(seq)
            self.blocks.release_table(seq.table)
            seq.budget = 0
            self.finished.append(seq)
        return done

    def idle(self):
        return not self.waiting and not self.running

    def _new_id(self):
        self._next_seq_id += 1
        return self._next_seq_id - 1
