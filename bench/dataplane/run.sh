#!/bin/sh
# Installs what bench/dataplane/run.py needs (Debian 12 packages) when it is missing, then runs
# it with the given arguments: bench/dataplane/run.sh [--rounds 3] [--targets ...] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "run.sh: run as root (the benchmark runs nginx as root and raises descriptor limits)" >&2
  exit 2
fi

missing=""
for tool in haproxy nginx iperf3 wrk hey; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -e /usr/lib/nginx/modules/ngx_stream_module.so ] || missing="$missing libnginx-mod-stream"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"

if [ -n "$missing" ]; then
  echo "run.sh: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The packages are the ones named here; an out-of-date package index is refreshed once.
  apt-get install -y haproxy nginx libnginx-mod-stream iperf3 wrk hey python3 \
    || { apt-get update && apt-get install -y haproxy nginx libnginx-mod-stream iperf3 wrk hey python3; }
fi

exec python3 "$here/run.py" "$@"
