#!/usr/bin/env bash
# Sets up everything on a fresh Debian machine (scripts/setup.sh: the packages, .venv and the atbx Python package
# in it) and runs the main job: the serving demo, `python -m atbx.demo`. Extra arguments go to the demo (--help
# lists them; e.g. --shape qwen2-7b --dtype bf16 --plot serving.png).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m atbx.demo "$@"
