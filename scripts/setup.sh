#!/usr/bin/env bash
# Installs every dependency of atbx on a Debian machine (bookworm or newer). Idempotent: installs only what is
# missing, and does nothing when everything is there. Runs apt-get as root, or through sudo.
#
# Dependencies (all Debian packages; nothing from PyPI):
#   build-essential, cmake, ninja-build   compiler (g++ with OpenMP), build system
#   libgtest-dev                          C++ test framework
#   nlohmann-json3-dev                    JSON for case files
#   libcli11-dev                          command-line parsing
#   python3, python3-numpy, python3-pytest  independent NumPy goldens and CLI tests
#   clang-format                          code format check
#
# Optional, for `atbx bench --peer torch` only: scripts/bench_setup.sh installs python3-torch and
# libopenblas0-pthread (Debian packages) on top of these.
set -euo pipefail

packages=(build-essential cmake ninja-build libgtest-dev nlohmann-json3-dev libcli11-dev
          python3 python3-numpy python3-pytest clang-format)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [[ "$(id -u)" -ne 0 ]]; then sudo="sudo"; fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
