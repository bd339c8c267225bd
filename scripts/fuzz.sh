#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 19, ASan + UBSan) and runs each for a bounded time from the
# seeds in tests/fuzz/seeds and the haproxy.cfg test data: scripts/fuzz.sh [SECONDS_EACH]
# A crash, a leak or a hang (libFuzzer's -timeout) fails the run and leaves the input in build/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

run() {  # TARGET SEED_DIR...
  local target="$1"
  shift
  local corpus="build/fuzz/corpus/$(basename "$target")"
  mkdir -p "$corpus"
  echo "==> fuzz $(basename "$target") for ${seconds}s"
  (cd build/fuzz && "../../$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 "../../$corpus" "$@" 2>&1 | tail -n 3)
  test "${PIPESTATUS[0]}" -eq 0
}

run build/fuzz/src/config/fuzz_config_yaml ../../tests/fuzz/seeds/yaml
run build/fuzz/src/config/fuzz_config_haproxy ../../src/config/haproxy/testdata
run build/fuzz/src/admin/fuzz_admin_api ../../tests/fuzz/seeds/api
run build/fuzz/src/net/fuzz_proxy_header ../../tests/fuzz/seeds/proxy_header
run build/fuzz/src/net/fuzz_address_events ../../tests/fuzz/seeds/address_events
run build/fuzz/src/peers/fuzz_peer_wire ../../tests/fuzz/seeds/peer_wire
run build/fuzz/src/etcd/fuzz_etcd_watch ../../src/etcd/testdata/watch
run build/fuzz/src/kube/fuzz_kube_objects ../../tests/fuzz/seeds/kube
run build/fuzz/src/base/fuzz_duration ../../tests/fuzz/seeds/duration
