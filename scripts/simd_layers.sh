#!/usr/bin/env bash
# Times atbx's SIMD layer against Google Highway on the decode kernel's inner loops (tools/bench/simd_layers.cpp),
# once per vector path the CPU has (AVX-512 with AVX512-BF16 and AVX512-VNNI; AVX2 with FMA and F16C): the
# measurement behind docs/design.md, "Why intrinsics and not Highway". Opt-in, not part of the build or the tests.
#
#   scripts/simd_layers.sh [SPELLS]     prints a Markdown table per path (best of SPELLS spells of 0.2 s per loop,
#                                       default 5)
#
# Dependencies (Debian packages): libhwy-dev (Highway, as Debian ships it), g++.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_packages.sh simd_layers libhwy-dev g++
mkdir -p build/simd_layers
# -O3 as CMake's Release builds; each path's flags as its kernel translation unit has them (src/CMakeLists.txt),
# plus those Highway asks of its target for that path (AVX3 or AVX2); the bf16 and VNNI loops of atbx's AVX-512
# layer carry their own target attributes, as in the kernel.
common=(-std=c++20 -O3 -Wall -Wextra -Isrc -mavx2 -mfma -mf16c -mbmi -mbmi2 -mpclmul -maes -msse4.2)
g++ "${common[@]}" -mavx512f -mavx512bw -mavx512dq -mavx512vl tools/bench/simd_layers.cpp \
    -o build/simd_layers/simd_layers_avx512
g++ "${common[@]}" tools/bench/simd_layers.cpp -o build/simd_layers/simd_layers_avx2
# A path the CPU lacks exits with 2 and a line naming what is missing: skipped, not failed.
status=0
for path in avx512 avx2; do
    build/simd_layers/simd_layers_$path "$@" || { code=$?; ((code == 2)) || status=$code; }
    echo
done
exit $status
