#!/usr/bin/env python3
"""Data-plane benchmark: vigil against HAProxy, NGINX stream and a direct connection, same run.

Starts its own backends on 127.0.0.1 (nginx for HTTP, an iperf3 server for bulk, and for the idle
test a holder process, this script run with --holder, that accepts connections and holds them)
and its own load balancers, then
measures, interleaved over several rounds (round 1: every target, round 2: every target, ...):

  bulk1      iperf3, 1 stream: Gbit/s, and the LB's CPU seconds per GB moved
  bulk4      iperf3, 4 streams: the same
  newconn    one request per new connection (hey -disable-keepalive): requests/s and LB CPU
             microseconds per connection; the backend nginx's accept counter proves that every
             request came on a new connection
  keepalive  requests on kept-alive connections (wrk): requests/s, LB CPU microseconds/request
  idle       N idle connections held through a freshly started instance of the LB: LB resident
             memory per connection

Targets (targets.py): direct, vigil, haproxy (its defaults), haproxy-tuned, nginx (stream) and,
on request, floor (floor.c, compiled here with cc: a bare epoll forwarder, the kernel's share of
each figure), floor-uring (floor_uring.c: the same forwarder on io_uring, linked with liburing),
floor-vigil-sockets (floor.c built with -DFLOOR_VIGIL_SOCKETS: its listeners carry vigil's
socket options), floor-sockmap (floor.c built with -DFLOOR_SOCKMAP: it accepts and connects, and a BPF sockmap
verdict program, floor_sockmap.bpf.c, moves the bytes in the kernel; needs clang and libbpf-dev),
vigil-connlog (vigil with `log_connections: true` on every listener: the connection log's cost,
against vigil in the same run; its lines go to the log file of the run) and, with --variant,
vigil-NAME (vigil from another binary).

CPU time is utime+stime from /proc/PID/stat of the LB process (all threads; for nginx the master
plus its workers), read before and after each measurement. Whole-machine CPU is the busy time of
every CPU from /proc/stat (user, nice, system, irq, softirq, steal) over the same measurement:
the client's, the backend's and the kernel's work included, so it is given for direct and the
floors too, and it means something only on a machine that nothing else keeps busy (the load
average at the start and the end of the run is printed to judge that). The CPU of client, LB and
backend (the client from getrusage, the others from /proc) leaves out what no process is charged
for, but also what other work on the machine costs: the figure to compare on a busy machine
(cpu_meter.py). It prints, per metric, the
median, the spread (min-max) and the ratios to HAProxy default, to direct and (when it ran) to
the floor; with the floor, each target's ratio to it round by round (median and middle half: a
round runs the targets back to back, so each pair shares the machine's state); then one JSON
line.

With --pin every load balancer runs on the last CPU alone and the clients and backends on the
others: the LB's CPU per request then does not move with where the scheduler puts it next to
the client, which is what comparing it with the floor's to a few percent needs. Rates against
direct mean nothing then (direct has fewer CPUs).

Everything listens on and connects to 127.0.0.1 only. Every process is started here and stopped
at the end (also on Ctrl-C or SIGTERM); temporary files go to a directory under /tmp. Every wait
is bounded. Needs root (nginx runs as root, file-descriptor limits are raised) and Debian's
haproxy, nginx, libnginx-mod-stream, iperf3, wrk and hey; run.sh installs them.

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from bench.benchlib import (HOST, Processes, emit_json, fmt, free_port, listening, loadavg, log,
                            log_findings, machine_info, on_sigterm, parse_variants, proc_children, raise_nofile, tail,
                            run_main, tool_version)
from bench.dataplane.cpu_meter import CpuMeter
from bench.dataplane.targets import MAXPIPES, TARGET_CLASSES, vigil_variant
from testing.harness.wait import wait_until

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_VIGIL = os.path.join(REPO, "build", "release", "src", "daemon", "vigil")
HOLDER_LIFETIME_S = 24 * 3600
DEFAULT_TARGETS = ["direct", "vigil", "haproxy", "haproxy-tuned", "nginx"]
# On request: they answer "how much is the kernel's?", "would io_uring cost the machine less?" and
# "what does the connection log cost?"
ALL_TARGETS = DEFAULT_TARGETS + ["floor", "floor-vigil-sockets", "floor-uring", "floor-sockmap", "vigil-connlog"]

# (key, title, unit, higher_is_better, lb_only): lb_only metrics have no value for direct.
METRICS = [
    ("bulk1_gbps", "bulk, 1 stream (iperf3)", "Gbit/s", True, False),
    ("bulk1_cpu_s_per_gb", "bulk, 1 stream: LB CPU", "CPU s/GB", False, True),
    ("bulk1_machine_cpu_s_per_gb", "bulk, 1 stream: whole-machine CPU", "CPU s/GB", False, False),
    ("bulk1_parts_cpu_s_per_gb", "bulk, 1 stream: CPU of client, LB and backend", "CPU s/GB", False, False),
    ("bulk4_gbps", "bulk, 4 streams (iperf3 -P 4)", "Gbit/s", True, False),
    ("bulk4_cpu_s_per_gb", "bulk, 4 streams: LB CPU", "CPU s/GB", False, True),
    ("bulk4_machine_cpu_s_per_gb", "bulk, 4 streams: whole-machine CPU", "CPU s/GB", False, False),
    ("bulk4_parts_cpu_s_per_gb", "bulk, 4 streams: CPU of client, LB and backend", "CPU s/GB", False, False),
    ("newconn_rps", "one request per new connection (hey -disable-keepalive)", "req/s", True, False),
    ("newconn_cpu_us_per_conn", "new connections: LB CPU", "CPU us/conn", False, True),
    ("newconn_machine_cpu_us_per_conn", "new connections: whole-machine CPU", "CPU us/conn", False, False),
    ("newconn_parts_cpu_us_per_conn", "new connections: CPU of client, LB and backend", "CPU us/conn", False, False),
    ("keepalive_rps", "keep-alive requests (wrk)", "req/s", True, False),
    ("keepalive_cpu_us_per_req", "keep-alive requests: LB CPU", "CPU us/req", False, True),
    ("keepalive_machine_cpu_us_per_req", "keep-alive requests: whole-machine CPU", "CPU us/req", False, False),
    ("keepalive_parts_cpu_us_per_req", "keep-alive requests: CPU of client, LB and backend", "CPU us/req", False, False),
    ("idle_rss_bytes_per_conn", "idle connections held: LB RSS", "bytes/conn", False, True),
]

# Lines of a process log that look like problems; iperf3 resets its data connections at the end
# of a test, which is not one.
PROBLEM = re.compile("error|warn|alert|emerg|crit|fatal|abort|sanitizer", re.I)
NOT_A_PROBLEM = re.compile("reset by peer", re.I)


# ---------------------------------------------------------------------------------------------
# /proc


def rss_bytes(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def fd_count(pids):
    n = 0
    for pid in pids:
        try:
            n += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
    return n


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------
# Backends


def holder_main(port_file):
    """The idle test's backend, run as a process of its own (``run.py --holder FILE``): accepts
    connections on 127.0.0.1 and holds them without reading or writing. Commands on stdin, one a
    line: "count" (answers how many it holds) and "reset" (closes them all, answers "ok")."""
    import selectors
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind((HOST, 0))
    lst.listen(4096)
    lst.setblocking(False)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(lst.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    held = []
    sel = selectors.DefaultSelector()
    sel.register(lst, selectors.EVENT_READ, "accept")
    sel.register(sys.stdin, selectors.EVENT_READ, "command")
    deadline = time.monotonic() + HOLDER_LIFETIME_S  # bounded even if nobody stops it
    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1.0):
            if key.data == "accept":
                for _ in range(1024):  # bounded batch per wake-up
                    try:
                        conn, _ = lst.accept()
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError:  # EMFILE and the like: the connections wait in the backlog
                        time.sleep(0.01)
                        break
                    held.append(conn)
            else:
                line = sys.stdin.readline()
                if not line:  # the parent is gone
                    return 0
                if line.strip() == "reset":
                    for c in held:
                        c.close()
                    held = []
                    print("ok", flush=True)
                else:
                    print(len(held), flush=True)
    return 0


class Holder:
    """Client side of holder_main()."""

    def __init__(self, procs, tmp):
        port_file = os.path.join(tmp, "holder.port")
        # From the repository root, where `bench` is importable, as this script itself runs.
        self.proc = procs.spawn("holder", [sys.executable, "-m", "bench.dataplane.run", "--holder", port_file],
                                pipes=True, cwd=REPO)
        if not wait_until(lambda: os.path.exists(port_file) or self.proc.poll() is not None, 10):
            raise RuntimeError("holder did not start")
        if self.proc.poll() is not None:
            raise RuntimeError(f"holder exited: {tail(self.proc.logpath)}")
        with open(port_file) as f:
            self.port = int(f.read())

    def _ask(self, cmd):
        if self.proc.poll() is not None:
            raise RuntimeError("holder exited")
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()  # it answers at once; it exits if we do
        if not line:
            raise RuntimeError("holder exited")
        return line.strip()

    def count(self):
        return int(self._ask("count"))

    def reset(self):
        self._ask("reset")


class Backends:
    def __init__(self, procs, tmp, nofile):
        self.procs = procs
        self.tmp = tmp
        self.nofile = nofile
        self.http_port = None
        self.stub_port = None
        self.bulk_port = None
        self.holder = None

    def start(self):
        self.holder = Holder(self.procs, self.tmp)
        self.http_port, self.stub_port, self.bulk_port = free_port(), free_port(), free_port()
        d = os.path.join(self.tmp, "backend-nginx")
        os.makedirs(d)
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""\
user root;
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
worker_rlimit_nofile {self.nofile};
events {{ worker_connections {self.nofile - 100}; }}
http {{
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    keepalive_requests 10000000;
    keepalive_timeout 75s;
    server {{
        listen {HOST}:{self.http_port} backlog=4096;
        location / {{ return 200 "ok\\n"; }}
    }}
    server {{
        listen {HOST}:{self.stub_port};
        location / {{ stub_status; }}
    }}
}}
""")
        self.nginx = self.procs.spawn("backend-nginx", ["nginx", "-p", d, "-e", f"{d}/error.log", "-c", conf])
        self.iperf = self.procs.spawn("backend-iperf3", ["iperf3", "-s", "-B", HOST, "-p", str(self.bulk_port)])
        for port, p in ((self.http_port, self.nginx), (self.stub_port, self.nginx), (self.bulk_port, self.iperf)):
            if not wait_until(lambda: listening(port, wildcard=True) or p.poll() is not None, 10):
                raise RuntimeError(f"backend {p.name} does not listen on {port}")
            if p.poll() is not None:
                raise RuntimeError(f"backend {p.name} exited: {tail(p.logpath)}")

    def nginx_pids(self):
        return [self.nginx.pid] + proc_children(self.nginx.pid, scan=True)

    def accepts(self):
        """nginx's stub_status accepts counter (this query's own connection included)."""
        with socket.create_connection((HOST, self.stub_port), timeout=5) as s:
            s.sendall(b"GET / HTTP/1.0\r\nHost: stub\r\n\r\n")
            data = b""
            while len(data) < 65536:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        m = re.search(rb"\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n", data)
        if not m:
            raise RuntimeError(f"cannot parse stub_status: {data[:200]!r}")
        return int(m.group(1))


# ---------------------------------------------------------------------------------------------
# Measurements. Each returns {metric: value} plus notes; it raises on a failed measurement.


# With --pin: the CPUs of the clients and the backends (everything but the last CPU); the
# load balancer gets the last one to itself. None: the scheduler places everything.
CLIENT_CPUS = None


def pin(pids, cpus):
    """Pins every thread of the processes to `cpus` (threads made later inherit it from the thread
    that makes them). A thread that is already gone is skipped; one that cannot be pinned is
    said in the run's log, as its figures are then not the pinned ones."""
    for pid in pids:
        try:
            tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in tids:
            try:
                os.sched_setaffinity(tid, cpus)
            except ProcessLookupError:
                pass
            except OSError as e:
                log(f"could not pin thread {tid} of process {pid} to CPUs {sorted(cpus)}: {e}")


def run_client(argv, timeout):
    preexec = (lambda: os.sched_setaffinity(0, CLIENT_CPUS)) if CLIENT_CPUS else None
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       preexec_fn=preexec)
    return r.returncode, r.stdout, r.stderr


def cpu_per(used, prefix, unit, amount):
    """The CpuMeter figures divided by `amount`: {PREFIX_cpu_UNIT, PREFIX_machine_cpu_UNIT,
    PREFIX_parts_cpu_UNIT}, the first only where there is an LB process."""
    return {f"{prefix}_{kind}cpu_{unit}": used[k] / amount
            for k, kind in (("lb", ""), ("machine", "machine_"), ("parts", "parts_")) if used[k] is not None}


def measure_bulk(target, backends, streams, args):
    meter = CpuMeter(target.pids(), [backends.iperf.pid])
    argv = ["iperf3", "-c", HOST, "-p", str(target.ports["bulk"]), "-t", str(args.duration),
            "-P", str(streams), "-J", "--connect-timeout", "3000"]
    rc, out, err = run_client(argv, args.duration + 30)
    used = meter.stop()
    try:
        j = json.loads(out)
    except ValueError:
        raise RuntimeError(f"iperf3 rc={rc}: {(out + err)[-400:]}")
    if "error" in j:
        raise RuntimeError(f"iperf3: {j['error']}")
    s = j["end"]["sum_received"]
    nbytes, secs = s["bytes"], s["seconds"]
    if nbytes <= 0 or secs <= 0:
        raise RuntimeError("iperf3 moved nothing")
    key = f"bulk{streams}"
    return {f"{key}_gbps": nbytes * 8 / secs / 1e9, **cpu_per(used, key, "s_per_gb", nbytes / 1e9)}, {}


def parse_hey(out):
    total = re.search(r"Total:\s+([\d.]+)\s+secs", out)
    codes = {int(c): int(n) for c, n in re.findall(r"\[(\d{3})\]\s+(\d+)\s+responses", out)}
    errors = 0
    if "Error distribution:" in out:
        errors = sum(int(n) for n in re.findall(r"^\s+\[(\d+)\]\s", out.split("Error distribution:", 1)[1], re.M))
    if not total:
        raise RuntimeError(f"cannot parse hey output: {out[-400:]}")
    return float(total.group(1)), codes, errors


def measure_newconn(target, backends, args):
    a0 = backends.accepts()
    meter = CpuMeter(target.pids(), backends.nginx_pids())
    argv = ["hey", "-z", f"{args.duration}s", "-c", str(args.concurrency), "-disable-keepalive",
            "-t", "10", f"http://{HOST}:{target.ports['http']}/"]
    rc, out, err = run_client(argv, args.duration + 60)
    used = meter.stop()
    a1 = backends.accepts()
    if rc != 0:
        raise RuntimeError(f"hey rc={rc}: {(out + err)[-400:]}")
    secs, codes, errors = parse_hey(out)
    ok = codes.get(200, 0)
    if ok == 0:
        raise RuntimeError(f"hey: no 200 answer: {out[-400:]}")
    # the two stub_status queries are accepts too: subtract the second one's own connection
    accepts = a1 - a0 - 1
    notes = {"requests": ok, "accepts": accepts, "errors": errors,
             "non_200": sum(n for c, n in codes.items() if c != 200)}
    # Each request on its own connection means the backend accepted at least as many
    # connections as it answered requests (a connection cut before its answer adds accepts).
    notes["new_connection_per_request"] = accepts >= ok
    return {"newconn_rps": ok / secs, **cpu_per(used, "newconn", "us_per_conn", ok / 1e6)}, notes


def parse_wrk(out):
    m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", out)
    if not m:
        raise RuntimeError(f"cannot parse wrk output: {out[-400:]}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(3)]
    errs = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return (int(m.group(1)), float(m.group(2)) * scale,
            sum(int(x) for x in errs.groups()) if errs else 0, int(non2xx.group(1)) if non2xx else 0)


def measure_keepalive(target, backends, args):
    a0 = backends.accepts()
    meter = CpuMeter(target.pids(), backends.nginx_pids())
    argv = ["wrk", "-t", "1", "-c", str(args.concurrency), "-d", f"{args.duration}s",
            f"http://{HOST}:{target.ports['http']}/"]
    rc, out, err = run_client(argv, args.duration + 60)
    used = meter.stop()
    a1 = backends.accepts()
    if rc != 0:
        raise RuntimeError(f"wrk rc={rc}: {(out + err)[-400:]}")
    requests, secs, sock_errors, non2xx = parse_wrk(out)
    if requests == 0:
        raise RuntimeError(f"wrk: no request completed: {out[-400:]}")
    notes = {"requests": requests, "accepts": a1 - a0 - 1, "socket_errors": sock_errors,
             "non_2xx": non2xx}
    return {"keepalive_rps": (requests - non2xx) / secs,
            **cpu_per(used, "keepalive", "us_per_req", requests / 1e6)}, notes


def measure_idle(target, backends, args, rnd):
    """Starts a fresh instance of the LB (a process that has served traffic keeps freed memory
    in its allocator or pools, so a second measurement in it would read close to zero), opens N
    connections through it to the holder, and reports (RSS with N - RSS with 0) / N."""
    fresh = type(target)(target.procs, backends, target.tmp, target.args, instance=f"-idle{rnd}")
    try:
        fresh.start()
    except Exception as e:
        raise RuntimeError(f"fresh instance for the idle test did not start: {e}")
    try:
        res, notes = idle_connections(fresh, backends, args)
        if not fresh.alive():
            notes["exited"] = f"{fresh.proc.returncode}: {tail(fresh.proc.logpath, 5)}"
        return res, notes
    finally:
        target.procs.stop(fresh.proc)  # which also takes it off the list
        fresh.findings = log_findings(fresh.proc.logpath, PROBLEM, NOT_A_PROBLEM)
        if getattr(fresh, "errlog", None):
            fresh.findings += log_findings(fresh.errlog, PROBLEM, NOT_A_PROBLEM)
        if fresh.findings:
            target.idle_findings = getattr(target, "idle_findings", []) + fresh.findings


def idle_connections(target, backends, args):
    holder = backends.holder
    holder.reset()
    pids = target.pids()
    time.sleep(0.3)
    rss0, fds0 = rss_bytes(pids), fd_count(pids)
    n = args.idle
    socks = []
    notes = {}
    try:
        deadline = time.monotonic() + max(30.0, n / 300)
        batch = 500
        while len(socks) < n and time.monotonic() < deadline:
            for _ in range(min(batch, n - len(socks))):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                socks.append(s)
                s.connect_ex((HOST, target.ports["idle"]))  # EINPROGRESS; completes in the kernel
            # keep the accept queues short: wait (bounded) for the LB to catch up
            wait_until(lambda: holder.count() >= len(socks) - batch // 2, 5, 0.01)
            if not target.alive():
                raise RuntimeError("LB exited while connections were opened")
        if not wait_until(lambda: holder.count() >= n, max(5.0, deadline - time.monotonic()), 0.05):
            notes["held"] = holder.count()
            raise RuntimeError(f"only {holder.count()} of {n} idle connections reached the backend")
        time.sleep(0.5)  # let the LB finish its bookkeeping
        rss1 = rss_bytes(pids)
        held = holder.count()
        notes.update({"held": held, "rss_before": rss0, "rss_with_conns": rss1})
        per_conn = (rss1 - rss0) / held
    finally:
        for s in socks:
            s.close()
        holder.reset()
    # the LB should release both sides; wait (bounded) until its descriptors are back
    released = wait_until(lambda: fd_count(pids) <= fds0 + 4, 20, 0.1)
    notes["fds_released"] = released
    if not released:
        notes["fds_left"] = fd_count(pids) - fds0
    return {"idle_rss_bytes_per_conn": per_conn}, notes


# ---------------------------------------------------------------------------------------------
# Report


def summarise(samples):
    if not samples:
        return None
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "n": len(samples), "samples": samples}


def ratio(s, ref):
    return s["median"] / ref["median"] if ref and ref["median"] else None


def middle_half(values):
    """(median, first quartile, third quartile) of values."""
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return statistics.median(values), q[0], q[2]


def round_ratios(samples, targets, tests):
    """Each target's ratio to the floor round by round, for the metrics both measured in every
    round: a round runs the targets back to back, so a pair of its figures shares the machine's
    state, and the median of these ratios moves less than the ratio of the medians."""
    out = {}
    floor = samples.get("floor", {})
    for t in targets:
        if t == "floor":
            continue
        for key, _title, _unit, _higher, _lb_only in METRICS:
            a, b = samples.get(t, {}).get(key), floor.get(key)
            if key.split("_", 1)[0] in tests and a and b and len(a) == len(b):
                rs = [x / y for x, y in zip(a, b) if y]
                if rs:
                    med, q1, q3 = middle_half(rs)
                    out.setdefault(t, {})[key] = {"median": med, "q1": q1, "q3": q3, "n": len(rs),
                                                  "below": sum(r < 1 for r in rs)}
    return out


def print_round_ratios(ratios):
    if not ratios:
        return
    print("\nround by round, against the floor: median ratio (middle half), rounds below the floor",
          file=sys.stdout)
    for t, by_key in ratios.items():
        for key, r in by_key.items():
            print(f"  {t:<14} {key:<34} {r['median']:.3f} ({r['q1']:.3f} - {r['q3']:.3f}), "
                  f"{r['below']} of {r['n']} below", file=sys.stdout)


def print_tables(targets, summary, missing, tests):
    """One table per metric: median, spread and the ratios to HAProxy, direct and (when it ran)
    the epoll floor, each measured in the same run."""
    out = sys.stdout
    refs = ["haproxy", "direct"] + (["floor"] if "floor" in targets else [])
    for key, title, unit, higher, lb_only in METRICS:
        if key.split("_", 1)[0] not in tests:
            continue
        rows = []
        for t in targets:
            if lb_only and t == "direct":
                continue
            s = summary.get(t, {}).get(key)
            if s is None:
                why = missing.get(t) or "no sample"
                rows.append((t, "missing", "", ["" for _ in refs], why.splitlines()[0][:60]))
                continue
            rs = [ratio(s, summary.get(r, {}).get(key)) for r in refs]
            rows.append((t, fmt(s["median"]), f"{fmt(s['min'])} - {fmt(s['max'])}",
                         [f"{r:.2f}" if r is not None else "-" for r in rs], ""))
        better = "higher is better" if higher else "lower is better"
        print(f"\n{title}  [{unit}, {better}]", file=out)
        print(f"  {'target':<14} {'median':>10}  {'spread (min - max)':<22}"
              + "".join(f" {'/' + r:>8}" for r in refs), file=out)
        for name, med, spread, rs, why in rows:
            print((f"  {name:<14} {med:>10}  {spread:<22}" + "".join(f" {r:>8}" for r in rs)
                   + f"  {why}").rstrip(), file=out)
    out.flush()


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--duration", type=int, default=3, help="seconds per iperf3/hey/wrk run (default 3)")
    p.add_argument("--idle", type=int, default=10000, help="idle connections held (default 10000; 0 skips)")
    p.add_argument("--targets", default=",".join(DEFAULT_TARGETS),
                   help=f"comma-separated, from {','.join(ALL_TARGETS)} (default all but the floors and vigil-connlog)")
    p.add_argument("--workers", type=int, default=1,
                   help="vigil workers = haproxy nbthread = nginx worker_processes (default 1)")
    p.add_argument("--concurrency", type=int, default=32, help="connections of hey and wrk (default 32)")
    p.add_argument("--tests", default="bulk1,bulk4,newconn,keepalive,idle",
                   help="comma-separated subset of bulk1,bulk4,newconn,keepalive,idle")
    p.add_argument("--vigil", default=DEFAULT_VIGIL, help=f"vigil binary (default {DEFAULT_VIGIL})")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=PATH",
                   help="also measure target vigil-NAME, vigil from PATH (repeatable): a change against the build before it")
    p.add_argument("--pin", action="store_true",
                   help="pin each load balancer to the last CPU and the clients and backends to the others, "
                        "so that the LB's CPU per request is not moved by where the scheduler puts it; "
                        "rates against direct mean nothing then (direct gets fewer CPUs)")
    p.add_argument("--json-out", help="also write the JSON result to this file")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory (configs, logs)")
    a = p.parse_args(argv)
    a.targets = [t.strip() for t in a.targets.split(",") if t.strip()]
    for target, path in parse_variants(p, a.variant).items():
        TARGET_CLASSES[target] = vigil_variant(target.removeprefix("vigil-"), path)
        a.targets.append(target)
    for t in a.targets:
        if t not in TARGET_CLASSES:
            p.error(f"unknown target {t!r}")
    a.floor_binaries = {}  # floor name -> compiled binary
    a.tests = [t.strip() for t in a.tests.split(",") if t.strip()]
    for t in a.tests:
        if t not in ("bulk1", "bulk4", "newconn", "keepalive", "idle"):
            p.error(f"unknown test {t!r}")
    if a.idle <= 0 and "idle" in a.tests:
        a.tests.remove("idle")
    if not (1 <= a.rounds <= 50 and 1 <= a.duration <= 600 and 0 <= a.idle <= 200000
            and 1 <= a.workers <= 64 and 1 <= a.concurrency <= 1000):
        p.error("a value is out of range (rounds 1-50, duration 1-600, idle 0-200000, workers 1-64, "
                "concurrency 1-1000)")
    return a


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        print("run.py: needs root (nginx runs as root; descriptor limits are raised)", file=sys.stderr)
        return 2
    need = ["haproxy", "nginx", "iperf3", "wrk", "hey"]
    lacking = [t for t in need if shutil.which(t) is None]
    if lacking:
        print(f"run.py: missing {' '.join(lacking)}; run bench/dataplane/run.sh, which installs them",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, on_sigterm)
    global CLIENT_CPUS
    lb_cpus = None
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            print("run.py: --pin needs at least two CPUs", file=sys.stderr)
            return 2
        lb_cpus, CLIENT_CPUS = {cpus[-1]}, set(cpus[:-1])

    # An LB holds two descriptors per idle connection; this process and the holder one each.
    # Raising the hard limit needs CAP_SYS_RESOURCE; without it the hard limit caps the idle test.
    args.nofile = raise_nofile(max(65536, 2 * args.idle + 4096))
    fit = (args.nofile - 300 - 2 * MAXPIPES) // 2
    if args.idle > fit:
        log(f"descriptor limit {args.nofile} (cannot be raised here): {fit} idle connections instead of {args.idle}")
        args.idle = fit

    tmp = tempfile.mkdtemp(prefix="vigil-bench-dataplane-", dir="/tmp")
    procs = Processes(tmp, args.nofile, grace=5.0)
    started = time.monotonic()
    load_start = loadavg()
    log(f"load average {load_start} at the start")
    if load_start is not None and load_start > 0.5:
        log(f"load average {load_start} before the start: other work on this machine adds noise")
    missing = {}
    samples = {t: {} for t in args.targets}
    notes = {t: [] for t in args.targets}
    targets = {}
    backends = Backends(procs, tmp, args.nofile)
    try:
        backends.start()
        log(f"backends: nginx http {backends.http_port}, iperf3 {backends.bulk_port}, holder {backends.holder.port}")
        if lb_cpus:
            pin(backends.nginx_pids() + [backends.iperf.pid, backends.holder.proc.pid], CLIENT_CPUS)
            log(f"pinned: load balancers to CPU {sorted(lb_cpus)}, clients and backends to {sorted(CLIENT_CPUS)}")
        for name in args.targets:
            t = TARGET_CLASSES[name](procs, backends, tmp, args)
            try:
                t.start()
                targets[name] = t
                if lb_cpus:
                    pin(t.pids(), lb_cpus)
                log(f"{name}: ports {t.ports}" + (f", pids {t.pids()}" if t.pids() else ""))
            except Exception as e:  # a target that cannot start is reported, not fatal
                missing[name] = f"did not start: {e}"
                log(f"{name}: MISSING: {e}")
        tests = {
            "bulk1": lambda t: measure_bulk(t, backends, 1, args),
            "bulk4": lambda t: measure_bulk(t, backends, 4, args),
            "newconn": lambda t: measure_newconn(t, backends, args),
            "keepalive": lambda t: measure_keepalive(t, backends, args),
            "idle": lambda t: measure_idle(t, backends, args, rnd),
        }
        for rnd in range(1, args.rounds + 1):
            for name in args.targets:
                t = targets.get(name)
                if t is None or t.dead:
                    continue
                for test in args.tests:
                    if test == "idle" and name == "direct":
                        continue  # no LB: nothing to measure
                    try:
                        res, nt = tests[test](t)
                    except Exception as e:
                        res, nt = {}, {"error": str(e)[:500]}
                        log(f"round {rnd} {name} {test}: FAILED: {e}")
                    for k, v in res.items():
                        samples[name].setdefault(k, []).append(v)
                    if nt:
                        notes[name].append({"round": rnd, "test": test, **nt})
                    if res:
                        log(f"round {rnd} {name} {test}: " + ", ".join(f"{k}={fmt(v)}" for k, v in res.items())
                            + (f"  {nt}" if nt else ""))
                    if not t.alive():
                        t.dead = f"exited with {t.proc.returncode} during {test} in round {rnd}:\n{tail(t.proc.logpath)}"
                        missing[name] = t.dead
                        log(f"{name}: DIED: {t.dead}")
                        break
                    time.sleep(0.3)
    finally:
        findings = {}
        for t in targets.values():
            hits = getattr(t, "idle_findings", [])
            if hits:
                findings[t.name + " (idle-test instances)"] = {"count": len(hits), "first": hits[:5]}
        for p in procs.procs:
            hits = log_findings(p.logpath, PROBLEM, NOT_A_PROBLEM)
            if p.name == "lb-nginx":
                hits += log_findings(os.path.join(tmp, "lb-nginx", "error.log"), PROBLEM, NOT_A_PROBLEM)
            if hits:
                findings[p.name] = {"count": len(hits), "first": hits[:5]}
        procs.stop_all()
        if args.keep_tmp:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    summary = {t: {k: summarise(v) for k, v in samples[t].items()} for t in args.targets}
    machine = machine_info(memory=True)
    machine["loadavg_start"], machine["loadavg_end"] = load_start, loadavg()
    versions = {
        "haproxy": tool_version(["haproxy", "-v"], r"version (\S+)"),
        "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)"),
        "iperf3": tool_version(["iperf3", "--version"], r"iperf (\S+)"),
        "wrk": tool_version(["wrk", "--version"], r"wrk (\S+)"),
        "vigil": tool_version([args.vigil, "version"], r"(\d+\.\d+\S*)") if "vigil" in args.targets else None,
    }
    print(f"\nmachine: {machine['nproc']} CPUs ({machine['cpu']}), kernel {machine['kernel']}; "
          f"rounds {args.rounds}, {args.duration} s per run, {args.concurrency} client connections, "
          f"{args.idle} idle connections, workers {args.workers}; "
          f"{time.monotonic() - started:.0f} s; load average {machine['loadavg_start']} at the start, "
          f"{machine['loadavg_end']} at the end (this run included)")
    print("whole-machine CPU counts every CPU's busy time (clients, backends, kernel included): it means "
          "something only on an otherwise idle machine")
    features = {name: t.features for name, t in targets.items() if getattr(t, "features", None)}
    for name, f in features.items():
        print(f"{name}: {f}")
    for name in args.targets:
        if name in missing:
            print(f"MISSING {name}: {missing[name].splitlines()[0]}")
    print_tables(args.targets, summary, missing, args.tests)
    by_round = round_ratios(samples, args.targets, args.tests)
    print_round_ratios(by_round)
    unverified = [(t, n["round"]) for t in args.targets for n in notes[t]
                  if n.get("test") == "newconn" and n.get("new_connection_per_request") is False]
    print("\nnew connection per request (backend accepts >= requests): "
          + ("verified in every run" if not unverified else f"NOT verified for {unverified}"))
    problems = [(t, n) for t in args.targets for n in notes[t]
                if n.get("error") or n.get("errors") or n.get("socket_errors") or n.get("non_200")
                or n.get("non_2xx") or n.get("fds_released") is False]
    for t, n in problems:
        print(f"note: {t}: {n}")
    for name, f in findings.items():
        print(f"log {name}: {f['count']} line(s) with error/warn, first: {f['first'][0][:200]}")
    result = {
        "bench": "dataplane",
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine,
        "versions": versions,
        "params": {"rounds": args.rounds, "duration_s": args.duration, "idle": args.idle,
                   "workers": args.workers, "concurrency": args.concurrency, "tests": args.tests,
                   "pinned": bool(args.pin)},
        "targets": args.targets,
        "missing": {k: v.splitlines()[0] for k, v in missing.items()},
        "results": summary,
        "ratios": {t: {k: {f"vs_{r}": ratio(s, summary.get(r, {}).get(k)) for r in ("haproxy", "direct", "floor")}
                       for k, s in summary[t].items() if s}
                   for t in args.targets},
        "round_ratios_vs_floor": by_round,
        "features": features,
        "notes": notes,
        "log_findings": findings,
    }
    emit_json(result, args.json_out)
    return 0 if not missing else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--holder":
        sys.exit(holder_main(sys.argv[2]))
    run_main(main, sys.argv[1:])
