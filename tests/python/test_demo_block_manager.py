"""The demo's paged KV block manager: allocation, release, reference counts, copy-on-write, prefix cache."""
import pytest

from demo_support import import_demo_module

block_manager = import_demo_module("block_manager")
BlockManager, OutOfBlocks = block_manager.BlockManager, block_manager.OutOfBlocks


def test_allocate_hands_out_distinct_blocks_and_release_makes_them_reusable():
    blocks = BlockManager(4, 16)
    taken = [blocks.allocate() for _ in range(4)]
    assert sorted(taken) == [0, 1, 2, 3]
    assert blocks.num_available() == 0
    blocks.release(taken[2])
    assert blocks.num_available() == 1
    assert blocks.allocate() == taken[2]
    assert blocks.stats.allocations == 5
    assert blocks.stats.reused == 1


def test_exhaustion_raises_with_a_message_naming_the_cache_size():
    blocks = BlockManager(2, 16)
    blocks.allocate()
    blocks.allocate()
    with pytest.raises(OutOfBlocks, match="all 2 KV blocks are in use"):
        blocks.allocate()


def test_release_without_a_reference_is_an_error():
    blocks = BlockManager(2, 16)
    block = blocks.allocate()
    blocks.release(block)
    with pytest.raises(ValueError, match=f"block {block} released with no reference"):
        blocks.release(block)


def test_shared_block_is_freed_only_after_its_last_reference():
    blocks = BlockManager(3, 16)
    table = [blocks.allocate(), blocks.allocate()]
    child = blocks.fork(table)
    assert child == table and [blocks.refcount[b] for b in table] == [2, 2]
    blocks.release_table(table)
    assert blocks.num_available() == 1
    blocks.release_table(child)
    assert blocks.num_available() == 3


def test_copy_on_write_copies_a_shared_block_once_and_leaves_the_other_owner_alone():
    blocks = BlockManager(4, 16)
    parent = blocks.grow([], 20)            # 20 tokens: one full block, one partial
    assert len(parent) == 2
    child = blocks.fork(parent)
    assert blocks.make_writable(child, 0 + 1) == (parent[1], child[1])
    assert child[1] != parent[1]
    assert blocks.refcount[parent[1]] == 1 and blocks.refcount[child[1]] == 1
    assert blocks.make_writable(parent, 1) is None   # parent is the only owner now: no copy
    assert blocks.stats.copies_on_write == 1
    assert blocks.refcount[parent[0]] == 2            # the full block stays shared


def test_grow_adds_blocks_only_when_positions_pass_the_last_block():
    blocks = BlockManager(8, 16)
    table = []
    assert len(blocks.grow(table, 1)) == 1
    assert blocks.grow(table, 16) == []
    assert len(blocks.grow(table, 17)) == 1
    assert len(blocks.grow(table, 64)) == 2 and len(table) == 4


def test_prefix_cache_shares_full_blocks_of_an_equal_prefix_only():
    blocks = BlockManager(8, 4)
    prompt = list(range(10))                    # blocks [0..3], [4..7] full, [8, 9] partial
    table = blocks.grow([], len(prompt))
    blocks.cache_prefix(prompt, table)
    assert blocks.match_prefix(prompt[:8] + [99, 98, 97], max_blocks=5) == table[:2]
    assert blocks.match_prefix([0, 1, 2, 3, 4, 5, 6, 99], max_blocks=5) == table[:1]
    assert blocks.match_prefix([9] + prompt[1:], max_blocks=5) == []
    assert blocks.match_prefix(prompt, max_blocks=1) == table[:1]
    assert blocks.refcount[table[0]] == 4 and blocks.refcount[table[1]] == 2


def test_released_cached_blocks_stay_matchable_until_evicted():
    blocks = BlockManager(3, 4)
    prompt = list(range(8))
    table = blocks.grow([], 8)
    blocks.cache_prefix(prompt, table)
    blocks.release_table(table)
    assert blocks.num_available() == 3               # cached blocks with no reference count as available
    again = blocks.match_prefix(prompt, max_blocks=2)
    assert again == table                            # taken back without recomputation
    blocks.release_table(again)
    taken = [blocks.allocate() for _ in range(3)]    # the free block first, then evicts the cached ones
    assert sorted(taken) == [0, 1, 2]
    for block in taken:
        blocks.release(block)
    assert blocks.match_prefix(prompt, max_blocks=2) == []   # evicted: their content is gone


def test_chained_keys_tell_equal_blocks_at_different_prefixes_apart():
    blocks = BlockManager(8, 2)
    keys_a = blocks.prefix_keys([1, 2, 5, 6])
    keys_b = blocks.prefix_keys([3, 4, 5, 6])
    assert keys_a[1] != keys_b[1]
    assert blocks.prefix_keys([1, 2, 5, 6, 7]) == keys_a
