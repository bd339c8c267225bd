#!/bin/sh
# Installs what bench/healthcheck/run.py needs (Debian 12 packages) when it is missing, then runs
# it with the given arguments:
#   bench/healthcheck/run.sh [tcp-scale] [--members 10000] [--targets vigil,haproxy,floor,floor-noack] ...
#   bench/healthcheck/run.sh https-load [--rounds 5] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "nginx runs as root; the SYN capture needs CAP_NET_RAW"
need haproxy nginx iperf3 wrk openssl
need_as cc gcc libc6-dev
need python3
install_missing haproxy nginx iperf3 wrk openssl gcc libc6-dev python3

# As a module of the repository's `bench` package, which imports testing.harness beside it: the
# root on PYTHONPATH, so that the caller's directory (and relative paths in the arguments) stay.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.healthcheck.run "$@"
