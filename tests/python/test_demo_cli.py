"""`python -m atbx.demo` end to end with tiny flags, its refusals (exit 2 with a message), and --plot."""
import re

import pytest

from demo_support import TINY, import_demo_module, require_binding, run_demo

import_demo_module("cli")  # the subprocesses below import it too


def flag(flags, name, value):
    """TINY with one flag's value replaced."""
    out = list(flags)
    out[out.index(name) + 1] = value
    return out


@pytest.mark.parametrize("extra", [[], ["--dtype", "bf16", "--shape", "qwen2-7b"], ["--shape", "mla"],
                                   ["--platform", "atlas-350"]],
                         ids=["llama3-fp16", "qwen2-bf16", "mla", "atlas-350"])
def test_serves_the_requests_and_passes_its_check(extra):
    require_binding()
    result = run_demo(*TINY, *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert re.search(r"requests +5 served", out)
    assert "tokens/s" in out and "attention operations" in out
    assert "% of the read ceiling measured now" in out
    assert "on write" in out
    assert "check: PASS" in out
    if "mla" in extra:
        assert re.search(r"prefix cache +off \(PREFIX_ENCODER has no MLA form\)", out)
    elif "atlas-350" in extra:
        assert re.search(r"prefix cache +off \(no PREFIX_ENCODER on atlas-350\)", out)
        assert re.search(r"speculation +off \(no PagedAttention SPEC on atlas-350\)", out)
    else:
        assert re.search(r"prefix cache +[1-9]\d* of 5 requests hit", out)


def test_plot_writes_a_png(tmp_path):
    require_binding()
    path = tmp_path / "serving.png"
    result = run_demo(*TINY, "--plot", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 10000


@pytest.mark.parametrize("flags, message", [
    (["--dtype", "fp8"], "argument --dtype: invalid choice: 'fp8'"),
    (["--prompt-len", "0"], "argument --prompt-len: expected 1 <= A <= B, got '0'"),
    (["--prompt-len", "9-3"], "expected 1 <= A <= B, got '9-3'"),
    (["--output-len", "many"], "expected a length N or a range A-B, got 'many'"),
    (["--requests", "-1"], "argument --requests: expected a value in [1, 100000], got '-1'"),
    (["--fork-fraction", "1.5"], "argument --fork-fraction: expected a value in [0.0, 1.0]"),
    (["--shape", "gpt2"], "argument --shape: invalid choice: 'gpt2'"),
    (["--max-context", "256", "--prompt-len", "300"], "longer than the block table holds"),
    (["--num-blocks", "2"], "more than the cache's 2 (--num-blocks)"),
    (["--num-blocks", "100000000"], "GiB; this machine has"),
    (["--plot", "out.jpg"], "--plot writes a PNG file"),
    (["--plot", "/nonexistent/folder/out.png"], "folder /nonexistent/folder does not exist"),
    (["--fork-fraction", "0.5", "--max-batch", "1"], "needs --max-batch >= 2"),
    (["--unknown"], "unrecognized arguments: --unknown"),
])
def test_bad_flags_exit_2_with_a_message(flags, message):
    result = run_demo(*TINY, *flags)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_platform_without_these_calls_exits_2_naming_the_rule():
    require_binding()
    # Atlas inference products have no PREFIX_ENCODER and keep KV caches in FRACTAL_NZ, not ND.
    result = run_demo(*TINY, "--platform", "atlas-inference")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error:" in result.stderr and "atlas-inference" in result.stderr
    assert re.search(r"ERROR_\w+ \[(sa|rac|pa)\.[a-z_.]+\]", result.stderr)
    assert "Traceback" not in result.stderr
