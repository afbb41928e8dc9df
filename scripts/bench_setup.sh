#!/usr/bin/env bash
# Installs what `atbx bench --peer torch` needs, beyond scripts/setup.sh: PyTorch as a Debian user gets it, with
# the multi-threaded OpenBLAS (Debian's default reference BLAS makes PyTorch several times slower, which would
# understate the peer). Idempotent: installs only what is missing. Runs apt-get as root, or through sudo.
#
# Dependencies (Debian packages):
#   python3-torch          PyTorch (1.13 on bookworm; oneDNN inside, AMX bf16 where the CPU has it)
#   libopenblas0-pthread   OpenBLAS with pthreads, picked by update-alternatives as libblas.so.3
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

packages=(python3-torch libopenblas0-pthread)
scripts/install_packages.sh bench_setup "${packages[@]}"
