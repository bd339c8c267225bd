#!/usr/bin/env bash
# Runs the system stage (tests/system, one test at a time, as scripts/test.sh does) N times in a
# row on the dev build (VIGIL_BUILD names another) and reports every failure with its figures: the
# stability check for the bounds those tests assert. scripts/system_repeat.sh N (root; build
# first: scripts/build.sh dev).
# Each run's whole output is kept in build/system-runs/run-I.log. Exits 1 unless all N passed.
set -uo pipefail
cd "$(dirname "$0")/.."
n="${1:?usage: scripts/system_repeat.sh N}"
build="${VIGIL_BUILD:-build/dev}"  # another build: VIGIL_BUILD=build/asan
out=build/system-runs
rm -rf "$out" && mkdir -p "$out"
failed_runs=0
for ((i = 1; i <= n; i++)); do
  log="$out/run-$i.log"
  start=$(date +%s)
  VIGIL_BUILD="$build" /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/system >"$log" 2>&1
  status=$?
  took=$(($(date +%s) - start))
  summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$log" | tail -1)
  if ((status == 0)); then
    echo "system run $i/$n: passed in ${took}s (${summary:-no summary})"
    continue
  fi
  failed_runs=$((failed_runs + 1))
  echo "system run $i/$n: FAILED in ${took}s (${summary:-no summary}); $log"
  # The failing tests and each broken promise with its figures (system_checks.py lists them all).
  grep -E '^FAILED |^E +(AssertionError: |  - )' "$log" | sed 's/^E  */    /' | head -40
done
echo "system stage: $((n - failed_runs)) of $n runs passed"
((failed_runs == 0))
