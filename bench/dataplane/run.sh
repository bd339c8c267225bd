#!/bin/sh
# Installs what bench/dataplane/run.py needs (Debian 12 packages) when it is missing, then runs
# it with the given arguments: bench/dataplane/run.sh [--rounds 3] [--targets ...] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../install.sh
. "$here/../install.sh"

require_root "the benchmark runs nginx as root and raises descriptor limits"
need haproxy nginx iperf3 wrk hey
need_as cc gcc libc6-dev
need_file /usr/lib/nginx/modules/ngx_stream_module.so libnginx-mod-stream
need_file /usr/include/liburing.h liburing-dev  # floor-uring
need_as clang clang                               # floor-sockmap: its BPF program
need_file /usr/include/bpf/libbpf.h libbpf-dev    # floor-sockmap
need python3
install_missing haproxy nginx libnginx-mod-stream iperf3 wrk hey python3 gcc libc6-dev liburing-dev \
  clang libbpf-dev

# As a module of the repository's `bench` package, which imports testing.harness beside it: the
# root on PYTHONPATH, so that the caller's directory (and relative paths in the arguments) stay.
PYTHONPATH="$(cd "$here/../.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
exec python3 -m bench.dataplane.run "$@"
