#!/usr/bin/env bash
# Builds the fuzz targets (build preset fuzz: the targets of the asan build, clang with libFuzzer, ASan + UBSan,
# in build/asan) and runs one for a time.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
# TARGET: case_reader, validate_plan or execute. The corpus lives in build/asan/fuzz/corpus/TARGET, seeded from
# the valid-call catalogues (the target writes its seeds into build/asan/fuzz/seeds/TARGET). A finding (crash,
# leak, sanitizer report, timeout) stops the run, leaves the reproducer in build/asan/fuzz/findings/TARGET and
# fails. Reproduce one: build/asan/tests/fuzz/atbx_fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
shift 2
# ATBX_FUZZ_BUILT=1: the caller has built the targets (scripts/test.sh runs the targets side by side).
if [[ "${ATBX_FUZZ_BUILT:-0}" != 1 ]]; then
    [[ -f build/asan/build.ninja ]] || cmake --preset asan
    cmake --build --preset fuzz
fi
binary="build/asan/tests/fuzz/atbx_fuzz_$target"
[[ -x "$binary" ]] || { echo "fuzz: no target $target" >&2; exit 1; }
seeds="build/asan/fuzz/seeds/$target"
corpus="build/asan/fuzz/corpus/$target"
findings="build/asan/fuzz/findings/$target"
scratch="build/asan/fuzz/tmp/$target"
mkdir -p "$corpus" "$findings" "$scratch"
# The target writes its seeds as it starts (LLVMFuzzerInitialize); given one file, it runs that input alone.
rm -rf "$seeds"
: > "$scratch/empty"
ATBX_FUZZ_SEED_DIR="$seeds" TMPDIR="$scratch" "$binary" "$scratch/empty" >/dev/null 2>&1
# One fuzzing process, and one OpenMP thread per call: a run uses one core, so CI's other stages keep theirs.
export OMP_NUM_THREADS=1 TMPDIR="$scratch"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# Case files are kilobytes of JSON and .npy; a decoded call is a few dozen bytes. The timeout is generous: the
# first input that names a large seed call builds its random tensors under ASan.
max_len=256
if [[ "$target" == case_reader ]]; then max_len=65536; fi
"$binary" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=4096 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$findings/" "$@" "$corpus" "$seeds"
