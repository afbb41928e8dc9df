#!/usr/bin/env bash
# Runs atbx on x86-64 CPUs this machine is not, under QEMU's user-mode emulator (Debian's qemu-user), so that
# the paths a host lacks are still exercised end to end: the CPU features detected, the path the dispatcher
# picks by itself, the kernel tests of every path the emulated CPU has (each forced in turn; the others skip,
# naming the missing feature) and the NumPy goldens through the CLI. Opt-in, not part of scripts/test.sh:
# QEMU's translation runs the tests some 20x slower than the host (docs/testing.md, "CPUs the machine is not").
#
#   scripts/emulated_cpus.sh                      Haswell and Nehalem, the default tests
#   scripts/emulated_cpus.sh --cpu Haswell        one CPU model (`qemu-x86_64 -cpu help` lists them)
#   scripts/emulated_cpus.sh --filter 'Shapes/*'  other tests (a gtest filter)
#
# The models and the paths each must run:
#   Haswell   AVX2 + FMA + F16C, no AVX-512 (the floor of x86-64 servers): cpu:avx2 and cpu:scalar
#   Nehalem   SSE4.2, no AVX and no F16C: cpu:scalar alone, its fp16 conversions without F16C
# QEMU 7.2 (bookworm) translates neither AVX-512 nor AMX, so cpu:avx512 and cpu:amx need such a host.
#
# Dependencies (Debian packages): qemu-user, beside those of scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

cpus=()
filter='Registry/*:Isa/*:Shapes/*:Groups/*:Heads/*:Descales/*:Modes/*:Catalogue/*:SelfAttention/SaValidCallTest*'
filter+=':CpuCacheWrite*:StreamCopy*:NumericSemantics*:PaSpec*:PaMla*:PaMask*'
goldens=(tests/python/test_pa_*.py tests/python/test_sa_*.py tests/python/test_rac.py tests/python/test_end_to_end.py)
usage() {
    echo "usage: scripts/emulated_cpus.sh [--cpu MODEL]... [--filter GTEST_FILTER]" >&2
    exit 2
}
while (($# > 0)); do
    case "$1" in
        --cpu) (($# >= 2)) || usage; cpus+=("$2"); shift 2 ;;
        --filter) (($# >= 2)) || usage; filter="$2"; shift 2 ;;
        *) usage ;;
    esac
done
if ((${#cpus[@]} == 0)); then cpus=(Haswell Nehalem); fi

scripts/setup.sh --deps-only
scripts/install_packages.sh emulated_cpus qemu-user
scripts/build.sh release

atbx=build/release/tools/atbx/atbx
tests=build/release/tests/atbx_tests
logs=build/release/emulated_cpus
mkdir -p "$logs"

# The paths the model must run (atbx paths names them "cpu:<path> available").
expected_paths() {
    case "$1" in
        Haswell*|Broadwell*|Skylake-Client*) echo "avx2 scalar" ;;
        *) echo "scalar" ;;
    esac
}

# QEMU warns once per CPUID feature its translator lacks (pcid, x2apic, ...): noise for user-mode programs.
qemu_noise="TCG doesn't support requested feature"

# emulate MODEL PROGRAM ARGS...
emulate() {
    local cpu="$1"
    shift
    qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v "$qemu_noise" >&2)
}

# Everything for one model, into $logs/<model>.*; fails when a path the model has is missing or skipped,
# the demo's check fails, or a test fails.
run_cpu() {
    local cpu="$1" status=0 start=$SECONDS
    emulate "$cpu" "$atbx" paths > "$logs/$cpu.paths" || status=1
    for path in $(expected_paths "$cpu"); do
        if ! grep -q "^cpu:$path available" "$logs/$cpu.paths"; then
            echo "emulated_cpus: $cpu should run cpu:$path" >> "$logs/$cpu.problems"
            status=1
        fi
    done
    # The dispatcher's own choice on a decode call, checked against the float64 reference.
    emulate "$cpu" "$atbx" demo --backend cpu --iterations 1 > "$logs/$cpu.demo" 2>&1 || status=1
    OMP_WAIT_POLICY=passive emulate "$cpu" "$tests" --gtest_filter="$filter" > "$logs/$cpu.tests" 2>&1 || status=1
    # The NumPy goldens and the end-to-end test, through the CLI run on the model (on every path it has).
    local cli="$logs/atbx-$cpu"
    printf '#!/usr/bin/env bash\nexec qemu-x86_64 -cpu %s %s "$@" 2> >(grep -v "%s" >&2)\n' \
        "$cpu" "$PWD/$atbx" "$qemu_noise" > "$cli"
    chmod +x "$cli"
    OMP_WAIT_POLICY=passive .venv/bin/python -m pytest -q "${goldens[@]}" --atbx "$cli" \
        > "$logs/$cpu.goldens" 2>&1 || status=1
    # A test instance of a path the model has must run, never skip.
    for path in $(expected_paths "$cpu"); do
        if grep -E "^\[  SKIPPED \] .*/$path( |$)" "$logs/$cpu.tests" >> "$logs/$cpu.problems"; then
            echo "emulated_cpus: $cpu skipped tests of cpu:$path" >> "$logs/$cpu.problems"
            status=1
        fi
    done
    echo "$((SECONDS - start))" > "$logs/$cpu.seconds"
    return "$status"
}

# The models side by side (one per core on a two-core machine); their summaries once all are done.
declare -A pids
for cpu in "${cpus[@]}"; do
    rm -f "$logs/$cpu".*
    run_cpu "$cpu" &
    pids[$cpu]=$!
done
failed=0
for cpu in "${cpus[@]}"; do
    status=0
    wait "${pids[$cpu]}" || status=1
    echo "== $cpu ($(cat "$logs/$cpu.seconds" 2>/dev/null || echo '?') s; logs: $logs/$cpu.*)"
    cat "$logs/$cpu.paths"
    grep -E "kernel cpu|^check" "$logs/$cpu.demo" || tail -n 3 "$logs/$cpu.demo"
    grep -E "^\[==========\] [0-9]+ tests|^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]" "$logs/$cpu.tests" ||
        tail -n 3 "$logs/$cpu.tests"
    tail -n 1 "$logs/$cpu.goldens"
    if [[ -s "$logs/$cpu.problems" ]]; then cat "$logs/$cpu.problems"; fi
    if ((status != 0)); then
        echo "$cpu: FAILED"
        failed=1
    fi
done
exit "$failed"
