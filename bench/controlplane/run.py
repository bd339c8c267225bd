#!/usr/bin/env python3
"""Control-plane benchmark: what 10,000 members cost the control thread, in three figures, each
with its target.

  cold start   vigil starts with one pool of N members (default 10,000) whose TCP checks all
               fail (127.1.X.Y port 9: nothing listens, loopback refuses at once), checked every
               second; /healthz is asked every 20 ms from the moment the admin API answers, for
               --cold-seconds. Target: every answer within 50 ms.
  API writes   through the Octavia API: a load balancer, a listener and a pool beside the file's
               N members, then --writes member creations one after another, each timed from
               request to answer (the state file is synced before each answer). Target: 5 ms.
  scrape       one client fetches /metrics in a loop for --scrape-seconds while /healthz is asked
               every 20 ms. Target: /healthz within 50 ms.

Prints per figure p50, p99 and max (and how many answers missed the target), then one JSON line.
Loopback only; vigil is started here and stopped at the end (also on Ctrl-C); every wait is
bounded; temporary files go to a directory under /tmp. Python 3 standard library only.
Benchmarks print numbers and never gate CI.

    cmake --preset release && cmake --build --preset release --target vigil
    bench/controlplane/run.py [--members 10000] [--writes 200] [--cold-seconds 10]
                              [--scrape-seconds 5] [--vigil build/release/src/daemon/vigil]
"""

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from bench import benchlib
from testing.harness.wait import wait_until

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "bench-controlplane-token"
TARGET_MS = {"cold_start_healthz": 50, "api_write": 5, "scrape_healthz": 50}


def config(members, tmp):
    lines = "\n".join(
        f"      - {{name: m{i}, address: 127.1.{i // 250}.{i % 250 + 1}, port: 9}}"
        for i in range(members))
    return f"""
admin:
  listen: 127.0.0.1:0
  token_file: {tmp}/token
  state_file: {tmp}/state.json
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s, timeout: 1s}}
    members:
{lines}
"""


def call(admin, method, path, body=None, timeout=30):
    """(status, body bytes, seconds); status 0 when no answer came within `timeout`."""
    return benchlib.admin_call(admin, TOKEN, method, path, body, timeout, no_answer_ok=True)


def healthz_series(admin, seconds, every=0.02):
    """/healthz latencies in ms for `seconds` (one that got no answer counts its 30 s wait)."""
    out = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _, _, s = call(admin, "GET", "/healthz", timeout=30)
        out.append(s * 1000)
        time.sleep(every)
    return out


def summary(name, values):
    values = sorted(values)
    if not values:
        return {"name": name, "n": 0}
    pick = lambda p: values[min(len(values) - 1, int(p * len(values)))]  # noqa: E731
    target = TARGET_MS["api_write" if name.startswith("api_write") else name]
    return {"name": name, "n": len(values), "p50_ms": round(pick(0.5), 2),
            "p99_ms": round(pick(0.99), 2), "max_ms": round(values[-1], 2), "target_ms": target,
            "over_target": sum(1 for v in values if v > target)}


def created(kind, answer):
    status, body, s = answer
    if status != 201:
        raise RuntimeError(f"creating the {kind} answered {status or 'nothing'} after {s:.1f} s")
    return json.loads(body)[kind]["id"]


def api_writes(admin, writes):
    """Per-write latencies in ms; the creations around them are not timed."""
    lb = created("loadbalancer", call(admin, "POST", "/v2.0/lbaas/loadbalancers",
                                      {"loadbalancer": {"name": "k8s"}}, timeout=120))
    listener = created("listener", call(admin, "POST", "/v2.0/lbaas/listeners", {"listener": {
        "loadbalancer_id": lb, "protocol": "TCP", "protocol_port": benchlib.free_port()}},
        timeout=120))
    pool = created("pool", call(admin, "POST", "/v2.0/lbaas/pools", {"pool": {
        "listener_id": listener, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}, timeout=120))
    out = []
    for i in range(writes):
        status, body, s = call(admin, "POST", f"/v2.0/lbaas/pools/{pool}/members", {"member": {
            "address": f"127.2.{i // 250}.{i % 250 + 1}", "protocol_port": 9, "name": f"w{i}"}},
            timeout=120)
        if status != 201:
            raise RuntimeError(f"member create answered {status}: {body[:200]!r}")
        out.append(s * 1000)
    return out


def scrape(admin, seconds):
    sizes, times = [], []
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            status, body, s = call(admin, "GET", "/metrics", timeout=120)
            if status == 200:  # a scrape that got no answer is not a size
                sizes.append(len(body))
            times.append(s * 1000)
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    series = healthz_series(admin, seconds)
    stop.set()
    t.join(60)
    return series, sizes, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--members", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--cold-seconds", type=float, default=10)
    ap.add_argument("--scrape-seconds", type=float, default=5)
    ap.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    args = ap.parse_args()
    args.vigil = str(Path(args.vigil).resolve())  # vigil runs in the temporary directory
    nofile = benchlib.raise_nofile(65536)
    load_before = os.getloadavg()[0]  # the machine's other work shows in every figure
    with tempfile.TemporaryDirectory(prefix="vigil-bench-cp-") as tmp:
        Path(tmp, "token").write_text(TOKEN + "\n")
        Path(tmp, "vigil.yaml").write_text(config(args.members, tmp))
        procs = benchlib.Processes(tmp, nofile=nofile, grace=10)
        try:
            ready = Path(tmp, "ready.json")
            started = time.monotonic()
            procs.spawn("vigil", [args.vigil, "serve", "-c", f"{tmp}/vigil.yaml",
                                  "--ready-file", str(ready)])
            # The ready file is written once the admin API listens, before the first checks end.
            if not wait_until(ready.exists, 120):
                raise RuntimeError("vigil did not write its ready file within 120 s")
            admin = json.loads(ready.read_text())["admin"]
            benchlib.log(f"admin API up {time.monotonic() - started:.2f} s after start")
            cold = healthz_series(admin, args.cold_seconds)
            try:
                writes = api_writes(admin, args.writes)
            except RuntimeError as e:  # still report the other figures
                benchlib.log(f"API writes: {e}")
                writes = []
            scraped, sizes, scrape_ms = scrape(admin, args.scrape_seconds)
        finally:
            procs.stop_all()
    # The last tenth: what one write costs once the pool holds about --writes members.
    last = writes[-max(1, len(writes) // 10):] if writes else []
    results = [summary("cold_start_healthz", cold), summary("api_write", writes),
               summary(f"api_write_at_{len(writes)}", last), summary("scrape_healthz", scraped)]
    load_after = os.getloadavg()[0]
    print(f"\nvigil control plane, {args.members} members ({benchlib.machine_info()}), "
          f"load average {load_before:.1f} before, {load_after:.1f} after")
    print(f"{'figure':22} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'target':>7} {'over':>5}")
    for r in results:
        print(f"{r['name']:22} {r['n']:>6} {r.get('p50_ms', '-'):>8} {r.get('p99_ms', '-'):>8} "
              f"{r.get('max_ms', '-'):>8} {r.get('target_ms', '-'):>7} {r.get('over_target', '-'):>5}")
    if scrape_ms:
        print(f"/metrics: {len(scrape_ms)} scrapes ({len(sizes)} answered), "
              f"{max(sizes or [0]) / 1e6:.1f} MB, median {sorted(scrape_ms)[len(scrape_ms) // 2]:.0f} ms each")
    print(json.dumps({"members": args.members, "results": results,
                      "load_average": [round(load_before, 1), round(load_after, 1)],
                      "metrics_bytes": max(sizes) if sizes else 0}))


if __name__ == "__main__":
    main()
