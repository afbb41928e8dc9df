"""What the serving demo's tests share: importing the demo (skipped, with the reason, only when the atbx
package is not built) and a way to run its command line."""
import os
import subprocess
import sys

import pytest

NOT_BUILT = "the atbx Python package is not built (scripts/setup.sh builds it into .venv)"


def import_demo_module(name):
    """atbx.demo.<name>; skips the test when `import atbx` fails."""
    pytest.importorskip("atbx", reason=NOT_BUILT)
    return pytest.importorskip(f"atbx.demo.{name}", reason=NOT_BUILT)


def require_binding():
    """The atbx module with its operations; skips the test when the binding is absent."""
    atbx = pytest.importorskip("atbx", reason=NOT_BUILT)
    if not hasattr(atbx, "Operation"):
        pytest.skip(NOT_BUILT)
    return atbx


def run_demo(*flags, timeout=300):
    """Runs `python -m atbx.demo` with the flags, on the atbx package these tests import (the build tree's, with
    --atbx-python); returns the CompletedProcess (text)."""
    import atbx

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(atbx.__file__)))
    path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "atbx.demo", *flags], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1"})


# A workload that runs in a few seconds and still exercises every path: a system prompt of more than one block
# (prefix-cache hits through PREFIX_ENCODER), forks (copy-on-write), drafts (PagedAttention SPEC), block reuse.
TINY = ["--requests", "5", "--layers", "1", "--hidden", "32", "--vocab", "64", "--prompt-len", "5-40",
        "--output-len", "3-9", "--shared-prefix", "130", "--fork-fraction", "0.5", "--num-blocks", "12",
        "--max-context", "256", "--max-batch", "4", "--threads", "2", "--no-progress", "--seed", "3"]
