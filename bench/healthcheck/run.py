#!/usr/bin/env python3
"""Health checks at scale: what N members with TCP checks every second cost vigil's control thread,
and how closely the checks keep to their schedule.

vigil checks N members whose addresses are spread over 127.0.0.0/8 (127.0.X.Y), all on one port
where a single sink accepts every check, notes which member it was for and when, and closes it.
From those accept times the script derives, per member, the gaps between consecutive checks:
with `interval` 1s and vigil's ±10 % jitter every gap should lie in [0.9 s, 1.1 s]; a check later
than 1.1 s + 50 ms (or earlier than 0.9 s - 50 ms) is off its schedule. The control thread's CPU
time comes from /proc/PID/task/PID/stat (the main thread is the control thread; workers have
their own tasks).

Loopback only; every process is started and stopped by the script; the run is bounded.
Benchmarks print numbers and never gate CI.

    bench/healthcheck/run.py [--members 10000] [--interval 1] [--duration 30] [--vigil PATH]
"""
import argparse
import json
import os
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def member_address(i):
    # 127.0.1.1 ... : skip .0 and .255 so every address is an ordinary host address.
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def write_config(path, members, interval, port):
    pools = []
    per_pool = 100
    for p in range(0, members, per_pool):
        lines = "\n".join(
            f"      - {{name: m{i}, address: {member_address(i)}, port: {port}}}"
            for i in range(p, min(members, p + per_pool)))
        pools.append(f"""  - name: pool{p // per_pool}
    health_monitor: {{type: TCP, interval: {interval}s, fast_interval: {interval}s, timeout: 1s}}
    members:
{lines}""")
    path.write_text(f"""admin: {{listen: "127.0.0.1:0"}}
workers: 1
listeners:
  - {{name: l, bind: "127.0.0.1:0", pool: pool0}}
pools:
""" + "\n".join(pools) + "\n")


class Sink:
    """Accepts every check on one port; records (member address, monotonic time)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))  # every 127.x address on this port; loopback traffic only
        self.sock.listen(4096)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.events = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ)
        while not self.stop.is_set():
            for _ in sel.select(timeout=0.2):
                while True:
                    try:
                        conn, _ = self.sock.accept()
                    except BlockingIOError:
                        break
                    now = time.monotonic()
                    try:
                        addr = conn.getsockname()[0]
                    finally:
                        conn.close()
                    self.events.append((addr, now))


def cpu_seconds(pid, tid):
    fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--members", type=int, default=10000)
    ap.add_argument("--interval", type=int, default=1, help="seconds between checks")
    ap.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    sink = Sink()
    tmp = Path(tempfile.mkdtemp(prefix="vigil-hc-"))
    config = tmp / "vigil.yaml"
    write_config(config, args.members, args.interval, sink.port)
    ready = tmp / "ready"
    log = open(tmp / "vigil.log", "w")
    proc = subprocess.Popen([args.vigil, "serve", "-c", str(config), "--ready-file", str(ready),
                             "--log-level", "warn"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"vigil did not start: see {tmp / 'vigil.log'}")
            time.sleep(0.1)
        time.sleep(args.warmup)  # the benchmark's own timeline: let the start-up burst pass
        t0, c0 = time.monotonic(), cpu_seconds(proc.pid, proc.pid)
        start_index = len(sink.events)
        time.sleep(args.duration)
        t1, c1 = time.monotonic(), cpu_seconds(proc.pid, proc.pid)
        events = sink.events[start_index:]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        sink.stop.set()
        log.close()

    by_member = {}
    for addr, t in events:
        by_member.setdefault(addr, []).append(t)
    gaps = [b - a for ts in by_member.values() for a, b in zip(ts, ts[1:])]
    low, high = 0.9 * args.interval - 0.05, 1.1 * args.interval + 0.05
    off = [g for g in gaps if g < low or g > high]
    gaps.sort()
    result = {
        "bench": "healthcheck",
        "members": args.members,
        "interval_s": args.interval,
        "measured_s": round(t1 - t0, 2),
        "control_thread_cpu_pct_of_a_core": round(100 * (c1 - c0) / (t1 - t0), 1),
        "checks_per_s": round(len(events) / (t1 - t0), 1),
        "members_seen": len(by_member),
        "gap_p50_s": round(statistics.median(gaps), 3) if gaps else None,
        "gap_p99_s": round(gaps[int(0.99 * (len(gaps) - 1))], 3) if gaps else None,
        "gap_min_s": round(gaps[0], 3) if gaps else None,
        "gap_max_s": round(gaps[-1], 3) if gaps else None,
        "gaps_off_schedule_pct": round(100 * len(off) / len(gaps), 2) if gaps else None,
    }
    print(f"{args.members} members, TCP check every {args.interval}s, {result['measured_s']}s measured")
    print(f"  control thread CPU: {result['control_thread_cpu_pct_of_a_core']}% of a core (target: at most 20%)")
    print(f"  checks seen: {result['checks_per_s']}/s for {len(by_member)} members")
    print(f"  gap between checks of a member: p50 {result['gap_p50_s']}s, p99 {result['gap_p99_s']}s, "
          f"min {result['gap_min_s']}s, max {result['gap_max_s']}s")
    print(f"  gaps outside [{low:.2f}s, {high:.2f}s] (more than 50 ms off the jittered schedule): "
          f"{result['gaps_off_schedule_pct']}%")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
