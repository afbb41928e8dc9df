#!/usr/bin/env bash
# Times atbx's SIMD layer against Google Highway on the decode kernel's inner loops (tools/bench/simd_layers.cpp):
# the measurement behind docs/design.md, "Why intrinsics and not Highway". Opt-in, not part of the build or the
# tests; needs a CPU with AVX-512 (F, BW, DQ, VL), AVX512-BF16 and AVX512-VNNI.
#
#   scripts/simd_layers.sh [SPELLS]     prints a Markdown table (best of SPELLS spells of 0.2 s per loop, default 5)
#
# Dependencies (Debian packages): libhwy-dev (Highway, as Debian ships it), g++.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_packages.sh simd_layers libhwy-dev g++
mkdir -p build/simd_layers
# -O3 as CMake's Release builds; the flags of the cpu:avx512 translation unit (src/CMakeLists.txt) plus those
# Highway asks of its AVX-512 target (AVX3); the bf16 and VNNI loops of atbx's layer carry their own target
# attributes, as in the kernel.
g++ -std=c++20 -O3 -Wall -Wextra -Isrc -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mfma -mf16c -mbmi \
    -mbmi2 -mpclmul -maes -msse4.2 tools/bench/simd_layers.cpp -o build/simd_layers/simd_layers
build/simd_layers/simd_layers "$@"
