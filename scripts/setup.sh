#!/usr/bin/env bash
# Installs every dependency of atbx on a Debian machine (bookworm or newer), creates the Python environment
# .venv and installs the atbx Python package into it. Idempotent: installs only what is missing (the package
# build is incremental). Runs apt-get as root, or through sudo.
#
#   scripts/setup.sh               dependencies, .venv, and `pip install .` of atbx into .venv
#   scripts/setup.sh --deps-only   dependencies and .venv only (scripts/test.sh: the tests use the build tree)
#
# Debian packages:
#   build-essential, cmake, ninja-build   compiler (g++ with OpenMP), build system
#   libgtest-dev                          C++ test framework
#   nlohmann-json3-dev                    JSON for case files
#   libcli11-dev                          command-line parsing
#   python3, python3-numpy, python3-pytest  independent NumPy goldens, CLI and Python-package tests
#   python3-dev, python3-venv             headers for the Python extension; the .venv environment
#   python3-torch                         PyTorch (CPU), for the tests of torch tensors in and out
#   pkg-config                            the installed package's pkg-config test
#   python3-matplotlib, python3-threadpoolctl  the serving demo's --plot; its one BLAS thread
#   clang-format                          code format check
#   clang-14, libclang-rt-14-dev,         fuzz targets (scripts/fuzz.sh): libFuzzer and the sanitizer runtimes
#   libomp-14-dev                         for clang, OpenMP for clang
# PyPI packages (into .venv, which also sees Debian's pytest and torch):
#   numpy                                 .venv's NumPy (1.x, the series Debian's torch and matplotlib are built
#                                         for): its wheel brings its own OpenBLAS, where Debian's python3-numpy
#                                         uses the reference BLAS unless the machine has an optimised one (the
#                                         serving demo's model math 6.6x the time). The NumPy goldens run on
#                                         Debian's python3 and numpy, outside .venv.
#   nanobind, scikit-build-core           the Python extension and its build backend
#   ml_dtypes                             NumPy's bfloat16 dtype
#   rich                                  the serving demo's progress bar
#
# Optional, for `atbx bench --peer torch` only: scripts/bench_setup.sh adds libopenblas0-pthread (PyTorch's
# matmuls on an optimised BLAS, as a user's install would have).
# Optional, for scripts/emulated_cpus.sh only (the tests on emulated CPUs without AVX-512 or AVX): qemu-user,
# which that script installs.
set -euo pipefail
cd "$(dirname "$0")/.."

deps_only=0
if [[ "${1:-}" == "--deps-only" ]]; then deps_only=1; fi

packages=(build-essential cmake ninja-build libgtest-dev nlohmann-json3-dev libcli11-dev
          python3 python3-numpy python3-pytest python3-dev python3-venv python3-torch pkg-config clang-format
          python3-matplotlib python3-threadpoolctl clang-14 libclang-rt-14-dev libomp-14-dev)
pypi_packages=(numpy==1.26.4 nanobind==3.1.0 scikit-build-core==1.1.2 ml_dtypes==0.5.4 rich==15.0.0)

scripts/install_packages.sh setup "${packages[@]}"

# Debian's Python refuses pip installs (PEP 668): PyPI packages go into .venv. Debian's python3 explicitly,
# whatever else is on PATH.
if [[ ! -x .venv/bin/python ]]; then
    /usr/bin/python3 -m venv --system-site-packages .venv
fi
pinned_present='import importlib.metadata as m, sys
sys.exit(any(m.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))'
if ! .venv/bin/python -c "$pinned_present" "${pypi_packages[@]}" 2>/dev/null; then
    .venv/bin/python -m pip install --quiet "${pypi_packages[@]}"
fi

if ((deps_only == 0)); then
    # Into .venv, built in build/python-* (incremental); `.venv/bin/python -c "import atbx"` works after it.
    .venv/bin/python -m pip install --quiet --no-build-isolation --no-deps .
fi
