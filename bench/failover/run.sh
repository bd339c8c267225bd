#!/bin/sh
# Installs what bench/failover/run.py needs (Debian 12 packages) when it is missing, then runs it
# with the given arguments: bench/failover/run.sh [--scenarios power-off,graceful,crash]
# [--targets vigil,haproxy-readyz-10s,...] [--serial] [--markdown] [--json-out FILE] [-v]
# vigil and vigil-apisim must be built (cmake --preset dev && cmake --build --preset dev).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "the benchmark creates a network namespace and iptables rules in it"
need_as ip iproute2
need iptables haproxy nginx
need_file /usr/lib/nginx/modules/ngx_stream_module.so libnginx-mod-stream
need python3
install_missing  # only what is missing

# As a module of the repository's `bench` package, which imports testing.harness beside it: the
# root on PYTHONPATH, so that the caller's directory (and relative paths in the arguments) stay.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.failover.run "$@"
