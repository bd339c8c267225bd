#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 19, ASan + UBSan) and runs each for a bounded time from the
# seeds in tests/fuzz/seeds and the haproxy.cfg test data: scripts/fuzz.sh [SECONDS_EACH]
# A crash, a leak or a hang (libFuzzer's -timeout) fails the run and leaves the input in build/fuzz.
# Targets run one lane per core, side by side (the stage then takes SECONDS x 9 / cores).
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

# TARGET SEED_DIR, one per line.
targets=(
  "build/fuzz/src/config/fuzz_config_yaml ../../tests/fuzz/seeds/yaml"
  "build/fuzz/src/config/fuzz_config_haproxy ../../src/config/haproxy/testdata"
  "build/fuzz/src/admin/fuzz_admin_api ../../tests/fuzz/seeds/api"
  "build/fuzz/src/net/fuzz_proxy_header ../../tests/fuzz/seeds/proxy_header"
  "build/fuzz/src/net/fuzz_address_events ../../tests/fuzz/seeds/address_events"
  "build/fuzz/src/peers/fuzz_peer_wire ../../tests/fuzz/seeds/peer_wire"
  "build/fuzz/src/etcd/fuzz_etcd_watch ../../src/etcd/testdata/watch"
  "build/fuzz/src/kube/fuzz_kube_objects ../../tests/fuzz/seeds/kube"
  "build/fuzz/src/base/fuzz_duration ../../tests/fuzz/seeds/duration"
)

# One lane of targets per core, each lane one target after another (a fuzzer is one process of
# one thread): the stage takes SECONDS x targets / cores instead of SECONDS x targets. Each lane's
# output is printed whole when it ends, so lines of two fuzzers never interleave.
lanes=$(nproc)
pids=()
for ((lane = 0; lane < lanes; lane++)); do
  (
    for ((i = lane; i < ${#targets[@]}; i += lanes)); do
      # shellcheck disable=SC2086 # each entry is a target and its seed directory
      run ${targets[i]}
    done
  ) >"build/fuzz/lane-$lane.log" 2>&1 &
  pids+=("$!")
done
status=0
for ((lane = 0; lane < lanes; lane++)); do
  wait "${pids[lane]}" || status=1
  cat "build/fuzz/lane-$lane.log"
done
exit "$status"
