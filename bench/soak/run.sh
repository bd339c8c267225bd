#!/bin/sh
# Installs what bench/soak/run.py needs (Debian 12 packages) when it is missing, then runs it
# with the given arguments: bench/soak/run.sh [--minutes 30] [--json-out FILE] (run.py --help).
# vigil must be built: cmake --preset release && cmake --build --preset release --target vigil
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "nginx runs as root and vigil's open-file limit is set"
need nginx python3
install_missing  # only what is missing

# As a module of the repository's `bench` package, which imports testing.harness beside it: the
# root on PYTHONPATH, so that the caller's directory (and relative paths in the arguments) stay.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.soak.run "$@"
