#!/usr/bin/env bash
# Installs every Debian package vigil needs to build, test and run its demo.
# Idempotent: packages already present are left alone, and apt is only asked when one is missing.
set -euo pipefail

build_packages=(g++ cmake ninja-build ccache pkg-config libboost1.81-dev libboost-json1.81-dev
  libssl-dev libyaml-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev openssl
  libsystemd-dev help2man libcli11-dev libnghttp2-dev libnftables-dev)
test_packages=(clang-format python3 python3-pytest python3-pytest-xdist iproute2 iptables nftables procps curl
  python3-h2 python3-openstackclient python3-octaviaclient clang-19 libclang-rt-19-dev keepalived bird2
  prometheus haproxy nginx chromium fonts-dejavu-core octavia-api octavia-driver-agent
  python3-octavia python3-octavia-lib etcd-server etcd-client podman runc catatonit mmdebstrap buildah)

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
  # The Octavia and etcd packages are for tests (tests/octavia runs its own API, the etcd tests
  # their own members): their postinst must neither ask for a database nor start a service. A
  # policy-rc.d that denies every start is put in place only if the machine has none (containers
  # often do), and removed after.
  echo "octavia-common octavia-common/configure_db boolean false" | $SUDO debconf-set-selections
  own_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\n# scripts/setup.sh: no service starts while it installs packages\nexit 101\n' |
      $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  status=0
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}" ||
    status=$?
  if [[ -n "$own_policy" ]]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
  ((status == 0)) || exit "$status"
  # Nor at the next boot: the units the packages just enabled are disabled again.
  # etcd-server's unit is etcd.service; the tests start members of their own.
  for package in octavia-api octavia-driver-agent etcd-server; do
    unit="${package%-server}"
    if [[ " ${missing[*]} " == *" $package "* ]] && command -v deb-systemd-helper >/dev/null; then
      $SUDO deb-systemd-helper disable "$unit.service" || true
    fi
  done
fi
