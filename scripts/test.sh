#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, checks the sources' formatting (clang-format), and runs every
# test: unit tests (ctest) and integration tests (pytest against the real binaries on loopback) on
# the dev build, the system tests (own network namespaces; root), the Octavia provider driver
# against the real Octavia 11 and the differential test (vigil's API against it), the Debian package
# (built, installed and purged; root), the parsers' libFuzzer targets for a bounded time, then unit
# and integration tests again under AddressSanitizer + UndefinedBehaviorSanitizer. Exits non-zero
# on the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --tests

echo "==> format (clang-format --dry-run)"
bash scripts/format.sh --check

run_preset() {
  local preset="$1"
  echo "==> build ($preset)"
  bash scripts/build.sh "$preset"
  echo "==> unit tests ($preset)"
  ctest --preset "$preset" -j "$(nproc)"
  echo "==> integration tests ($preset)"
  # Three at a time (pytest-xdist): each test starts its own processes on ports the kernel picks
  # and mostly waits on them, so two cores run three at once in less than half the time.
  VIGIL_BUILD="build/$preset" /usr/bin/python3 -m pytest -q -p no:cacheprovider -n 3 \
    tests/integration testing/apisim
}

run_preset dev
echo "==> system tests (network namespaces; dev)"
if [[ $(id -u) -eq 0 ]]; then
  # Two at a time: each runs in network namespaces of its own (random names), and its bounds
  # hold with the other beside it (the hang scenario's 1.5 s latency bound is the tightest).
  VIGIL_BUILD=build/dev /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider -n 2 tests/system
else
  echo "system tests need root (ip netns, iptables): skipped" >&2
fi
echo "==> Octavia: the provider driver and the differential test (the real Octavia 11; dev)"
VIGIL_BUILD=build/dev bash scripts/octavia_test.sh
echo "==> Debian package (scripts/package.sh, then dpkg -i and --purge; root)"
if [[ $(id -u) -eq 0 ]]; then
  deb=$(bash scripts/package.sh)
  VIGIL_DEB="$PWD/$deb" /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/package
else
  echo "the package test installs and removes the package (root): skipped" >&2
fi
echo "==> fuzzing (libFuzzer, bounded)"
bash scripts/fuzz.sh "${VIGIL_FUZZ_SECONDS:-20}"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_preset asan
echo "==> all tests passed"
