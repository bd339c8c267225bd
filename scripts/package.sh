#!/usr/bin/env bash
# Builds vigil's Debian package with CPack (deploy/install.cmake says what goes where; the
# maintainer scripts are in deploy/debian): scripts/package.sh. Prints the path of the .deb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >&2
cmake --preset package >/dev/null
cmake --build --preset package -j "$(nproc)" >&2
out=build/package/deb
rm -rf "$out"
cpack --config build/package/CPackConfig.cmake -B "$out" -D CPACK_STRIP_FILES=ON >&2
ls "$out"/vigil_*.deb
