"""The summary a run prints: throughput, where the time went, KV bandwidth against the read ceiling, blocks."""


def plural(count, noun, nouns=None):
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def summarize(config, requests, finished, metrics, stats, ceiling, cache_bytes):
    """Lines of text; config is the parsed flags, stats the block manager's BlockStats."""
    wall = metrics.wall_seconds
    generated = metrics.generated
    attention = metrics.seconds["attention"]
    model = metrics.seconds["model"]
    copies = metrics.seconds["kv_copy"]
    other = max(0.0, wall - attention - model - copies)
    forked = sum(r.samples == 2 for r in requests)
    with_prefix = sum(1 for r in requests if config.shared_prefix and r.request_id % 2 == 0)
    kv_rate = metrics.kv_bytes_read / metrics.decode_attention_seconds if metrics.decode_attention_seconds else 0
    lines = [
        f"served {len(requests)} requests ({forked} with a second sample) as {len(finished)} sequences: "
        f"{generated} new tokens in {wall:.2f} s = {generated / wall:.1f} tokens/s "
        f"(prefill {metrics.prefill_tokens} tokens computed, {metrics.prefix_tokens} taken from the prefix cache)",
        f"time: attention operations {attention:.2f} s ({percent(attention, wall):.0f} %), model math in NumPy "
        f"{model:.2f} s ({percent(model, wall):.0f} %), KV block copies {copies:.3f} s, scheduling and the rest "
        f"{other:.2f} s",
        f"decode KV reads: {metrics.kv_bytes_read / 1e9:.2f} GB in {metrics.decode_attention_seconds:.2f} s of "
        f"PagedAttention = {kv_rate / 1e9:.2f} GB/s, {percent(kv_rate, ceiling):.0f} % of the read ceiling "
        f"measured now ({ceiling / 1e9:.2f} GB/s, NumPy streaming read, {config.threads} threads)",
        f"blocks: {config.num_blocks} of 128 tokens per layer ({cache_bytes / 2**20:.0f} MiB of KV cache in all), "
        f"peak {stats.peak_in_use} in use; {stats.allocations} allocations, {stats.reused} of them reusing a "
        f"block a finished sequence freed; {plural(stats.copies_on_write, 'copy', 'copies')} on write",
    ]
    if config.no_prefix_cache or config.shape == "mla":
        reason = "--no-prefix-cache" if config.no_prefix_cache else "PREFIX_ENCODER has no MLA form"
        lines.append(f"prefix cache: off ({reason})")
    else:
        lines.append(f"prefix cache: {stats.prefix_hit_requests} of {len(requests)} requests hit "
                     f"({with_prefix} start with a system prompt), {plural(stats.prefix_hits, 'block')} "
                     f"({stats.prefix_hits * 128} tokens) not recomputed")
    if config.spec_k:
        lines.append(f"speculative decoding: {metrics.spec_calls} of {metrics.decode_calls} decode steps verified "
                     f"drafts with PagedAttention SPEC; {metrics.accepted} of {metrics.drafted} draft tokens "
                     f"accepted ({percent(metrics.accepted, metrics.drafted):.0f} %)")
    return lines
