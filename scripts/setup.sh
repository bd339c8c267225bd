#!/usr/bin/env bash
# Installs every Debian package vigil needs to build, test and run its demo.
# Idempotent: packages already present are left alone, and apt is only asked when one is missing.
set -euo pipefail

build_packages=(g++ cmake ninja-build ccache pkg-config libboost1.81-dev libboost-json1.81-dev
  libssl-dev libyaml-cpp-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev openssl
  libsystemd-dev help2man libcli11-dev)
test_packages=(clang-format python3 python3-pytest iproute2 iptables procps curl
  python3-openstackclient python3-octaviaclient clang-19 libclang-rt-19-dev keepalived bird2
  prometheus haproxy nginx chromium fonts-dejavu-core)

want=("${build_packages[@]}")
if [[ "${1:-}" == "--tests" ]]; then want+=("${test_packages[@]}"); fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
