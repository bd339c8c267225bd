#!/usr/bin/env bash
# Runs the Octavia tests (tests/octavia): the provider driver's pure parts, then the real Octavia 11
# API and driver agent (Debian packages; scripts/setup.sh --tests installs them) in front of a vigil
# daemon, driven by the openstack CLI, and the differential test (the same CLI steps against the
# real Octavia with its noop provider and against vigil's own API, compared field by field).
# Needs a build: VIGIL_BUILD (default build/dev).
set -euo pipefail
cd "$(dirname "$0")/.."
export VIGIL_BUILD="${VIGIL_BUILD:-build/dev}"
for binary in "$VIGIL_BUILD/src/daemon/vigil" "$VIGIL_BUILD/testing/apisim/vigil-apisim"; do
  [[ -x "$binary" ]] || { echo "octavia_test: $binary is missing: build first (bash scripts/build.sh)" >&2; exit 2; }
done
exec /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/octavia "$@"
