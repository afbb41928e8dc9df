"""pytest configuration: where the atbx binary is (--atbx, set by CTest) and which atbx Python package the
test_python_* tests import (--atbx-python DIR: a build tree's python/ folder; default: the installed one)."""
import os
import sys

import pytest


def pytest_addoption(parser):
    parser.addoption("--atbx", default=os.environ.get("ATBX_BIN", "build/release/tools/atbx/atbx"),
                     help="path to the atbx command-line tool")
    parser.addoption("--atbx-python", default=os.environ.get("ATBX_PYTHON_DIR"),
                     help="folder holding the atbx Python package to test (build/release/python)")


def pytest_configure(config):
    package_dir = config.getoption("--atbx-python")
    if package_dir:
        sys.path.insert(0, os.path.abspath(package_dir))


@pytest.fixture(scope="session")
def atbx(request):
    path = os.path.abspath(request.config.getoption("--atbx"))
    if not os.path.exists(path):
        pytest.fail(f"atbx binary not found at {path}; build it or pass --atbx")
    return path


@pytest.fixture(scope="session")
def atbx_cli(atbx):
    """The command-line tool's path, for test modules that import the atbx package under its own name."""
    return atbx
