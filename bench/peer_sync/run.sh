#!/bin/sh
# Installs what bench/peer_sync/run.py needs (Debian 12 packages) when it is missing, then runs
# it with the given arguments:
#   bench/peer_sync/run.sh [--rounds 3] [--window 30] [--sessions 10000] [--rate 1000] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "10,000 sessions need more than 20,000 descriptors in vigil"
need_as cc gcc libc6-dev
need_as ss iproute2
need python3
install_missing gcc libc6-dev iproute2 python3

# As a module of the repository's `bench` package (bench/README.md): the root on PYTHONPATH.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.peer_sync.run "$@"
