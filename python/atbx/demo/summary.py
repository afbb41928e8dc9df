"""The summary a run prints: throughput, where the time went, KV bandwidth against the read ceiling, blocks."""


def plural(count, noun, nouns=None):
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def row(label, text):
    return f"  {label:<14}{text}"


def summarize(config, requests, finished, metrics, stats, ceiling, ops):
    """Lines of text; config is the parsed flags, stats the block manager's BlockStats, ops the AttentionOps."""
    wall = metrics.wall_seconds
    generated = metrics.generated
    attention, model, copies = (metrics.seconds[b] for b in ("attention", "model", "kv_copy"))
    other = max(0.0, wall - attention - model - copies)
    forked = sum(r.samples == 2 for r in requests)
    decode_seconds = metrics.decode_attention_seconds
    kv_rate = metrics.kv_bytes_read / decode_seconds if decode_seconds else 0.0
    lines = [
        "summary",
        row("requests", f"{len(requests)} served ({forked} with a second sample) as {len(finished)} sequences; "
                        f"{generated} new tokens in {wall:.2f} s = {generated / wall:.1f} tokens/s"),
        row("prefill", f"{metrics.prefill_tokens} prompt tokens computed, {metrics.prefix_tokens} taken from the "
                       f"prefix cache"),
        row("time", f"attention operations {attention:.2f} s ({percent(attention, wall):.0f} %) | model math "
                    f"(NumPy) {model:.2f} s ({percent(model, wall):.0f} %) | KV block copies {copies:.3f} s | "
                    f"rest {other:.2f} s"),
        row("KV reads", f"{metrics.kv_bytes_read / 1e9:.3f} GB in {decode_seconds:.2f} s of PagedAttention = "
                        f"{kv_rate / 1e9:.2f} GB/s, {percent(kv_rate, ceiling):.0f} % of the read ceiling measured "
                        f"now ({ceiling / 1e9:.2f} GB/s, NumPy, {plural(config.threads, 'thread')})"),
        row("kernels", ", ".join(f"{label} {kernel}" for label, kernel in ops.kernels().items())),
        row("blocks", f"{config.num_blocks} x 128 tokens per layer ({ops.cache_bytes() / 2**20:.0f} MiB of KV cache); "
                      f"peak {stats.peak_in_use} in use; {stats.allocations} allocations, {stats.reused} reusing "
                      f"a freed block; {plural(stats.copies_on_write, 'copy', 'copies')} on write"),
    ]
    if config.no_prefix_cache:
        lines.append(row("prefix cache", "off (--no-prefix-cache)"))
    elif not ops.supports_prefix:
        reason = ("PREFIX_ENCODER has no MLA form" if config.shape == "mla"
                  else f"no PREFIX_ENCODER on {config.platform}")
        lines.append(row("prefix cache", f"off ({reason})"))
    else:
        with_prefix = sum(r.system_prompt for r in requests)
        lines.append(row("prefix cache", f"{stats.prefix_hit_requests} of {len(requests)} requests hit "
                                         f"({with_prefix} start with a system prompt); "
                                         f"{plural(stats.prefix_hits, 'block')} ({stats.prefix_hits * 128} "
                                         f"tokens) not recomputed (PREFIX_ENCODER)"))
    if config.spec_k and not ops.supports_spec:
        lines.append(row("speculation", f"off (no PagedAttention SPEC on {config.platform})"))
    elif config.spec_k:
        lines.append(row("speculation", f"{metrics.spec_calls} of {metrics.decode_calls} decode steps verified "
                                        f"drafts (PagedAttention SPEC); {metrics.accepted} of {metrics.drafted} "
                                        f"draft tokens accepted ({percent(metrics.accepted, metrics.drafted):.0f} %)"))
    return lines
