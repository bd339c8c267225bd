#!/bin/sh
# Runs bench/octavia_fleet/run.py (the vigil provider at fleet size, through the real Octavia 11
# API) with the given arguments, once the Debian packages it needs are there:
#   bench/octavia_fleet/run.sh [--lbs 1000] [--concurrency 16] [--keep-tmp]
# The vigil binary: the dev build, or VIGIL_BUILD=build/release, or VIGIL_BIN=PATH.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "descriptor limits for a listening socket per load balancer"
# Octavia's packages start their services when installed; scripts/setup.sh --tests installs
# them without (a policy-rc.d), so this script only says what is missing.
for tool in octavia-api octavia-driver-agent openstack; do
  command -v "$tool" >/dev/null 2>&1 || { echo "run.sh: $tool is missing: bash scripts/setup.sh --tests" >&2; exit 2; }
done

PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.octavia_fleet.run "$@"
