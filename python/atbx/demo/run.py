"""One demo run: build the model, the cache and the operations, serve the requests with a progress bar, then
print the summary and the check."""
import time

from threadpoolctl import threadpool_limits

from .attention_ops import AttentionOps
from .bandwidth import measure_read_ceiling
from .block_manager import BlockManager
from .check import check_against_full_recompute
from .cli import BLOCK_SIZE
from .drafter import NGramDrafter
from .engine import Engine
from .model import TinyTransformer
from .scheduler import Scheduler
from .shapes import SHAPES
from .summary import plural, summarize
from .workload import make_requests


class DemoFailure(RuntimeError):
    """atbx refused the run's calls (for example a platform without PREFIX_ENCODER); the message says why."""


class ServingOperation:
    """One atbx.Operation, created once and called every step as an engine does; atbx's errors become
    DemoFailure. `label` names the call in the summary (SelfAttention PA_ENCODER, PagedAttention SPEC ...)."""

    def __init__(self, atbx, label, name, param, config):
        self._errors = atbx.ConstraintError
        self.label = label
        self._where = f"{name} on {config.platform} (backend {config.backend})"
        try:
            self._op = atbx.Operation(name, param, platform=config.platform, backend=config.backend,
                                      threads=config.threads)
        except (atbx.ConstraintError, atbx.ParamError) as error:
            raise DemoFailure(f"{name} {param} on {config.platform}: {error}") from None

    @property
    def kernel(self):
        return self._op.kernel

    def __call__(self, inputs):
        try:
            return self._op(inputs)
        except self._errors as error:
            raise DemoFailure(f"{self._where}: {error}") from None


def operation_factory(config):
    """make(label, name, param) -> ServingOperation on the run's platform, backend and threads."""
    try:
        import atbx
    except ImportError as error:
        raise DemoFailure(f"the atbx Python package is not built ({error}); run scripts/setup.sh") from None
    return lambda label, name, param: ServingOperation(atbx, label, name, param, config)


def progress_bar(total, enabled):
    """A rich progress bar over finished requests, showing tokens/s and the batch; a no-op when disabled."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("serving"), BarColumn(), MofNCompleteColumn(), TextColumn("requests"),
                        TimeElapsedColumn(), TextColumn("{task.fields[status]}"), disable=not enabled,
                        transient=False)
    task = progress.add_task("serving", total=total, status="")

    def on_step(engine):
        metrics, scheduler = engine.metrics, engine.scheduler
        elapsed = metrics.steps[-1].end or 1e-9
        done = ({seq.request.request_id for seq in scheduler.finished}
                - {seq.request.request_id for seq in scheduler.running})
        progress.update(task, completed=len(done),
                        status=f"{metrics.generated / elapsed:6.1f} tokens/s  batch {metrics.steps[-1].batch}")
    return progress, on_step


def run_demo(config):
    # The model's matrices are small: NumPy's BLAS threads would only contend with the operations' threads
    # (on a busy 2-core machine, 20x slower decode steps).
    with threadpool_limits(limits=1, user_api="blas"):
        return serve(config)


def serve(config):
    shape = SHAPES[config.shape]
    model = TinyTransformer(shape, config.layers, config.hidden, config.vocab, config.seed)
    max_context = -(-config.max_context // BLOCK_SIZE) * BLOCK_SIZE
    ops = AttentionOps(operation_factory(config), shape, config.dtype, config.layers, config.num_blocks,
                       BLOCK_SIZE, max_context, model.qk_scale, config.platform)
    blocks = BlockManager(config.num_blocks, BLOCK_SIZE)
    scheduler = Scheduler(blocks, config.max_batch, max_prefill_tokens=2048,
                          use_prefix_cache=ops.supports_prefix and not config.no_prefix_cache)
    requests = make_requests(config.requests, config.prompt_len, config.output_len, config.shared_prefix,
                             config.fork_fraction, config.vocab, config.arrival_interval, config.seed)
    engine = Engine(model, ops, scheduler, NGramDrafter(), config.spec_k if ops.supports_spec else 0)

    print(f"atbx serving demo: {shape.describe()}; {config.dtype}, {plural(config.layers, 'layer')}, platform "
          f"{config.platform}, backend {config.backend}, {config.threads} threads")
    progress, on_step = progress_bar(len(requests), not config.no_progress)
    with progress:
        finished = engine.run(requests, on_step)
        progress.update(progress.task_ids[0], completed=len(requests))
    ceiling = measure_read_ceiling(config.threads)
    for line in summarize(config, requests, finished, engine.metrics, blocks.stats, ceiling, ops):
        print(line)
    if config.plot:
        from .plot import draw
        draw(engine.metrics.steps, config.plot, f"atbx serving demo: {shape.name}, {config.dtype}, "
                                                f"{len(requests)} requests")
        print(f"plot: {config.plot}")
    started = time.perf_counter()
    result = check_against_full_recompute(model, finished, config.dtype)
    print(f"{result.describe()}\n  (the recompute took {time.perf_counter() - started:.1f} s)")
    return 0 if result.passed else 1
