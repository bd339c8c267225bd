#!/usr/bin/env python3
"""Octavia API writes beside N load balancers made through the API (the provider driver's load):
a state file of N load balancers (a TCP listener, a pool checked over TCP every 5 s and three
members each, as vigil's Octavia API writes them) is generated, vigil starts from it, and after
its first round of checks, --writes member creates, updates and deletes go through the Octavia
API into the last load balancer's pool. Per binary (--vigil, and --baseline when given, one after
the other, each from the same generated file): the time from start to ready, the first write's
time (it writes the whole state file: the generated one names no journal), each later write's
time (p50, max), each whole Octavia list's time (GET of every load balancer, listener, pool and
monitor, and a page of 10), the writes made while the list of every load balancer, a /metrics
scrape of every scope and the status tree (/v1/status) are being built (how long each read holds up the API:
p50, p99, max), the same for writes made while the three reads run back to back --back-to-back
times over, and the sizes of the state file and its journal at the end; with
--baseline, the ratios. Benchmarks print numbers and never gate CI.

Listeners on 127.0.0.1, ports 20000 + i (so at most 40,000 load balancers); members on 127.1.X.Y,
where nothing listens (their checks are refused at once). Loopback only; every process is started
here and stopped at the end; every wait is bounded; files go to a directory under /tmp.

    bench/scale/api_state.py [--lbs 10000] [--writes 30] [--last-pool-members 3] [--vigil PATH]
                             [--back-to-back 3] [--baseline PATH]
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.benchlib import (Processes, admin_call, emit_json, finish, log, machine_info, loadavg, on_sigterm,
                            raise_nofile, run_main)
from testing.harness.wait import wait_until

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "bench-api-state-token"
STAMP = "2026-01-01T00:00:00"
# The scrape beside the writes: every family but the histograms, as large as a scrape of a build
# before `admin.metrics.scopes: auto` (whose default leaves members out at this size) and the same
# for every build.
EVERY_SCOPE = "/metrics?scope=process&scope=listener&scope=pool&scope=member"


def common(name=""):
    return {"id": str(uuid.uuid4()), "name": name, "description": "", "project_id": "", "tags": [],
            "admin_state_up": True, "created_at": STAMP, "updated_at": STAMP}


def common_without_description():
    c = common()
    del c["description"]  # Octavia's monitors and members have none
    return c


def state_file(path, lbs, last_pool_members=3):
    """The state file vigil's Octavia API would have written for `lbs` load balancers, the last
    one's pool with `last_pool_members` members (the one the writes go to)."""
    out = []
    for i in range(lbs):
        n = last_pool_members if i == lbs - 1 else 3
        pool = {**common(), "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                "healthmonitor": {**common_without_description(), "type": "TCP", "delay": 5, "timeout": 3, "max_retries": 3,
                                  "max_retries_down": 3},
                "members": [{**common_without_description(), "address": f"127.1.{i // 250}.{i % 250 + 1}", "protocol_port": 9000 + k,
                             "weight": 1, "backup": False} for k in range(n)]}
        listener = {**common(), "protocol": "TCP", "protocol_port": 20000 + i, "connection_limit": -1,
                    "default_pool_id": pool["id"]}
        out.append({**common(f"lb{i}"), "vip_address": "127.0.0.1", "topology": "SINGLE",
                    "listeners": [listener], "pools": [pool]})
    with open(path, "w") as f:
        json.dump({"version": 1, "loadbalancers": out}, f)


def reader(admin, paths):
    """curl reading `paths` one after another on one connection, the answers thrown away: a
    process of its own, so that the reads and the writes timed beside them do not share Python's
    lock (a chunked /metrics parsed by http.client held it for milliseconds at a time, and the
    writes waited for this process, not for vigil)."""
    argv = ["curl", "-sS", "--fail", "-H", f"X-Auth-Token: {TOKEN}"]
    for path in paths:
        argv += ["-o", "/dev/null", f"http://{admin}{path}"]
    return subprocess.Popen(argv)


def timed_writes_while(reading, call, members, address, limit):
    """Member creates and deletes into `members`, one after another, while `reading` runs; each
    write's milliseconds."""
    during = []
    while reading.poll() is None and len(during) < limit:
        m, created = call("POST", members, {"member": {"address": address, "protocol_port": 2000}})
        _, deleted = call("DELETE", f"{members}/{m['member']['id']}")
        if reading.poll() is None:
            during += [created * 1000, deleted * 1000]
    if reading.wait(600) != 0:
        raise RuntimeError(f"curl {reading.args[-1]} failed with {reading.returncode}")
    return during


def percentiles(name, during):
    if not during:
        return {}
    ordered = sorted(during)
    return {f"write_during_{name}_p50_ms": round(statistics.median(during), 2),
            f"write_during_{name}_p99_ms": round(ordered[min(len(during) - 1, int(0.99 * len(during)))], 2),
            f"write_during_{name}_max_ms": round(ordered[-1], 2)}


def writes_beside(admin, call, members, path, name):
    """GET `path` and time member creates and deletes while it runs."""
    started = time.monotonic()
    during = timed_writes_while(reader(admin, [path]), call, members, "127.3.0.3", 1000)
    return {f"{name}_beside_writes_ms": round((time.monotonic() - started) * 1000, 1),
            f"writes_during_{name}": len(during), **percentiles(name, during)}


def writes_beside_all(admin, call, members, rounds):
    """The three reads back to back (the list of every load balancer, a /metrics scrape, the
    status tree; `rounds` times), as a Prometheus, a dashboard and an Octavia client might send
    them together, and the member creates and deletes made meanwhile."""
    paths = ["/v2.0/lbaas/loadbalancers", EVERY_SCOPE, "/v1/status"] * rounds
    during = timed_writes_while(reader(admin, paths), call, members, "127.3.0.4", 20000)
    return {"reads_back_to_back": len(paths), "writes_during_reads": len(during),
            **percentiles("reads", during)}


def run_one(label, binary, args, tmp, procs):
    state = os.path.join(tmp, "state.json")
    for leftover in (state, state + ".journal"):
        if os.path.exists(leftover):
            os.remove(leftover)
    state_file(state, args.lbs, args.last_pool_members)
    config = os.path.join(tmp, "vigil.yaml")
    with open(config, "w") as f:
        f.write(f'admin: {{listen: "127.0.0.1:0", token_file: {tmp}/token, state_file: {state}}}\n'
                "workers: 1\nlisteners: []\npools: []\n")
    ready = os.path.join(tmp, f"{label}.ready.json")
    started = time.monotonic()
    proc = procs.spawn(label, [binary, "serve", "-c", config, "--ready-file", ready, "--log-level", "error"])
    if not wait_until(lambda: os.path.exists(ready) or proc.poll() is not None, 120):
        raise RuntimeError(f"{label}: not ready within 120 s")
    if proc.poll() is not None:
        raise RuntimeError(f"{label}: exited with {proc.returncode}")
    ready_s = time.monotonic() - started
    with open(ready) as f:
        admin = json.load(f)["admin"]

    def call(method, path, body=None, raw=False):
        status, answer, seconds = admin_call(admin, TOKEN, method, path, body, 120)
        if status not in (200, 201, 204):
            raise RuntimeError(f"{label}: {method} {path} answered {status}: {answer[:200]!r}")
        return (answer if raw else json.loads(answer) if answer else None), seconds

    pools, _ = call("GET", "/v2.0/lbaas/pools?fields=id")
    members = f"/v2.0/lbaas/pools/{pools['pools'][-1]['id']}/members"
    # The first write after a start from a state file that names no journal writes the whole file
    # (and the disk is busy with it for a moment after): timed apart, before the settling.
    m, first = call("POST", members, {"member": {"address": "127.3.0.2", "protocol_port": 999}})
    call("DELETE", f"{members}/{m['member']['id']}")
    # Past the first round of checks (every 5 s), so that the writes meet the steady state.
    time.sleep(args.settle)
    times = {"create": [], "update": [], "delete": []}
    journal = state + ".journal"

    def journal_size():
        return os.path.getsize(journal) if os.path.exists(journal) else 0

    grown = []  # what each timed write added to the journal; not those that folded it
    for k in range(args.writes):
        for key, method, path, body in (
                ("create", "POST", members, {"member": {"address": "127.3.0.1", "protocol_port": 1000 + k}}),
                ("update", "PUT", None, {"member": {"weight": 5}}),
                ("delete", "DELETE", None, None)):
            was = journal_size()
            answer, secs = call(method, path or f"{members}/{m['member']['id']}", body)
            m = answer if key == "create" else m
            times[key].append(secs * 1000)
            if journal_size() >= was:
                grown.append(journal_size() - was)
    # Each whole list once; then the load balancers' list again, with member creates and deletes
    # sent one after another for as long as it takes (a list built on the control thread holds
    # every one of them up until it is done).
    lists = {}
    for kind in ("loadbalancers", "listeners", "pools", "healthmonitors", "loadbalancers?limit=10"):
        _, secs = call("GET", f"/v2.0/lbaas/{kind}")
        lists["list_" + kind.replace("?limit=10", "_page10") + "_ms"] = round(secs * 1000, 1)
    # The list of every load balancer again, then a Prometheus scrape and the status tree, each
    # with member creates and deletes sent one after another for as long as it takes: what the
    # control thread spends on the read holds every one of them up until it is done.
    for path, name in (("/v2.0/lbaas/loadbalancers", "list"), (EVERY_SCOPE, "metrics"), ("/v1/status", "status")):
        lists.update(writes_beside(admin, call, members, path, name))
    if args.back_to_back:
        lists.update(writes_beside_all(admin, call, members, args.back_to_back))
    result = {"ready_s": round(ready_s, 2), "first_write_ms": round(first * 1000, 1),
              "state_file_mb": round(os.path.getsize(state) / 1e6, 2),
              "journal_mb": round(os.path.getsize(state + ".journal") / 1e6, 3)
              if os.path.exists(state + ".journal") else None,
              "journal_bytes_per_write": round(statistics.median(grown)) if grown else None}
    for key, ts in times.items():
        result[f"{key}_p50_ms"] = round(statistics.median(ts), 2)
        result[f"{key}_max_ms"] = round(max(ts), 2)
    result.update(lists)
    procs.stop(proc)
    return result


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--lbs", type=int, default=10000, help="load balancers made through the API (default 10000)")
    p.add_argument("--writes", type=int, default=30, help="member create, update and delete each (default 30)")
    p.add_argument("--last-pool-members", type=int, default=3,
                   help="members of the pool the writes go to, the last load balancer's (default 3)")
    p.add_argument("--back-to-back", type=int, default=3, metavar="ROUNDS",
                   help="rounds of the three reads back to back, writes timed meanwhile (default 3; 0: none)")
    p.add_argument("--settle", type=float, default=10.0, help="seconds after ready before the writes (default 10)")
    p.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    p.add_argument("--baseline", help="another vigil binary, run the same way after --vigil")
    p.add_argument("--json-out", help="also write the result line to this file")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory (logs, state)")
    args = p.parse_args(argv)
    if not 1 <= args.lbs <= 40000:
        p.error("--lbs must be between 1 and 40000 (one port each from 20000)")
    if not 1 <= args.last_pool_members <= 56000:
        p.error("--last-pool-members must be between 1 and 56000 (one port each from 9000)")
    signal.signal(signal.SIGTERM, on_sigterm)
    nofile = raise_nofile(max(65536, args.lbs + 4096))
    tmp = tempfile.mkdtemp(prefix="vigil-bench-api-state-", dir="/tmp")
    with open(os.path.join(tmp, "token"), "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(os.path.join(tmp, "token"), 0o600)
    procs = Processes(tmp, nofile, grace=20.0)
    load_start = loadavg()
    results = {}
    try:
        for label, binary in (("vigil", args.vigil), ("baseline", args.baseline)):
            if binary:
                log(f"{label}: {args.lbs} load balancers from the state file, {args.writes} writes of each kind")
                results[label] = run_one(label, binary, args, tmp, procs)
                print(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in results[label].items()), flush=True)
    finally:
        finish(procs, tmp, args.keep_tmp)
    if "baseline" in results:
        r = {k: round(results["vigil"][k] / results["baseline"][k], 4)
             for k in results["vigil"] if k.endswith("_ms") and results["vigil"][k] and results["baseline"].get(k)}
        print("  vigil / baseline: " + ", ".join(f"{k} {v}" for k, v in r.items()))
        results["ratios"] = r
    machine = machine_info()
    machine["loadavg_start"], machine["loadavg_end"] = load_start, loadavg()
    emit_json({"bench": "api_state", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": machine, "params": {"lbs": args.lbs, "writes": args.writes, "settle": args.settle,
                          "last_pool_members": args.last_pool_members,
                          "back_to_back": args.back_to_back},
               **results}, args.json_out)
    return 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
