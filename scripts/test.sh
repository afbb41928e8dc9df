#!/usr/bin/env bash
# Sets up everything on a fresh Debian machine, then builds and runs the whole test suite twice: a Release
# build, and an AddressSanitizer + UndefinedBehaviorSanitizer build. Also checks the code format. The Release
# build includes the Python extension; its tests import the package from build/release/python, so the core is
# compiled twice (Release, ASan), not a third time for `pip install .`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --deps-only
scripts/check_format.sh

passed=0
failed=0
for preset in release asan; do
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
done
echo "atbx: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
