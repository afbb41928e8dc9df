#!/usr/bin/env bash
# Configures (once) and builds one CMake preset: release, debug or asan. Incremental: a second run rebuilds
# only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [[ ! -f "build/$preset/build.ninja" ]]; then
    cmake --preset "$preset"
fi
cmake --build --preset "$preset"
