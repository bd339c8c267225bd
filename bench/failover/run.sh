#!/bin/sh
# Installs what bench/failover/run.py needs (Debian 12 packages) when it is missing, then runs it
# with the given arguments: bench/failover/run.sh [--scenarios power-off,graceful,crash]
# [--targets vigil,haproxy-readyz-10s,...] [--serial] [--markdown] [--json-out FILE] [-v]
# vigil and vigil-apisim must be built (cmake --preset dev && cmake --build --preset dev).
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "run.sh: run as root (the benchmark creates a network namespace and iptables rules in it)" >&2
  exit 2
fi

missing=""
command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
command -v iptables >/dev/null 2>&1 || missing="$missing iptables"
command -v haproxy >/dev/null 2>&1 || missing="$missing haproxy"
command -v nginx >/dev/null 2>&1 || missing="$missing nginx"
[ -e /usr/lib/nginx/modules/ngx_stream_module.so ] || missing="$missing libnginx-mod-stream"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"

if [ -n "$missing" ]; then
  echo "run.sh: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Only the packages named here; an out-of-date package index is refreshed once.
  # shellcheck disable=SC2086
  apt-get install -y $missing || { apt-get update && apt-get install -y $missing; }
fi

exec python3 "$here/run.py" "$@"
