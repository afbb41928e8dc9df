"""pytest configuration: where the atbx binary is (--atbx, set by CTest)."""
import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--atbx", default=os.environ.get("ATBX_BIN", "build/release/tools/atbx/atbx"),
                     help="path to the atbx command-line tool")


@pytest.fixture(scope="session")
def atbx(request):
    path = os.path.abspath(request.config.getoption("--atbx"))
    if not os.path.exists(path):
        pytest.fail(f"atbx binary not found at {path}; build it or pass --atbx")
    return path
