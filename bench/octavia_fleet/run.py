#!/usr/bin/env python3
"""The vigil provider at fleet size: --lbs load balancers created through the real Octavia 11 API
(HTTP, as python-octaviaclient sends it), each a TCP listener, a pool, three members and a TCP
health monitor, with the vigil provider driver and its agent in Octavia's driver agent feeding
one vigil node.

A client builds --concurrency load balancers at a time, each one's children in order, waiting
for ACTIVE after every write (client.py says why a client must). Members 0 and 1 of every pool
are two loopback listeners of this script that accept and close; member 2 is a bound port that
listens to nothing (refused). So vigil's checks make 2 members of every pool ONLINE and 1 ERROR.
Figures:
- all ACTIVE: from the first create until every load balancer is ACTIVE (provisioning);
- statuses: until Octavia's database holds every member's operating status as expected (written
  by the driver agent from the provider agent's polls of vigil, every status_interval 5 s);
- Octavia's API latency meanwhile: a GET of one load balancer every --probe-interval seconds;
- vigil at the end: its CPU over --window seconds with every member checked, its RSS.

Octavia is the harness's (testing/harness/octavia_harness.py): Debian's octavia-api (wsgiref,
one request at a time), octavia-driver-agent, SQLite in a directory under /tmp. Loopback only;
every process is started here and stopped at the end; every wait is bounded. Benchmarks print
numbers and never gate CI.

    python3 -m bench.octavia_fleet.run [--lbs 1000] [--concurrency 16] [--budget 2400]
                                       [--members each|batch] [--keep-tmp]

--budget: after that many seconds no more load balancers are started; those being built are
finished and measured. On 2 cores the API builds 6-7 a minute (docs/octavia.md, "At fleet
size"), so 1,000 does not fit in a budget worth waiting for; the rate does.
"""

import argparse
import os
import re
import selectors
import shutil
import signal
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from bench.benchlib import (emit_json, fmt, loadavg, log, machine_info, on_sigterm, process_cpu,
                            process_tree, raise_nofile)
from bench.octavia_fleet.client import Api, Prober, build_loadbalancer, percentile

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state_file}
"""
LISTENER_BASE = 20000  # listener i on 20000 + i: below the ephemeral range


class Members:
    """Two loopback listeners that accept and close (members that answer) and one bound port
    that does not listen (a member that refuses), served by one thread."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.socks = []
        for _ in range(2):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(4096)
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ)
            self.socks.append(s)
        self.refusing = socket.socket()
        self.refusing.bind(("127.0.0.1", 0))
        self.addresses = [s.getsockname() for s in self.socks] + [self.refusing.getsockname()]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.is_set():
            for key, _ in self.selector.select(timeout=0.5):
                try:
                    while True:
                        conn, _ = key.fileobj.accept()
                        conn.close()
                except (BlockingIOError, OSError):
                    pass

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        for s in self.socks + [self.refusing]:
            s.close()


def status_counts(db_path):
    """{table: {operating_status: count}} from Octavia's SQLite database, read-only."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        out = {}
        for table in ("load_balancer", "listener", "pool", "member"):
            rows = db.execute(f"SELECT operating_status, COUNT(*) FROM {table} GROUP BY 1")
            out[table] = dict(rows.fetchall())
        return out
    finally:
        db.close()


def statuses_reached(counts, lbs):
    members = counts["member"]
    return members.get("ONLINE", 0) == 2 * lbs and members.get("ERROR", 0) == lbs


def tree_cpu(pid):
    """CPU seconds of pid and every process below it, with the children they have reaped: the
    driver agent's listeners fork a process per request (ForkingUDSServer), which is gone by the
    time anyone looks, its CPU in its parent's cutime and cstime."""
    total = 0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


# The vigil driver's line for every change it ran (provisioning.Worker.process).
REQUESTS_LINE = re.compile(r"vigil: (\w+) (\w+) \S+ took (\d+) requests of Octavia's driver agent")


def agent_requests(api_log, result):
    """Requests the vigil driver made of Octavia's driver agent per write, by action and kind,
    from octavia-api's log: each costs the agent a forked process."""
    per = {}
    for action, kind, n in REQUESTS_LINE.findall(api_log):
        per.setdefault(f"{action} {kind}", []).append(int(n))
    result["agent_requests"] = {k: {"writes": len(v), "mean": sum(v) / len(v), "max": max(v)}
                                for k, v in sorted(per.items())}
    total = [n for v in per.values() for n in v]
    result["agent_requests_per_write"] = sum(total) / len(total) if total else None


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return {k: int(fields[k].split()[0]) for k in ("VmRSS", "RssAnon")}


def create_fleet(api, args, members, ids, result):
    """Creates the load balancers, --concurrency at a time; fills `ids` as they are created."""
    failures = []

    def one(i):
        if time.monotonic() - start > args.budget:
            return None  # past the budget: load balancers not started are not created
        lb_id = build_loadbalancer(api, i, LISTENER_BASE + i, members, args.poll,
                                   args.lb_timeout, batch=args.members == "batch")
        ids.append(lb_id)
        return lb_id

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        futures = [pool.submit(one, i) for i in range(args.lbs)]
        for done, future in enumerate(as_completed(futures), 1):
            try:
                future.result()
            except Exception as e:  # one load balancer failed; the rest go on
                failures.append(str(e))
                log(f"  failed: {e}")
            if done % max(1, args.lbs // 20) == 0 or done == args.lbs:
                elapsed = time.monotonic() - start
                log(f"  {len(ids)} of {args.lbs} load balancers ACTIVE with their children "
                    f"({elapsed:.0f}s, {len(ids) / elapsed * 60:.1f} a minute)")
    result["create_failures"] = len(failures)
    result["create_failure_examples"] = failures[:3]


def wait_statuses(octavia, lbs, timeout, start, result):
    """Waits (at most `timeout` s) until Octavia's database holds every member's expected
    operating status; records the seconds since `start`."""
    deadline = time.monotonic() + timeout
    counts = status_counts(octavia.dir / "octavia.db")
    while not statuses_reached(counts, lbs) and time.monotonic() < deadline:
        time.sleep(1.0)
        counts = status_counts(octavia.dir / "octavia.db")
    reached = statuses_reached(counts, lbs)
    result["statuses_s"] = time.monotonic() - start if reached else None
    result["statuses_after_active_s"] = (result["statuses_s"] - result["create_s"]
                                         if reached else None)
    result["status_counts"] = counts
    log(f"operating statuses {'reached' if reached else 'NOT reached'} after "
        f"{time.monotonic() - start:.1f}s: {counts}")


def probe_figures(prober, result):
    result["probe_count"] = len(prober.latencies)
    result["probe_failures"] = prober.failures
    for p in (50, 99):
        result[f"probe_p{p}_ms"] = (percentile(prober.latencies, p) or 0) * 1000
    result["probe_max_ms"] = max(prober.latencies, default=0) * 1000


def vigil_at_end(pid, window, result):
    """vigil's CPU over `window` seconds with every member checked, and its RSS."""
    v0, t0 = process_cpu([pid]), time.monotonic()
    time.sleep(window)  # the measurement window itself: nothing to wait for
    result["vigil_core_at_end"] = (process_cpu([pid]) - v0) / (time.monotonic() - t0)
    result.update({f"vigil_{k}_kib": v for k, v in rss_kib(pid).items()})
    log(f"vigil over {window:.0f}s at the end: {result['vigil_core_at_end']:.1%} of a core, "
        f"RSS {result['vigil_VmRSS_kib'] / 1024:.1f} MiB")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lbs", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16,
                        help="load balancers being built at once")
    parser.add_argument("--poll", type=float, default=3.0,
                        help="seconds between a client's GETs while it waits for ACTIVE (3: "
                             "python-octaviaclient's --wait)")
    parser.add_argument("--members", choices=("each", "batch"), default="each",
                        help="a `member create` each (the CLI), or one batch member update "
                             "(cloud-provider-openstack)")
    parser.add_argument("--probe-interval", type=float, default=0.5)
    parser.add_argument("--lb-timeout", type=float, default=600.0,
                        help="seconds one write may take to be ACTIVE")
    parser.add_argument("--status-timeout", type=float, default=600.0,
                        help="seconds after the last ACTIVE for the operating statuses")
    parser.add_argument("--budget", type=float, default=2400.0,
                        help="seconds after which no more load balancers are started (those "
                             "being built are finished); the rate is reported either way")
    parser.add_argument("--window", type=float, default=30.0,
                        help="seconds over which vigil's CPU is measured at the end")
    parser.add_argument("--keep-tmp", action="store_true")
    return parser.parse_args(argv)


def main(argv):
    args = parse(argv)
    signal.signal(signal.SIGTERM, on_sigterm)  # stops every process below, as Ctrl-C does
    raise_nofile(65536)  # vigil inherits it: a listening socket per listener and worker
    # Imported here: the harness finds the vigil build from VIGIL_BUILD at import.
    from testing.harness.octavia_harness import Octavia, missing
    from testing.harness.vigil_process import Vigil
    why = missing()
    if why:
        log(f"cannot run: {why}")
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="vigil-bench-octfleet-"))
    log(f"machine: {machine_info()}; files in {tmp}")
    result = {"lbs": args.lbs, "concurrency": args.concurrency, "poll_s": args.poll,
              "members": args.members,
              "load_before": loadavg(), "machine": machine_info()}
    node = octavia = prober = members = None
    try:
        members = Members()
        node_dir = tmp / "node"
        node_dir.mkdir()
        node = Vigil(node_dir, CONFIG.format(state_file=node_dir / "state.json"))
        octavia = Octavia(tmp, node.admin, node.dir / "token",
                          vigil_options="status_interval = 5\nrequest_timeout = 10\n")
        api = Api(f"http://127.0.0.1:{octavia.api_port}")
        ids = []
        prober = Prober(api, ids, args.probe_interval)
        cpu0 = {"vigil": process_cpu([node.proc.pid]), "api": process_cpu([octavia.api.pid]),
                "agent": tree_cpu(octavia.agent.pid)}
        start = time.monotonic()
        create_fleet(api, args, members.addresses, ids, result)
        result["all_active_s"] = time.monotonic() - start if len(ids) == args.lbs else None
        result["active"] = len(ids)
        result["create_s"] = time.monotonic() - start
        result["per_minute"] = len(ids) / (time.monotonic() - start) * 60
        log(f"{len(ids)} load balancers ACTIVE after {time.monotonic() - start:.1f}s")

        wait_statuses(octavia, len(ids), args.status_timeout, start, result)
        prober.stop()
        probe_figures(prober, result)
        result["retries"] = api.retries
        result["api_cpu_s"] = process_cpu([octavia.api.pid]) - cpu0["api"]
        result["agent_cpu_s"] = tree_cpu(octavia.agent.pid) - cpu0["agent"]
        result["vigil_cpu_during_s"] = process_cpu([node.proc.pid]) - cpu0["vigil"]
        vigil_at_end(node.proc.pid, args.window, result)
        agent_requests(octavia.log_text("api"), result)
    finally:
        result["load_after"] = loadavg()
        for thing in (prober, octavia, node, members):
            if thing is not None:
                thing.stop()
        if args.keep_tmp:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    report(result)
    return 0 if result.get("statuses_s") is not None else 1


def report(r):
    print()
    rows = [
        ("load balancers ACTIVE (of --lbs)", r.get("active")),
        ("all ACTIVE, s", r.get("all_active_s")),
        ("creating stopped after, s", r.get("create_s")),
        ("load balancers a minute", r.get("per_minute")),
        ("operating statuses in Octavia, s", r.get("statuses_s")),
        ("  of which after the last ACTIVE, s", r.get("statuses_after_active_s")),
        ("API GET p50 while creating, ms", r.get("probe_p50_ms")),
        ("API GET p99 while creating, ms", r.get("probe_p99_ms")),
        ("API GET max while creating, ms", r.get("probe_max_ms")),
        ("octavia-api CPU until the statuses, s", r.get("api_cpu_s")),
        ("driver agent and its forks CPU until then, s", r.get("agent_cpu_s")),
        ("vigil CPU until then, s", r.get("vigil_cpu_during_s")),
        ("vigil at the end, share of a core", r.get("vigil_core_at_end")),
        ("vigil RSS at the end, MiB", (r.get("vigil_VmRSS_kib") or 0) / 1024 or None),
        ("vigil RssAnon at the end, MiB", (r.get("vigil_RssAnon_kib") or 0) / 1024 or None),
    ]
    for name, value in rows:
        print(f"{name:<40}{fmt(value):>12}")
    print(f"writes tried again: {r.get('retries')}; probes {r.get('probe_count')} "
          f"({r.get('probe_failures')} failed)")
    print(f"requests of the driver agent a write: {fmt(r.get('agent_requests_per_write'))}")
    for name, n in (r.get("agent_requests") or {}).items():
        print(f"  {name:<24}{n['writes']:>6} writes, {n['mean']:.2f} a write (max {n['max']})")
    emit_json(r)


if __name__ == "__main__":
    from bench.benchlib import run_main
    run_main(main, sys.argv[1:])
