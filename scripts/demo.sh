#!/usr/bin/env bash
# Sets up everything on a fresh Debian machine, builds Release and runs the main job: `atbx demo`.
# Extra arguments go to `atbx demo` (e.g. --threads 1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
exec build/release/tools/atbx/atbx demo "$@"
