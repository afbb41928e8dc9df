#!/usr/bin/env bash
# Sets up everything on a fresh Debian machine, then builds and runs the whole test suite twice: a Release
# build, and an AddressSanitizer + UndefinedBehaviorSanitizer build (clang; cpu:amx on the AMX tile model, so
# its tests run on every host), whose tree also holds the fuzz targets: the past findings' reproducers run with
# its tests, then each target for ATBX_FUZZ_SECONDS (default 20) seconds. Then the concurrency tests under ThreadSanitizer. Also checks the code format.
# The Release build includes the Python extension; its tests import the package from build/release/python, so
# the core is compiled three times (Release, ASan, TSan), not a fourth time for `pip install .` nor a fifth for
# the fuzzers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --deps-only
scripts/check_format.sh

passed=0
failed=0
timings=()

# The fuzz targets are built with the asan preset, and CTest there has replayed the past findings
# (tests/data/fuzz_regressions). The three targets run side by side (one process each) for 3/2 of
# ATBX_FUZZ_SECONDS (default 20) on two cores: each gets about the CPU time of ATBX_FUZZ_SECONDS alone, in half
# the wall time of running them one after another.
run_fuzz_targets() {
    local started=$SECONDS target
    local fuzz_seconds=$(( ${ATBX_FUZZ_SECONDS:-20} * 3 / 2 ))
    local -A fuzz_pids
    mkdir -p build/asan/fuzz
    for target in case_reader validate_plan execute; do
        ATBX_FUZZ_BUILT=1 scripts/fuzz.sh "$target" "$fuzz_seconds" > "build/asan/fuzz/$target.log" 2>&1 &
        fuzz_pids[$target]=$!
    done
    for target in case_reader validate_plan execute; do
        local log="build/asan/fuzz/$target.log"
        if wait "${fuzz_pids[$target]}"; then
            passed=$((passed + 1))
            echo "fuzz $target: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') executions, no finding"
        else
            failed=$((failed + 1))
            tail -40 "$log"
            echo "fuzz $target: FINDING ($log, reproducer in build/asan/fuzz/findings/$target)"
        fi
    done
    timings+=("fuzz $((SECONDS - started))s")
}

for preset in release asan tsan; do
    started=$SECONDS
    scripts/build.sh "$preset"
    log="build/$preset/ctest.log"
    status=0
    ctest --preset "$preset" -j "$(nproc)" 2>&1 | tee "$log" || status=$?
    summary=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1)
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
    bad=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$summary")
    passed=$((passed + ${total:-0} - ${bad:-0}))
    failed=$((failed + ${bad:-0}))
    if [[ $status -ne 0 && ${bad:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
    timings+=("$preset $((SECONDS - started))s")
    if [[ $preset == asan ]]; then
        run_fuzz_targets
    fi
done

echo "atbx: stage times: ${timings[*]}"
echo "atbx: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
