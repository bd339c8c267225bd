#!/bin/sh
# Installs what bench/node_local/run.py needs (Debian 12 packages) when it is missing, then runs
# it: bench/node_local/run.sh [--nodes 1000] [--seconds 60] [--warmup 70] [--vigil PATH]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "nginx runs as root"
need nginx openssl python3
install_missing nginx openssl python3

PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.node_local.run "$@"
