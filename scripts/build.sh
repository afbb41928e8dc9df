#!/usr/bin/env bash
# Configures (once) and builds one CMake preset: release, debug or asan. Incremental: a second run rebuilds
# only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
# The test targets precompile their headers; ccache (when CMAKE_CXX_COMPILER_LAUNCHER names it) caches such
# files only with these settings. Without ccache they change nothing.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
if [[ ! -f "build/$preset/build.ninja" ]]; then
    cmake --preset "$preset"
fi
cmake --build --preset "$preset"
