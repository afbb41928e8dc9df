"""The paged KV cache's block manager: which physical blocks hold which sequence's keys and values.

A sequence's block table maps its logical block i (positions [i*block_size, (i+1)*block_size)) to a physical block.
Blocks are reference-counted: a fork (a second sample of the same prompt) and a prefix-cache hit add references
instead of copying. A block written while another sequence still references it is copied first (copy-on-write);
that only ever happens to a fork's last, partial block, since shared full blocks are never written again.

Prefix cache: a full block of a prompt is keyed by a hash of every token up to its end (its own tokens chained to
its predecessor's key), so two prompts that agree on their first n*block_size tokens share those n blocks. A
cached block whose last reference goes stays cached ("evictable") until the free list runs dry; a later prompt
with the same prefix takes it back without recomputing it.
"""
from collections import OrderedDict
from dataclasses import dataclass


class OutOfBlocks(RuntimeError):
    """No free block is left; the scheduler's admission control should make this impossible."""


@dataclass
class BlockStats:
    allocations: int = 0         # blocks handed out for new content
    reused: int = 0              # of those, blocks that had held other content before (freed and handed out again)
    prefix_hits: int = 0         # full prompt blocks admitted from the prefix cache instead of being recomputed
    prefix_hit_requests: int = 0  # admitted requests with at least one prefix-cache hit
    copies_on_write: int = 0     # partial blocks copied because a forked sequence wrote into a shared one
    peak_in_use: int = 0         # most blocks referenced at once


def chain_hash(parent, tokens):
    """The prefix-cache key of a full block: its tokens chained to the key of the block before it."""
    return hash((parent, tuple(tokens)))


class BlockManager:
    def __init__(self, num_blocks, block_size):
        if num_blocks < 1 or block_size < 1:
            raise ValueError(f"need at least one block of at least one token, got {num_blocks} x {block_size}")
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.refcount = [0] * num_blocks
        self._free = list(range(num_blocks - 1, -1, -1))  # stack: lowest id handed out first
        self._ever_used = [False] * num_blocks
        self._evictable = OrderedDict()  # cached blocks nobody references, least recently released first
        self._cached = {}                # prefix key -> block
        self._key_of = {}                # block -> prefix key
        self.stats = BlockStats()

    # -- capacity -------------------------------------------------------------------------------------------
    def num_available(self):
        """Blocks that can be handed out now: free ones plus cached ones nobody references."""
        return len(self._free) + len(self._evictable)

    def num_in_use(self):
        return self.num_blocks - self.num_available()

    # -- allocation -----------------------------------------------------------------------------------------
    def allocate(self):
        """A block for new content, with one reference. Takes a free block, else evicts the oldest cached one."""
        if self._free:
            block = self._free.pop()
        elif self._evictable:
            block, _ = self._evictable.popitem(last=False)
            del self._cached[self._key_of.pop(block)]
        else:
            raise OutOfBlocks(f"all {self.num_blocks} KV blocks are in use")
        self.refcount[block] = 1
        self.stats.allocations += 1
        self.stats.reused += self._ever_used[block]
        self._ever_used[block] = True
        self._note_peak()
        return block

    def share(self, block):
        """One more reference to a block (a fork, or a prefix-cache hit)."""
        if self.refcount[block] == 0:
            self._evictable.pop(block)
        self.refcount[block] += 1
        self._note_peak()

    def release(self, block):
        """Drops one reference; at zero the block is free again, or evictable if the prefix cache holds it."""
        if self.refcount[block] <= 0:
            raise ValueError(f"block {block} released with no reference held")
        self.refcount[block] -= 1
        if self.refcount[block] == 0:
            if block in self._key_of:
                self._evictable[block] = None
            else:
                self._free.append(block)

    def release_table(self, table):
        for block in table:
            self.release(block)

    def fork(self, table):
        """A second sequence's table that shares every block of `table` (including a partial last one)."""
        for block in table:
            self.share(block)
        return list(table)

    def make_writable(self, table, logical):
        """Ensures table[logical] may be written: a block shared with another sequence is replaced by a fresh one.

        Returns the (source, destination) block pair the caller must copy in every layer's cache, or None.
        """
        block = table[logical]
        if self.refcount[block] == 1:
            return None
        copy = self.allocate()
        self.release(block)
        table[logical] = copy
        self.stats.copies_on_write += 1
        return block, copy

    def grow(self, table, num_tokens):
        """Appends blocks to `table` until it covers `num_tokens` positions; returns the blocks added."""
        needed = -(-num_tokens // self.block_size) - len(table)
        added = [self.allocate() for _ in range(max(0, needed))]
        table.extend(added)
        return added

    # -- prefix cache ---------------------------------------------------------------------------------------
    def prefix_keys(self, tokens):
        """The prefix-cache key of every full block of `tokens`."""
        keys, parent = [], None
        for start in range(0, len(tokens) - self.block_size + 1, self.block_size):
            parent = chain_hash(parent, tokens[start:start + self.block_size])
            keys.append(parent)
        return keys

    def match_prefix(self, tokens, max_blocks):
        """Takes a reference to each cached block of the longest cached prefix of `tokens` (at most max_blocks)."""
        table = []
        for key in self.prefix_keys(tokens)[:max_blocks]:
            block = self._cached.get(key)
            if block is None:
                break
            self.share(block)
            table.append(block)
        return table

    def cache_prefix(self, tokens, table):
        """Registers the full blocks of `tokens` (held in `table`) in the prefix cache, once their KV is written."""
        for block, key in zip(table, self.prefix_keys(tokens)):
            if key in self._cached or block in self._key_of:
                continue
            self._cached[key] = block
            self._key_of[block] = key

    def _note_peak(self):
        self.stats.peak_in_use = max(self.stats.peak_in_use, self.num_in_use())
