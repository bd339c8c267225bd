#!/usr/bin/env python3
"""Prometheus scrapes of /metrics beside N load balancers made through the Octavia API (the state
file api_state.py writes: a TCP listener and a pool of three members each, checked every 5 s):
for a build and, with --baseline, another, one after the other, each --query (a /metrics query
string, "" for none) --rounds times: the answer's size, the time to read it whole, the CPU the
process spent meanwhile (its control and render threads, and the checks that go on beside, whose
rate when idle is printed first), and its peak RSS (VmHWM) after. Benchmarks print numbers and
never gate CI.

    python3 -m bench.scale.metrics_scrape --lbs 10000 [--vigil PATH] [--baseline OTHER_VIGIL] \
        [--query "" --query "?scope=process&scope=pool" --query "?histograms=member"]
"""

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import urllib.request

from bench.benchlib import Processes, emit_json, finish, log, on_sigterm, raise_nofile, run_main
from bench.scale.api_state import ROOT, TOKEN, state_file
from testing.harness.wait import wait_until

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return None


def scrape(admin, query):
    """(bytes, seconds) of one GET /metrics`query`, read whole."""
    req = urllib.request.Request(f"http://{admin}/metrics{query}", headers={"X-Auth-Token": TOKEN})
    started, size = time.perf_counter(), 0
    with _opener.open(req, timeout=300) as r:
        while chunk := r.read(1 << 20):
            size += len(chunk)
    return size, time.perf_counter() - started


def run_one(label, binary, args, tmp, procs):
    state = os.path.join(tmp, "state.json")
    state_file(state, args.lbs)
    config = os.path.join(tmp, "vigil.yaml")
    with open(config, "w") as f:
        f.write(f'admin: {{listen: "127.0.0.1:0", token_file: {tmp}/token, state_file: {state}}}\n'
                "workers: 1\nlisteners: []\npools: []\n")
    ready = os.path.join(tmp, f"{label}.ready.json")
    proc = procs.spawn(label, [binary, "serve", "-c", config, "--ready-file", ready, "--log-level", "error"])
    if not wait_until(lambda: os.path.exists(ready) or proc.poll() is not None, 180) or proc.poll() is not None:
        raise RuntimeError(f"{label}: not ready within 180 s")
    with open(ready) as f:
        admin = json.load(f)["admin"]
    time.sleep(args.settle)  # past the first rounds of checks
    before = cpu_seconds(proc.pid)
    time.sleep(5)
    out = {"idle_cpu_s_per_s": round((cpu_seconds(proc.pid) - before) / 5, 3),
           "ready_peak_rss_mb": peak_rss_mb(proc.pid), "scrapes": []}
    for query in args.query:
        for _ in range(args.rounds):
            before = cpu_seconds(proc.pid)
            size, seconds = scrape(admin, query)
            out["scrapes"].append({"query": query, "mb": round(size / 1e6, 1), "wall_s": round(seconds, 2),
                                   "cpu_s": round(cpu_seconds(proc.pid) - before, 2),
                                   "peak_rss_mb": peak_rss_mb(proc.pid)})
            print(f"  {label} /metrics{query}: " + ", ".join(f"{k} {v}" for k, v in out["scrapes"][-1].items()
                                                            if k != "query"), flush=True)
    procs.stop(proc)
    os.remove(ready)
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--lbs", type=int, default=10000, help="load balancers made through the API (default 10000)")
    p.add_argument("--query", action="append", help='a /metrics query string, repeatable (default: "" only)')
    p.add_argument("--rounds", type=int, default=2, help="scrapes of each query (default 2)")
    p.add_argument("--settle", type=float, default=10.0, help="seconds after ready before the scrapes (default 10)")
    p.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    p.add_argument("--baseline", help="another vigil binary, run the same way after --vigil")
    p.add_argument("--json-out", help="also write the result line to this file")
    args = p.parse_args(argv)
    args.query = args.query or [""]
    if not 1 <= args.lbs <= 40000:
        p.error("--lbs must be between 1 and 40000 (one port each from 20000)")
    signal.signal(signal.SIGTERM, on_sigterm)
    nofile = raise_nofile(max(65536, args.lbs + 4096))
    tmp = tempfile.mkdtemp(prefix="vigil-bench-metrics-", dir="/tmp")
    with open(os.path.join(tmp, "token"), "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(os.path.join(tmp, "token"), 0o600)
    procs = Processes(tmp, nofile, grace=20.0)
    results = {}
    try:
        for label, binary in (("vigil", args.vigil), ("baseline", args.baseline)):
            if binary:
                log(f"{label}: {args.lbs} load balancers from the state file")
                results[label] = run_one(label, binary, args, tmp, procs)
    finally:
        finish(procs, tmp, False)
    emit_json({"bench": "metrics_scrape", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "params": {"lbs": args.lbs, "queries": args.query, "rounds": args.rounds}, **results},
              args.json_out)
    return 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
