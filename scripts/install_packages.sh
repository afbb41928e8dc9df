#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet, with apt-get as root or
# through sudo; installs nothing when all are present. Used by the set-up scripts.
#
#   scripts/install_packages.sh CALLER PACKAGE...   (CALLER names the script in the progress line)
set -euo pipefail
caller="$1"
shift
missing=()
for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if ((${#missing[@]} == 0)); then exit 0; fi
echo "$caller: installing ${missing[*]}"
sudo=""
if [[ "$(id -u)" -ne 0 ]]; then sudo="sudo"; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
