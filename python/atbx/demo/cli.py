"""Command line of the serving demo: flags, the settings they make impossible (exit 2 with a message), the run."""
import argparse
import os
import sys

from .dtypes import DTYPES
from .shapes import SHAPES

BLOCK_SIZE = 128  # PREFIX_ENCODER's kernel requires 128-token blocks (docs/spec/self_attention.md 5.3)
PLATFORMS = ("atlas-a2", "atlas-inference", "atlas-training", "atlas-350")
BACKENDS = ("auto", "ref", "cpu")


class ConfigError(ValueError):
    """A setting that cannot run; the message says what was asked and what is possible."""


def length_range(text):
    """'N' or 'A-B' (tokens) -> (A, B) with 1 <= A <= B."""
    try:
        low, _, high = text.partition("-")
        low, high = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a length N or a range A-B, got {text!r}") from None
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"expected 1 <= A <= B, got {text!r}")
    return low, high


def bounded(kind, low, high=None):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind.__name__}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f">= {low}" if high is None else f"in [{low}, {high}]"
            raise argparse.ArgumentTypeError(f"expected a value {span}, got {text!r}")
        return value
    return parse


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m atbx.demo",
        description="Serves a stream of requests with atbx's paged attention: continuous batching over a paged KV "
                    "cache with prefix sharing, forks and speculative decoding, on a small random-weight "
                    "transformer; checks every token against a full recompute without the cache.")
    shape = parser.add_argument_group("model")
    shape.add_argument("--shape", choices=sorted(SHAPES), default="llama3-8b",
                       help="attention shape: llama3-8b (32/8/128), qwen2-7b (28/4/128), mla (16 heads, one 576 "
                            "latent KV head, 512 value channels) (default: %(default)s)")
    shape.add_argument("--layers", type=bounded(int, 1, 64), default=2, help="(default: %(default)s)")
    shape.add_argument("--hidden", type=bounded(int, 8, 8192), default=256,
                       help="residual width of the small model (default: %(default)s)")
    shape.add_argument("--vocab", type=bounded(int, 4, 1 << 20), default=512, help="(default: %(default)s)")
    shape.add_argument("--dtype", choices=DTYPES, default="fp16", help="(default: %(default)s)")
    work = parser.add_argument_group("workload")
    work.add_argument("--requests", type=bounded(int, 1, 100000), default=16, help="(default: %(default)s)")
    work.add_argument("--prompt-len", type=length_range, default=(32, 192), metavar="A-B",
                      help="prompt tokens after any system prompt (default: 32-192)")
    work.add_argument("--output-len", type=length_range, default=(16, 64), metavar="A-B",
                      help="new tokens per sequence (default: 16-64)")
    work.add_argument("--shared-prefix", type=bounded(int, 0), default=256, metavar="TOKENS",
                      help="system prompt that every other request starts with; its full 128-token blocks are "
                           "shared through the prefix cache; 0: none (default: %(default)s)")
    work.add_argument("--fork-fraction", type=bounded(float, 0.0, 1.0), default=0.25,
                      help="share of requests that ask for a second sample, forked after prefill "
                           "(default: %(default)s)")
    work.add_argument("--arrival-interval", type=bounded(float, 0.0), default=2.0, metavar="STEPS",
                      help="mean engine steps between arrivals (default: %(default)s)")
    work.add_argument("--seed", type=int, default=0, help="(default: %(default)s)")
    engine = parser.add_argument_group("engine")
    engine.add_argument("--spec-k", type=bounded(int, 0, 16), default=3,
                        help="draft tokens per speculative step (n-gram drafter), verified by one PagedAttention "
                             "SPEC call; 0: plain decoding (default: %(default)s)")
    engine.add_argument("--max-batch", type=bounded(int, 1, 2000), default=8,
                        help="most sequences decoding at once (default: %(default)s)")
    engine.add_argument("--num-blocks", type=bounded(int, 1), default=64,
                        help="KV cache blocks of 128 tokens per layer (default: %(default)s)")
    engine.add_argument("--max-context", type=bounded(int, 1), default=1024, metavar="TOKENS",
                        help="longest sequence a block table holds, rounded up to whole blocks "
                             "(default: %(default)s)")
    engine.add_argument("--no-prefix-cache", action="store_true", help="compute every prompt whole")
    ops = parser.add_argument_group("atbx")
    ops.add_argument("--platform", choices=PLATFORMS, default="atlas-a2", help="(default: %(default)s)")
    ops.add_argument("--backend", choices=BACKENDS, default="auto", help="(default: %(default)s)")
    ops.add_argument("--threads", type=bounded(int, 1, 1024), default=os.cpu_count() or 1,
                     help="threads of each operation (default: this machine's cores, %(default)s)")
    output = parser.add_argument_group("output")
    output.add_argument("--plot", metavar="FILE.png", help="draw tokens/s and batch size over time")
    output.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def available_memory():
    """Bytes the kernel reports as available now (MemAvailable), or None where /proc/meminfo is absent."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def validate(args):
    """Raises ConfigError for settings that cannot run."""
    from .scheduler import lifetime_blocks
    from .workload import Request

    shape = SHAPES[args.shape]
    blocks_per_table = -(-args.max_context // BLOCK_SIZE)
    longest = args.shared_prefix + args.prompt_len[1] + args.output_len[1]
    if longest - 1 > blocks_per_table * BLOCK_SIZE:
        raise ConfigError(
            f"a sequence can reach {longest - 1} cached tokens (system prompt {args.shared_prefix} + prompt "
            f"{args.prompt_len[1]} + output {args.output_len[1]} - 1), longer than the block table holds "
            f"({blocks_per_table} blocks of {BLOCK_SIZE} = {blocks_per_table * BLOCK_SIZE} tokens; --max-context)")
    worst = Request(0, [0] * (longest - args.output_len[1]), args.output_len[1], 0)
    samples = 2 if args.fork_fraction > 0 else 1
    need = samples * lifetime_blocks(worst, BLOCK_SIZE) + samples - 1
    if need > args.num_blocks:
        raise ConfigError(f"the longest request needs {need} blocks of {BLOCK_SIZE} tokens"
                          f"{' (two samples)' if samples == 2 else ''}, more than the cache's {args.num_blocks} "
                          f"(--num-blocks)")
    if samples > args.max_batch:
        raise ConfigError("--fork-fraction > 0 needs --max-batch >= 2 (a fork decodes beside its parent)")
    if args.prompt_len[0] + args.shared_prefix < 1:
        raise ConfigError("prompts must hold at least one token")
    cache_bytes = args.layers * args.num_blocks * BLOCK_SIZE * shape.kv_heads * shape.kv_width * 2
    memory = available_memory()
    if memory is not None and cache_bytes > 0.8 * memory:
        raise ConfigError(f"{args.num_blocks} blocks x {args.layers} layers of {shape.name} KV cache need "
                          f"{cache_bytes / 2**30:.1f} GiB; this machine has {memory / 2**30:.1f} GiB available")
    if args.plot and not args.plot.lower().endswith(".png"):
        raise ConfigError(f"--plot writes a PNG file; give a name ending in .png, got {args.plot!r}")
    if args.plot and not os.path.isdir(os.path.dirname(os.path.abspath(args.plot))):
        raise ConfigError(f"--plot: folder {os.path.dirname(os.path.abspath(args.plot))} does not exist")


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        validate(args)
    except ConfigError as error:
        parser.error(str(error))  # exits 2
    from .run import run_demo, DemoFailure
    try:
        return run_demo(args)
    except DemoFailure as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
