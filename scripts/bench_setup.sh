#!/usr/bin/env bash
# Installs what `atbx bench --peer torch` and `--peer openvino` need, beyond scripts/setup.sh: PyTorch as a
# Debian user gets it, with the multi-threaded OpenBLAS (Debian's default reference BLAS makes PyTorch several
# times slower, which would understate the peer), and OpenVINO from PyPI in a virtual environment of its own.
# Idempotent: installs only what is missing. Runs apt-get as root, or through sudo.
#
# Dependencies (Debian packages):
#   python3-torch          PyTorch (1.13 on bookworm; oneDNN inside, AMX bf16 where the CPU has it)
#   libopenblas0-pthread   OpenBLAS with pthreads, picked by update-alternatives as libblas.so.3
# PyPI packages (into .venv-openvino, apart from .venv: OpenVINO pulls NumPy 2, which Debian's PyTorch 1.13
# cannot load):
#   openvino               its CPU plugin's PagedAttention (tools/bench/openvino_peer.py)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

packages=(python3-torch libopenblas0-pthread)
scripts/install_packages.sh bench_setup "${packages[@]}"

openvino_packages=(openvino==2026.4.1)
if [[ ! -x .venv-openvino/bin/python ]]; then
    /usr/bin/python3 -m venv .venv-openvino
fi
if ! .venv-openvino/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("openvino") != sys.argv[1])' \
    "${openvino_packages[0]#openvino==}" 2>/dev/null; then
    .venv-openvino/bin/python -m pip install --quiet "${openvino_packages[@]}"
fi
