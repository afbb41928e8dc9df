"""tools/bench/python_calls.py, the per-call cost benchmark of the Python package: it runs against the package
under test and prints one row per call with two positive times. No performance is asserted."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "tools", "bench", "python_calls.py")


def test_python_calls_benchmark_prints_every_row(request):
    package = request.config.getoption("--atbx-python")
    command = [sys.executable, SCRIPT, "--seconds", "0.005", "--spells", "1"]
    if package:
        command += ["--package", os.path.abspath(package)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("atbx ") and "1 thread(s)" in lines[0]
    rows = [line.rsplit(maxsplit=2) for line in lines[2:]]
    assert [name for name, _, _ in rows] == ["PagedAttention b1 ctx16", "PagedAttention b1 ctx128",
                                             "PagedAttention b8 ctx128", "PagedAttention b1 ctx1024",
                                             "ReshapeAndCache 8 tokens"]
    assert all(float(by_operation) > 0 and float(by_function) > 0 for _, by_operation, by_function in rows)
