#!/usr/bin/env bash
# The demo: builds vigil, starts three simulated Kubernetes API servers on loopback, puts vigil in
# front of them with a ten-line YAML file, and shows a master failing and recovering:
#   vigil members -> stop master-02 -> ERROR with the reason -> restart -> ONLINE.
# Everything runs on 127.0.0.1 with ports the kernel picks; everything is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

bash scripts/setup.sh
bash scripts/build.sh dev
vigil="$root/build/dev/src/daemon/vigil"
apisim="$root/build/dev/testing/apisim/vigil-apisim"

work="$(mktemp -d /tmp/vigil-demo.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds, at most SECONDS.
wait_until() {
  local limit="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "demo: timed out after ${limit}s waiting for $what" >&2
      exit 1
    fi
    sleep 0.2
  done
}

start_apisim() {  # NAME PORT
  rm -f "$work/$1.ready"
  "$apisim" --name "$1" --listen "127.0.0.1:$2" --ready-file "$work/$1.ready" \
    --shutdown-delay 1s >>"$work/$1.log" 2>&1 &
  pids+=($!)
  eval "pid_${1//-/_}=$!"
  wait_until 10 "$1 to listen" test -s "$work/$1.ready"
}

say "starting three simulated API servers (HTTPS, /readyz, /api/v1/nodes)"
ports=()
for n in 1 2 3; do
  start_apisim "master-0$n" 0
  ports+=("$(sed 's/.*://' "$work/master-0$n.ready")")
  echo "master-0$n on 127.0.0.1:${ports[-1]}"
done

od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$work/token"  # hex: URL- and form-safe
chmod 600 "$work/token"
cat >"$work/vigil.yaml" <<YAML
admin: {listen: "127.0.0.1:0", token_file: $work/token}
listeners:
  - {name: api, bind: "127.0.0.1:0", pool: masters}
pools:
  - name: masters
    health_monitor: {type: HTTPS, path: /readyz, interval: 2s, fast_interval: 500ms, timeout: 1s}
    members:
      - {name: master-01, address: 127.0.0.1, port: ${ports[0]}}
      - {name: master-02, address: 127.0.0.1, port: ${ports[1]}}
      - {name: master-03, address: 127.0.0.1, port: ${ports[2]}}
YAML
say "vigil.yaml"
cat "$work/vigil.yaml"

say "vigil check -c vigil.yaml"
"$vigil" check -c "$work/vigil.yaml"

say "starting vigil serve"
"$vigil" serve -c "$work/vigil.yaml" --ready-file "$work/vigil.ready" >"$work/vigil.log" 2>&1 &
pids+=($!)
wait_until 10 "vigil to listen" test -s "$work/vigil.ready"
admin="$(sed 's/.*"admin": "\([^"]*\)".*/\1/' "$work/vigil.ready")"
api="$(sed 's/.*"api": "\([^"]*\)".*/\1/' "$work/vigil.ready")"
export VIGIL_ADMIN="http://$admin" VIGIL_TOKEN="$(cat "$work/token")"
echo "vigil: listener api on $api, admin on $admin"

member_is() {  # NAME STATUS
  "$vigil" members --json | python3 -c "
import json, sys
m = {x['name']: x for x in json.load(sys.stdin)}
sys.exit(0 if m['$1']['operating_status'] == '$2' else 1)"
}
for n in 1 2 3; do wait_until 10 "master-0$n ONLINE" member_is "master-0$n" ONLINE; done

say "vigil members"
"$vigil" members

say "requests through vigil (TLS passed through untouched)"
for i in 1 2 3 4 5 6; do
  curl -sk -D - -o /dev/null "https://$api/api/v1/nodes/master-01" | grep -i '^x-served-by' || true
done

say "stopping master-02 (SIGKILL: the process is gone, its port refuses connections)"
kill -KILL "$pid_master_02"
wait_until 20 "master-02 ERROR" member_is master-02 ERROR
"$vigil" members
"$vigil" status
echo
grep -E "DOWN|UP" "$work/vigil.log" | tail -n 3

say "requests keep working through the two healthy masters"
for i in 1 2 3 4; do
  curl -sk -D - -o /dev/null "https://$api/readyz" | grep -i '^x-served-by' || true
done

say "restarting master-02 on its port"
start_apisim master-02 "${ports[1]}"
wait_until 20 "master-02 ONLINE" member_is master-02 ONLINE
"$vigil" members
grep -E " UP: " "$work/vigil.log" | tail -n 1

say "stopping vigil (SIGTERM)"
kill -TERM "${pids[3]}"
wait "${pids[3]}" && echo "vigil exited cleanly"
say "demo finished"
