#!/bin/sh
# Installs what bench/healthcheck/run.py needs (Debian 12 packages) when it is missing, then runs
# it with the given arguments:
#   bench/healthcheck/run.sh [tcp-scale] [--members 10000] [--targets vigil,haproxy,floor,floor-noack] ...
#   bench/healthcheck/run.sh https-load [--rounds 5] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "run.sh: run as root (nginx runs as root; the SYN capture needs CAP_NET_RAW)" >&2
  exit 2
fi

missing=""
for tool in haproxy nginx iperf3 wrk openssl; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
command -v cc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"

if [ -n "$missing" ]; then
  echo "run.sh: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The packages are the ones named here; an out-of-date package index is refreshed once.
  pkgs="haproxy nginx iperf3 wrk openssl gcc libc6-dev python3"
  apt-get install -y $pkgs || { apt-get update && apt-get install -y $pkgs; }
fi

exec python3 "$here/run.py" "$@"
