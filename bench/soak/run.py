#!/usr/bin/env python3
"""Soak: vigil (release build) for --minutes (default 30) in front of 3 nginx backends on
127.0.0.1, under steady checked client traffic, while

  every --kill-every s (60)    a member is killed (SIGKILL to its nginx) and restarted
                               --down-seconds (5) later, the members in turn;
  every --reload-every s (30)  vigil is reloaded (SIGHUP, the config's idle_timeout toggled);
  every --api-every s (20)     a member is drained, or made ready again, through the admin API;
  every --flood-every s (300)  a flood opens connections up to vigil's fd budget on a listener
                               of its own, holds them --flood-hold s (15) and closes them.

Clients: --keepalive threads on one kept-alive connection each and --newconn threads opening a
connection per request, --rate requests a second each; every --slow-every-th request fetches
/slow (32 KiB at nginx's limit_rate, about 250 ms), so that some are in flight at a kill. Each
answer is checked (status, the member's X-Member header, the body). A request in flight at a
kill instant that fails is counted apart from the others ("beyond"), with the number in flight
on the killed member at that instant; a kept-alive connection whose member was killed while it
sat idle is retried on a new connection, as HTTP clients do, and counted apart too.

Reports: requests (failed at a kill, failed beyond), vigil's fd count and RSS sampled every 10 s
(min/max/first/last, slope outside floods), per-minute counts, the members vigil marked down
outside their outages, each flood; a table, then one JSON line. vigil runs with an open-file
limit of --nofile (4096) so that the flood reaches its budget. Loopback only; every process is
stopped at the end (also on Ctrl-C or SIGTERM); every wait is bounded. Python 3 standard library
and nginx; bench/soak/run.sh installs nginx when it is missing.

    cmake --preset release && cmake --build --preset release --target vigil
    bench/soak/run.sh [--minutes 30] [--json-out FILE]
"""

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import benchlib
from bench.soak import chaos
from bench.soak import report
from bench.soak import traffic
from bench.soak.backends import Backends
from testing.harness.wait import wait_until

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "bench-soak-token"
WORKERS = 2
API_MAX_CONNECTIONS = 100


def fd_reserve(listeners, workers, monitored):
    """vigil's fd reserve as docs/operations.md ("File descriptors: the budget") gives it."""
    return 64 + listeners * workers + 64 + 2 * monitored + 2 * listeners * workers


class Soak:
    """What the threads share: the arguments, the processes and every record of the run."""

    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.stop = threading.Event()
        self.member_names = ["b1", "b2", "b3"]
        self.token = TOKEN
        self.traffic = traffic.Traffic(self.member_names)
        self.kills, self.outages, self.floods, self.samples = [], [], [], []
        self.reloads = {"sent": 0, "failed": 0}
        self.api_changes = {"sent": 0, "failed": 0}
        self.flooding = False
        self.api_port, self.flood_port = benchlib.free_port(), benchlib.free_port()
        sessions = (args.nofile - fd_reserve(2, WORKERS, len(self.member_names))) // 2
        self.flood_max = sessions - API_MAX_CONNECTIONS  # the listeners' sum is the budget
        self.flood_count = self.flood_max + args.flood_over

    def write_config(self, idle_timeout="1h"):
        members = "\n".join(f"      - {{name: {n}, address: 127.0.0.1, port: {self.backends[n].port}}}"
                            for n in self.member_names)
        text = f"""\
admin:
  listen: 127.0.0.1:0
  token_file: {self.tmp}/token
  state_file: {self.tmp}/state.json
workers: {WORKERS}
listeners:
  - {{name: api, bind: "127.0.0.1:{self.api_port}", pool: web,
     max_connections: {API_MAX_CONNECTIONS}, idle_timeout: {idle_timeout}}}
  - {{name: flood, bind: "127.0.0.1:{self.flood_port}", pool: web,
     max_connections: {self.flood_max}}}
pools:
  - name: web
    health_monitor: {{type: HTTP, path: /, interval: 1s, timeout: 1s,
                      healthy_threshold: 2, unhealthy_threshold: 2}}
    members:
{members}
"""
        path = Path(self.tmp, "vigil.yaml")
        Path(self.tmp, "vigil.yaml.new").write_text(text)
        os.replace(Path(self.tmp, "vigil.yaml.new"), path)  # a reload never reads half a file

    def fd_count(self):
        try:
            return len(os.listdir(f"/proc/{self.vigil.pid}/fd"))
        except OSError:
            return None

    def rss_mb(self):
        try:
            with open(f"/proc/{self.vigil.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return round(int(line.split()[1]) / 1024, 1)
        except (OSError, ValueError):
            pass
        return None


def start_vigil(soak, procs_vigil):
    ready = Path(soak.tmp, "ready.json")
    soak.vigil = procs_vigil.spawn("vigil", [soak.args.vigil, "serve", "-c", f"{soak.tmp}/vigil.yaml",
                                             "--ready-file", str(ready)])
    if not wait_until(lambda: ready.exists() or soak.vigil.poll() is not None, 60):
        raise RuntimeError("vigil did not write its ready file within 60 s")
    if soak.vigil.poll() is not None:
        raise RuntimeError(f"vigil exited: {benchlib.tail(soak.vigil.logpath)}")
    soak.admin = json.loads(ready.read_text())["admin"]
    if not wait_until(lambda: all(h == "up" for h in chaos.member_health(
            soak.admin, soak.token).values()), 30, 0.2):
        raise RuntimeError("the members did not come up within 30 s")


def summarise(soak, t0, load_first):
    events = report.down_events(soak.vigil.logpath, t0)
    for k in soak.kills:
        # Only a DOWN within the outage: a drained member's is not logged until it is ready.
        until = k["t"] + k.get("restarted_after_s", 0) + 5
        downs = [t for t, _, m, _ in events if m == k["member"] and k["t"] - 1 <= t <= until]
        k["marked_down_after_s"] = round(min(downs) - k["t"], 2) if downs else None
        k["failed"] = sum(1 for d in soak.traffic.done if not d[2] and d[5] in k["in_flight_ids"])
    soak.reloads["applied"] = len(benchlib.log_findings(soak.vigil.logpath,
                                                         report.re.compile(r" info reloaded ")))
    result = {
        "bench": "soak", "minutes": soak.args.minutes, "machine": benchlib.machine_info(memory=True),
        "load_first": load_first, "load_last": benchlib.loadavg(),
        "requests": report.requests(soak.traffic.done, soak.kills),
        "stale_retries": soak.traffic.stale_retries,
        "kills": [{k: v for k, v in kill.items() if k != "in_flight_ids"} for kill in soak.kills],
        "fds": report.series(soak.samples, "fds"), "rss_mb": report.series(soak.samples, "rss_mb"),
        "reloads": soak.reloads, "api_changes": soak.api_changes, "floods": soak.floods,
        "flood_connections": soak.flood_count, "vigil_nofile": soak.args.nofile,
        "down_while_healthy": report.down_while_healthy(events, soak.outages),
        "down_events": len(events), "per_minute": report.per_minute(soak.traffic.done, t0),
        "vigil_log_problems": benchlib.log_findings(
            soak.vigil.logpath, report.re.compile(r" (error|fatal) "))[:20],
    }
    return result


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--kill-every", type=float, default=60)
    ap.add_argument("--down-seconds", type=float, default=5)
    ap.add_argument("--reload-every", type=float, default=30)
    ap.add_argument("--api-every", type=float, default=20)
    ap.add_argument("--flood-every", type=float, default=300)
    ap.add_argument("--flood-hold", type=float, default=15)
    ap.add_argument("--flood-over", type=int, default=100,
                    help="connections past the flood listener's limit (closed by vigil at once)")
    ap.add_argument("--keepalive", type=int, default=8)
    ap.add_argument("--newconn", type=int, default=4)
    ap.add_argument("--rate", type=float, default=40, help="requests a second per client thread")
    ap.add_argument("--slow-every", type=int, default=20)
    ap.add_argument("--nofile", type=int, default=4096, help="vigil's open-file limit")
    ap.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    ap.add_argument("--json-out")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the configs and logs")
    args = ap.parse_args()
    args.vigil = str(Path(args.vigil).resolve())
    return args


def main():
    args = parse_args()
    if not os.access(args.vigil, os.X_OK):
        sys.exit(f"run.py: no vigil at {args.vigil}: cmake --build --preset release --target vigil")
    signal.signal(signal.SIGTERM, benchlib.on_sigterm)
    nofile = benchlib.raise_nofile(65536)
    with tempfile.TemporaryDirectory(prefix="vigil-bench-soak-") as tmp:
        if args.keep_tmp:
            tmp = tempfile.mkdtemp(prefix="vigil-bench-soak-kept-")
            benchlib.log(f"configs and logs stay in {tmp}")
        Path(tmp, "token").write_text(TOKEN + "\n")
        os.chmod(Path(tmp, "token"), 0o600)
        soak = Soak(args, tmp)
        procs = benchlib.Processes(tmp, nofile=nofile, grace=10)
        procs_vigil = benchlib.Processes(tmp, nofile=args.nofile, grace=20)
        threads = []
        try:
            soak.backends = Backends(procs, tmp, soak.member_names, nofile)
            soak.write_config()
            start_vigil(soak, procs_vigil)
            benchlib.log(f"vigil up (admin {soak.admin}); {args.minutes} minutes of soak; flood of "
                         f"{soak.flood_count} connections against a limit of {soak.flood_max}")
            load_first = benchlib.loadavg()
            t0 = time.time()
            soak.t0_mono = time.monotonic()
            threads += traffic.start_clients(soak.traffic, soak.api_port, args.keepalive,
                                             args.newconn, args.rate, args.slow_every)
            threads += chaos.Chaos(soak).start(soak.stop)
            end = time.monotonic() + args.minutes * 60
            while not soak.stop.wait(min(60.0, max(0.0, end - time.monotonic()))):
                if time.monotonic() >= end:
                    break
                benchlib.log(f"{len(soak.traffic.done):,} requests, "
                             f"{sum(1 for d in soak.traffic.done if not d[2])} failed, "
                             f"fds {soak.fd_count()}, rss {soak.rss_mb()} MB")
                if soak.vigil.poll() is not None:
                    raise RuntimeError(f"vigil exited: {benchlib.tail(soak.vigil.logpath)}")
        except benchlib.Stop:
            benchlib.log("stopped early (SIGTERM)")
        finally:
            soak.stop.set()
            soak.traffic.stop.set()
            for t in threads:
                t.join(30)
            vigil_alive = getattr(soak, "vigil", None) is not None and soak.vigil.poll() is None
            result = summarise(soak, t0, load_first) if vigil_alive and "t0" in locals() else None
            procs_vigil.stop_all()
            procs.stop_all()
        if result is None:
            sys.exit("run.py: vigil did not run to the end; see the log above")
        result["vigil_exit"] = soak.vigil.returncode
    report.print_report(result)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
