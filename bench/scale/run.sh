#!/bin/sh
# Installs what bench/scale/run.py needs (Debian 12 packages) when it is missing, then runs it
# with the given arguments:
#   bench/scale/run.sh [--lbs 1000,10000] [--checks tcp,https] [--targets vigil,haproxy] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "descriptor limits for 30,000 listeners; nginx runs as root; the SYN capture needs CAP_NET_RAW"
need haproxy nginx openssl
need_as cc gcc libc6-dev
need python3
install_missing haproxy nginx openssl gcc libc6-dev python3

# As a module of the repository's `bench` package, which imports testing.harness beside it: the
# root on PYTHONPATH, so that the caller's directory (and relative paths in the arguments) stay.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.scale.run "$@"
