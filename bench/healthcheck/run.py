#!/usr/bin/env python3
"""Health-check benchmarks: what checks cost vigil, beside HAProxy and a syscall floor
(tcp-scale), and whether HTTPS checks slow the data plane (https-load).

  tcp-scale (default)  N members (default 10,000; 100 pools of 100, addresses 127.0.X.Y) with a
             TCP check every second. A sink (sink.c, compiled here with cc) listens on one port
             of every member address, accepts every connection, and notes for every check which
             member it was for and when its SYN arrived (a packet socket on lo with a BPF filter;
             without CAP_NET_RAW, when it was accepted). SYNs, because HAProxy never completes a
             check's handshake: it turns TCP_QUICKACK off and resets once the SYN-ACK is in.
             Targets, one after the other, interleaved over --rounds:
               vigil        its whole process, and its control thread (/proc/PID/task/PID/stat)
               haproxy      HAProxy with the same servers (100 backends of 100, `check inter
                            1s`, nbthread 1); its whole process
               floor        floor.c: socket, nonblocking connect, epoll until writable,
                            SO_ERROR, close with a reset, and nothing else, at the same rate:
                            how much of a check is the kernel's (on loopback the listener's half
                            of the handshake runs in the connecting thread's softirq and is
                            charged to the checker)
               floor-noack  the same with HAProxy's TCP_QUICKACK trick (no final ACK, so the
                            listener never creates a connection)
             Per target: CPU % of a core, CPU us per check, checks/s and handshakes completed/s
             seen by the sink, the gaps between two checks of a member (p50/p99/max), the share
             of gaps more than 50 ms outside the jittered schedule ([0.9, 1.1] x interval), the
             busiest 100 ms over the mean rate (how bunched the checks are), the sink's CPU;
             then vigil/haproxy, vigil/floor and vigil/floor-noack.

  https-load  vigil with one listener in front of an nginx HTTP backend (keep-alive requests,
             wrk -t1 -c32) and one in front of an iperf3 server (one bulk stream), with 5 more
             pools of 100 members each (500 addresses 127.0.X.Y, each an nginx TLS listener
             answering 200 "ok" on /readyz with a self-signed certificate made by openssl). Two
             variants, identical but for those pools' monitor: "without" (health_monitor: none)
             and "with" (HTTPS GET /readyz every 5 s, tls verify off). Each run starts a fresh
             vigil, waits --warmup seconds, then measures; the variants alternate over --rounds
             (ABBA order). HAProxy (nbthread 1, option httpchk over check-ssl) is measured the
             same way beside it (--lbs). Reports per load balancer the median req/s, CPU us per
             request (whole process and data-plane thread), wrk's p99 latency, Gbit/s and CPU
             s/GB for the bulk stream, the ratio with/without, and the per-round ratios, so a
             reader sees whether a difference is outside the noise.

Loopback only (127.0.0.0/8; nothing listens on another address). Every process is started here
and stopped at the end (also on Ctrl-C or SIGTERM), each by its own process group; every wait is
bounded; temporary files go to a directory under /tmp. Needs root for https-load (nginx runs as
root) and, for tcp-scale, cc and CAP_NET_RAW (the SYN capture); run.sh installs what is missing.
Python 3 standard library only. Benchmarks print numbers and never gate CI.

    bench/healthcheck/run.py [tcp-scale] [--members 10000] [--duration 30] [--rounds 1]
                             [--targets vigil,haproxy,floor,floor-noack]
    bench/healthcheck/run.py https-load [--members 500] [--rounds 3] [--duration 60]
                             [--tests keepalive,bulk1] [--tls-key ec256|rsa2048]
                             [--lbs vigil,haproxy]
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.benchlib import (CLK_TCK, HOST, Processes, compile_c, emit_json, finish, fmt, free_port, listening, loadavg, log,
                            log_findings, machine_info, on_sigterm, parse_variants, proc_children, process_cpu,
                            raise_nofile,
                            run_main, stat_ticks, tail, tool_version)
from testing.harness.wait import wait_until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_VIGIL = ROOT / "build/release/src/daemon/vigil"
SCENARIOS = ("tcp-scale", "https-load")
TCP_TARGETS = ["vigil", "haproxy", "floor", "floor-noack"]
PER_POOL = 100
MAX_MEMBERS = 250 * 254  # 127.0.1.1 ... 127.0.254.250


def member_address(i):
    """127.0.1.1, 127.0.1.2, ...: .0 and .255 skipped, so every address is an ordinary host
    address (sink.c and floor.c compute the same)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


# ---------------------------------------------------------------------------------------------
# Helpers


def thread_cpu(pid):
    """{tid: CPU seconds} of every thread of pid."""
    out = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                out[int(tid)] = stat_ticks(f"/proc/{pid}/task/{tid}/stat") / CLK_TCK
            except OSError:
                pass
    except OSError:
        pass
    return out


# Lines of a process log that look like problems; vigil's warning about the tcp-scale pools no
# listener uses is expected.
PROBLEM = re.compile(r"\b(warn|warning|error|alert|emerg|crit|fatal|abort|sanitizer)", re.I)
UNUSED_POOL = re.compile(re.escape("is not used by any listener"))


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * (len(sorted_values) - 1) + 0.5))]


def check_vigil_binary(path):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise RuntimeError(f"no vigil binary at {path} (cmake --preset release && "
                           "cmake --build --preset release --target vigil, or pass --vigil)")


def start_vigil(procs, binary, name, config, tmp):
    ready = os.path.join(tmp, f"{name}.ready.json")
    if os.path.exists(ready):
        os.remove(ready)
    p = procs.spawn(name, [binary, "serve", "-c", config, "--ready-file", ready, "--log-level", "warn"])
    if not wait_until(lambda: os.path.exists(ready) or p.poll() is not None, 60):
        procs.stop(p)
        raise RuntimeError(f"vigil wrote no ready file within 60 s:\n{tail(p.logpath)}")
    if p.poll() is not None:
        procs.stop(p)
        raise RuntimeError(f"vigil exited with {p.returncode}:\n{tail(p.logpath)}")
    with open(ready) as f:
        p.ready = json.load(f)
    return p


# ---------------------------------------------------------------------------------------------
# tcp-scale


class Sink:
    """sink.c, one process for the whole run; records() reads what it noted so far. `syn`: it
    sees the SYNs (a packet socket on lo), not only the accepted connections."""

    def __init__(self, procs, tmp, members, lifetime):
        binary = compile_c(HERE / "sink.c", tmp)
        self.records_path = os.path.join(tmp, "sink.records")
        port_file = os.path.join(tmp, "sink.port")
        self.proc = procs.spawn("sink", [binary, str(members), self.records_path, port_file, str(lifetime)])
        if not wait_until(lambda: os.path.exists(port_file) or self.proc.poll() is not None, 60):
            raise RuntimeError("the sink did not start within 60 s")
        if self.proc.poll() is not None:
            raise RuntimeError(f"the sink exited: {tail(self.proc.logpath)}")
        with open(port_file) as f:
            port, syn = f.read().split()
        self.port, self.syn = int(port), syn == "1"
        self.offset = 0

    def records(self):
        """New (monotonic ns, member, kind) records since the last call; kind 1: a SYN seen,
        0: a connection accepted."""
        with open(self.records_path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        usable = len(data) - len(data) % 16
        self.offset += usable
        return list(struct.iter_unpack("<QII", data[:usable]))


def vigil_tcp_config(path, members, interval, port, tmp):
    pools = []
    for p in range(0, members, PER_POOL):
        lines = "\n".join(f"      - {{name: m{i}, address: {member_address(i)}, port: {port}}}"
                          for i in range(p, min(members, p + PER_POOL)))
        pools.append(f"""  - name: pool{p // PER_POOL}
    health_monitor: {{type: TCP, interval: {interval}s, fast_interval: {interval}s, timeout: 1s}}
    members:
{lines}""")
    Path(path).write_text(f"""admin: {{listen: "{HOST}:0", state_file: {tmp}/vigil-state.json}}
workers: 1
listeners:
  - {{name: l, bind: "{HOST}:0", pool: pool0, max_connections: 1000}}
pools:
""" + "\n".join(pools) + "\n")


def haproxy_tcp_config(path, members, interval, port):
    # HAProxy refuses to start without a listener: one on 127.0.0.1, like vigil's, never used.
    text = [
        "global",
        "    nbthread 1",
        "    maxconn 1000",
        "",
        "defaults",
        "    mode tcp",
        "    timeout connect 1s",
        "    timeout check 1s",
        "    timeout client 10s",
        "    timeout server 10s",
        "",
        "frontend l",
        f"    bind {HOST}:{free_port()}",
        "    default_backend pool0",
    ]
    for p in range(0, members, PER_POOL):
        text += ["", f"backend pool{p // PER_POOL}"]
        text += [f"    server m{i} {member_address(i)}:{port} check inter {interval}s"
                 for i in range(p, min(members, p + PER_POOL))]
    Path(path).write_text("\n".join(text) + "\n")


class TcpTarget:
    def __init__(self, name, procs, tmp, args, sink, rnd):
        self.name, self.procs, self.tmp, self.args, self.sink = name, procs, tmp, args, sink
        self.label = f"{name}-{rnd}"  # the log of this round's instance
        self.proc = None

    def start(self):
        a = self.args
        if self.name == "vigil" or self.name in a.variants:
            binary = a.variants.get(self.name, a.vigil)
            check_vigil_binary(binary)
            conf = os.path.join(self.tmp, "vigil-tcp.yaml")
            vigil_tcp_config(conf, a.members, a.interval, self.sink.port, self.tmp)
            self.proc = start_vigil(self.procs, binary, self.label, conf, self.tmp)
        elif self.name == "haproxy":
            if shutil.which("haproxy") is None:
                raise RuntimeError("haproxy is not installed (run.sh installs it)")
            conf = os.path.join(self.tmp, "haproxy-tcp.cfg")
            haproxy_tcp_config(conf, a.members, a.interval, self.sink.port)
            # -db: foreground, one process (no master-worker): the pid's CPU time is the checker's.
            self.proc = self.procs.spawn(self.label, ["haproxy", "-db", "-f", conf])
            time.sleep(1.0)
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited with {self.proc.returncode}:\n{tail(self.proc.logpath)}")
        else:  # floor, floor-noack
            binary = getattr(self.args, "floor_binary", None) or compile_c(HERE / "floor.c", self.tmp)
            self.args.floor_binary = binary
            lifetime = a.warmup + a.duration + 120
            self.proc = self.procs.spawn(self.label, [binary, str(a.members), str(self.sink.port),
                                                    str(a.interval * 1000), str(lifetime)]
                                         + (["noack"] if self.name == "floor-noack" else []))
            time.sleep(0.2)
            if self.proc.poll() is not None:
                raise RuntimeError(f"floor exited with {self.proc.returncode}:\n{tail(self.proc.logpath)}")

    def cpu(self):
        """(whole process, checking thread) CPU seconds; the checking thread is vigil's control
        thread (its main thread), the only thread of the others."""
        pid = self.proc.pid
        whole = process_cpu([pid])
        return whole, stat_ticks(f"/proc/{pid}/task/{pid}/stat") / CLK_TCK

    def stop(self):
        if self.proc is not None:
            self.procs.stop(self.proc)


def gap_stats(records, interval_s, window_s):
    """Per member, the gaps between consecutive checks seen in the window; records are
    (monotonic ns, member)."""
    by_member = {}
    for ns, m in records:
        by_member.setdefault(m, []).append(ns)
    gaps = []
    for ts in by_member.values():
        ts.sort()
        gaps += [(b - a) / 1e9 for a, b in zip(ts, ts[1:])]
    gaps.sort()
    low, high = 0.9 * interval_s - 0.05, 1.1 * interval_s + 0.05
    off = sum(1 for g in gaps if g < low or g > high)
    # bunching: checks per 100 ms bucket, the busiest bucket over the mean
    peak = None
    if records:
        t0 = min(ns for ns, _ in records)
        buckets = {}
        for ns, _ in records:
            k = (ns - t0) // 100_000_000
            buckets[k] = buckets.get(k, 0) + 1
        nb = max(1, int(window_s * 10))
        peak = max(buckets.values()) / (len(records) / nb)
    return {
        "members_seen": len(by_member),
        "gap_p50_s": statistics.median(gaps) if gaps else None,
        "gap_p99_s": percentile(gaps, 0.99),
        "gap_min_s": gaps[0] if gaps else None,
        "gap_max_s": gaps[-1] if gaps else None,
        "off_schedule_pct": 100 * off / len(gaps) if gaps else None,
        "peak_to_mean_100ms": peak,
    }


def measure_tcp(target, sink, args):
    try:
        target.start()
        time.sleep(args.warmup)
        if target.proc.poll() is not None:
            raise RuntimeError(f"exited during the warm-up:\n{tail(target.proc.logpath)}")
        sink.records()  # drop what came before the window
        s0 = process_cpu([sink.proc.pid])
        t0, (c0, k0) = time.monotonic_ns(), target.cpu()
        time.sleep(args.duration)
        t1, (c1, k1) = time.monotonic_ns(), target.cpu()
        s1 = process_cpu([sink.proc.pid])
        if target.proc.poll() is not None:
            raise RuntimeError(f"exited during the measurement:\n{tail(target.proc.logpath)}")
    finally:
        target.stop()
    time.sleep(0.3)  # the sink flushes every 100 ms
    if sink.proc.poll() is not None:
        raise RuntimeError(f"the sink exited: {tail(sink.proc.logpath)}")
    window = [(ns, m, kind) for ns, m, kind in sink.records() if t0 <= ns < t1]
    accepted = sum(1 for _, _, kind in window if kind == 0)
    # a check is its SYN when the sink sees SYNs (HAProxy's checks are never accepted)
    recs = [(ns, m) for ns, m, kind in window if kind == (1 if sink.syn else 0)]
    secs = (t1 - t0) / 1e9
    res = {
        "cpu_pct": 100 * (c1 - c0) / secs,
        "thread_cpu_pct": 100 * (k1 - k0) / secs,
        "checks_per_s": len(recs) / secs,
        "accepted_per_s": accepted / secs,
        "cpu_us_per_check": (c1 - c0) / len(recs) * 1e6 if recs else None,
        "sink_cpu_pct": 100 * (s1 - s0) / secs,
        "measured_s": secs,
    }
    res.update(gap_stats(recs, args.interval, secs))
    return res


TCP_COLUMNS = [  # key, header, digits
    ("cpu_pct", "CPU %", 1),
    ("thread_cpu_pct", "thread %", 1),
    ("cpu_us_per_check", "us/check", 1),
    ("checks_per_s", "checks/s", 0),
    ("accepted_per_s", "accepts/s", 0),
    ("members_seen", "members", 0),
    ("gap_p50_s", "gap p50", 3),
    ("gap_p99_s", "gap p99", 3),
    ("gap_max_s", "gap max", 3),
    ("off_schedule_pct", "off %", 2),
    ("peak_to_mean_100ms", "peak/mean", 2),
    ("sink_cpu_pct", "sink %", 1),
]


def run_tcp_scale(args, tmp, procs):
    lifetime = len(args.targets) * args.rounds * (args.warmup + args.duration + 90) + 120
    sink = Sink(procs, tmp, args.members, lifetime)
    log(f"sink: {args.members} listeners on 127.0.X.Y:{sink.port}, "
        + ("SYNs seen (packet socket on lo)" if sink.syn else
           "no packet socket (needs CAP_NET_RAW): checks are seen when accepted, HAProxy's not at all"))
    samples = {t: [] for t in args.targets}
    missing = {}
    if not sink.syn:
        for name in ("haproxy", "floor-noack"):
            if name in args.targets:
                missing[name] = ("its checks never complete the handshake, and without CAP_NET_RAW the sink "
                                 "cannot see their SYNs")
    findings = {}
    for rnd in range(1, args.rounds + 1):
        for name in args.targets:
            if name in missing:
                continue
            target = TcpTarget(name, procs, tmp, args, sink, rnd)
            log(f"round {rnd} {name}: start, {args.warmup:g} s warm-up, {args.duration:g} s measured")
            try:
                res = measure_tcp(target, sink, args)
            except Exception as e:
                msg = str(e)
                if target.proc is None or rnd == 1:
                    missing[name] = msg
                log(f"round {rnd} {name}: FAILED: {msg}")
                continue
            finally:
                if target.proc is not None:
                    hits = log_findings(target.proc.logpath, PROBLEM, UNUSED_POOL if name.startswith("vigil") else None)
                    if hits:
                        f = findings.setdefault(name, {"count": 0, "first": []})
                        f["count"] += len(hits)
                        f["first"] = (f["first"] + hits)[:5]
                    if name.startswith("floor"):
                        target.counters = tail(target.proc.logpath, 1).strip()
                        log(f"  {target.counters}")
            samples[name].append(res)
            log(f"round {rnd} {name}: CPU {res['cpu_pct']:.1f}% ({res['cpu_us_per_check'] or 0:.1f} us/check), "
                f"{res['checks_per_s']:.0f} checks/s, gaps p50 {fmt(res['gap_p50_s'], 3)} "
                f"p99 {fmt(res['gap_p99_s'], 3)} max {fmt(res['gap_max_s'], 3)} s, "
                f"{fmt(res['off_schedule_pct'], 2)}% off schedule")
            time.sleep(1.0)
    procs.stop(sink.proc)
    sink_counters = tail(sink.proc.logpath, 1).strip()

    summary = {}
    for name, runs in samples.items():
        if not runs:
            continue
        s = {}
        for key, _, _ in TCP_COLUMNS:
            vals = [r[key] for r in runs if r.get(key) is not None]
            if vals:
                s[key] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
        summary[name] = s

    def ratio(a, b, key):
        x, y = summary.get(a, {}).get(key), summary.get(b, {}).get(key)
        return x["median"] / y["median"] if x and y and y["median"] else None

    ratios = {}
    for mine in ["vigil", *args.variants]:
        for other in ("haproxy", "floor", "floor-noack"):
            if mine in summary and other in summary:
                ratios[f"{mine}/{other}"] = {"cpu_pct": ratio(mine, other, "cpu_pct"),
                                             "cpu_us_per_check": ratio(mine, other, "cpu_us_per_check")}

    low, high = 0.9 * args.interval - 0.05, 1.1 * args.interval + 0.05
    print(f"\ntcp-scale: {args.members} members, TCP check every {args.interval} s, "
          f"{args.duration:g} s measured per target after {args.warmup:g} s, {args.rounds} round(s)"
          + (" (medians; min - max below)" if args.rounds > 1 else ""))
    print("  CPU %: whole process, % of one core; thread %: the checking thread (vigil: the control "
          "thread; target: at most 20 %)")
    print(f"  checks/s: {'SYNs' if sink.syn else 'connections'} seen by the sink; accepts/s: handshakes "
          "completed (HAProxy and floor-noack hold the final ACK back and reset: none)")
    print(f"  off %: gaps outside [{low:.2f}, {high:.2f}] s (more than 50 ms off the jittered schedule; "
          "target 0); peak/mean: busiest 100 ms over the mean rate")
    head = f"  {'target':<11}" + "".join(f" {h:>9}" for _, h, _ in TCP_COLUMNS)
    print(head)
    for name in args.targets:
        if name not in summary:
            print(f"  {name:<11} missing: {missing.get(name, 'no sample').splitlines()[0][:100]}")
            continue
        row = f"  {name:<11}"
        for key, _, d in TCP_COLUMNS:
            v = summary[name].get(key)
            row += f" {fmt(v['median'], d) if v else '-':>9}"
        print(row)
        if args.rounds > 1:
            row = f"  {'  range':<11}"
            for key, _, d in TCP_COLUMNS:
                v = summary[name].get(key)
                row += f" {(fmt(v['min'], d) + '-' + fmt(v['max'], d)) if v else '-':>9}"
            print(row)
    for k, r in ratios.items():
        print(f"  {k}: CPU {fmt(r['cpu_pct'], 2)}x, CPU per check {fmt(r['cpu_us_per_check'], 2)}x")
    if sink_counters:
        print(f"  {sink_counters}")
    for name, f in findings.items():
        print(f"  log {name}: {f['count']} line(s) with warn/error, first: {f['first'][0][:200]}")
    return {"scenario": "tcp-scale",
            "params": {"members": args.members, "interval_s": args.interval, "duration_s": args.duration,
                       "warmup_s": args.warmup, "rounds": args.rounds, "targets": args.targets},
            "syn_capture": sink.syn, "results": summary, "samples": samples, "ratios": ratios,
            "missing": {k: v.splitlines()[0] for k, v in missing.items()},
            "log_findings": findings, "sink": sink_counters}, bool(missing)


# ---------------------------------------------------------------------------------------------
# https-load


class HttpsBackends:
    """nginx HTTP backend (127.0.0.1), iperf3 server (127.0.0.1), nginx TLS server on the member
    addresses 127.0.X.Y with a stub_status on 127.0.0.1 (its accept counter counts the checks)."""

    def __init__(self, procs, tmp, args):
        self.procs, self.tmp, self.args = procs, tmp, args

    def start(self):
        a, tmp = self.args, self.tmp
        self.http_port, self.bulk_port = free_port(), free_port()
        self.tls_port, self.stub_port = free_port(), free_port()
        # The HTTP backend of the data plane.
        d = os.path.join(tmp, "backend")
        os.makedirs(d)
        conf = os.path.join(d, "nginx.conf")
        Path(conf).write_text(self._nginx_common(d, 4096) + f"""\
http {{
{self._http_common(d)}
    keepalive_requests 10000000;
    keepalive_timeout 75s;
    server {{
        listen {HOST}:{self.http_port} backlog=4096;
        location / {{ return 200 "ok\\n"; }}
    }}
}}
""")
        self.backend = self.procs.spawn("nginx-backend", ["nginx", "-p", d, "-e", f"{d}/error.log", "-c", conf])
        self.backend.errlog = f"{d}/error.log"
        # The TLS server the checks go to: a self-signed certificate, made here.
        t = os.path.join(tmp, "tls")
        os.makedirs(t)
        key, cert = os.path.join(t, "key.pem"), os.path.join(t, "cert.pem")
        newkey = ["-newkey", "rsa:2048"] if a.tls_key == "rsa2048" else \
            ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        r = subprocess.run(["openssl", "req", "-x509", *newkey, "-nodes", "-keyout", key, "-out", cert,
                            "-days", "2", "-subj", "/CN=vigil-bench-readyz"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise RuntimeError(f"openssl req failed: {r.stderr[-500:]}")
        listens = "\n".join(f"        listen {member_address(i)}:{self.tls_port} ssl;"
                            for i in range(a.members))
        conf = os.path.join(t, "nginx.conf")
        Path(conf).write_text(self._nginx_common(t, 8192) + f"""\
http {{
{self._http_common(t)}
    server {{
{listens}
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;
        location = /readyz {{ return 200 "ok"; }}
        location / {{ return 404; }}
    }}
    server {{
        listen {HOST}:{self.stub_port};
        location = /stub {{ stub_status; }}
    }}
}}
""")
        self.tls = self.procs.spawn("nginx-tls", ["nginx", "-p", t, "-e", f"{t}/error.log", "-c", conf])
        self.tls.errlog = f"{t}/error.log"
        waits = [(self.backend, self.http_port, HOST), (self.tls, self.stub_port, HOST),
                 (self.tls, self.tls_port, member_address(a.members - 1))]
        if "bulk1" in a.tests:
            self.iperf = self.procs.spawn("iperf3", ["iperf3", "-s", "-B", HOST, "-p", str(self.bulk_port)])
            waits.append((self.iperf, self.bulk_port, HOST))
        for p, port, addr in waits:
            if not wait_until(lambda: listening(port, addr) or p.poll() is not None, 20):
                raise RuntimeError(f"{p.name} does not listen on {addr}:{port}:\n{tail(p.logpath)}")
            if p.poll() is not None:
                raise RuntimeError(f"{p.name} exited:\n{tail(p.logpath)}")

    @staticmethod
    def _nginx_common(d, conns):
        return f"""\
user root;
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections {conns}; }}
"""

    @staticmethod
    def _http_common(d):
        return f"""\
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;"""

    def tls_accepts(self):
        with urllib.request.urlopen(f"http://{HOST}:{self.stub_port}/stub", timeout=5) as r:
            body = r.read().decode()
        m = re.search(r"\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n", body)
        if not m:
            raise RuntimeError(f"cannot parse stub_status: {body[:200]!r}")
        return int(m.group(1))

    def tls_cpu(self):
        return process_cpu([self.tls.pid] + proc_children(self.tls.pid))

    def backend_cpu(self):
        return process_cpu([self.backend.pid] + proc_children(self.backend.pid))


def vigil_https_config(path, variant, b, args, tmp):
    lines = [f'admin: {{listen: "{HOST}:0", token_file: {tmp}/token, state_file: {tmp}/vigil-state.json}}',
             "workers: 1", "listeners:",
             f'  - {{name: http, bind: "{HOST}:0", pool: http, max_connections: 1000}}',
             f'  - {{name: bulk, bind: "{HOST}:0", pool: bulk, max_connections: 1000}}']
    npools = (args.members + PER_POOL - 1) // PER_POOL
    lines += [f'  - {{name: api{p}, bind: "{HOST}:0", pool: api{p}, max_connections: 1000}}' for p in range(npools)]
    lines += ["pools:",
              "  - name: http", "    health_monitor: none", "    members:",
              f"      - {{name: b1, address: {HOST}, port: {b.http_port}}}",
              "  - name: bulk", "    health_monitor: none", "    members:",
              f"      - {{name: b1, address: {HOST}, port: {b.bulk_port}}}"]
    monitor = ("none" if variant == "without" else
               f"{{type: HTTPS, path: /readyz, interval: {args.interval}s, timeout: 2s, tls: {{verify: false}}}}")
    for p in range(npools):
        lines += [f"  - name: api{p}", f"    health_monitor: {monitor}", "    members:"]
        lines += [f"      - {{name: m{i}, address: {member_address(i)}, port: {b.tls_port}}}"
                  for i in range(p * PER_POOL, min(args.members, (p + 1) * PER_POOL))]
    Path(path).write_text("\n".join(lines) + "\n")


def haproxy_https_config(path, variant, b, args):
    """HAProxy 2.6 (one thread: its checks run beside its data plane) with the same listeners and
    pools as vigil_https_config; 'with': `option httpchk` GET /readyz over TLS, verify none."""
    ports = {"http": free_port(), "bulk": free_port()}
    text = ["global", "    nbthread 1", "    maxconn 4000", "", "defaults", "    mode tcp",
            "    timeout connect 2s", "    timeout check 2s", "    timeout client 1m",
            "    timeout server 1m"]
    for k, port in (("http", b.http_port), ("bulk", b.bulk_port)):
        text += ["", f"listen {k}", f"    bind {HOST}:{ports[k]}", f"    server b1 {HOST}:{port}"]
    check = "" if variant == "without" else f" check check-ssl verify none inter {args.interval}s"
    for p in range((args.members + PER_POOL - 1) // PER_POOL):
        text += ["", f"backend api{p}"]
        if variant == "with":
            text += ["    option httpchk", "    http-check send meth GET uri /readyz"]
        text += [f"    server m{i} {member_address(i)}:{b.tls_port}{check}"
                 for i in range(p * PER_POOL, min(args.members, (p + 1) * PER_POOL))]
    Path(path).write_text("\n".join(text) + "\n")
    return ports


def start_haproxy(procs, name, config, ports):
    # -db: foreground, one process (no master-worker): the pid's CPU time is the proxy's.
    p = procs.spawn(name, ["haproxy", "-db", "-f", config])
    for port in ports.values():
        if not wait_until(lambda: listening(port) or p.poll() is not None, 30):
            procs.stop(p)
            raise RuntimeError(f"haproxy does not listen on {port} within 30 s:\n{tail(p.logpath)}")
    if p.poll() is not None:
        raise RuntimeError(f"haproxy exited with {p.returncode}:\n{tail(p.logpath)}")
    p.ready = {"listeners": {k: f"{HOST}:{port}" for k, port in ports.items()}}
    return p


def vigil_cpu(pid):
    """(whole process, control thread, the other threads = the data plane's worker) seconds."""
    threads = thread_cpu(pid)
    control = threads.get(pid, 0.0)
    return sum(threads.values()), control, sum(v for t, v in threads.items() if t != pid)


def lb_cpu(lb):
    """vigil_cpu() for vigil; for HAProxy (one thread, which also runs its checks) the whole
    process is its data plane, and there is no control thread."""
    if lb.lb_name == "vigil":
        return vigil_cpu(lb.pid)
    total = sum(thread_cpu(lb.pid).values())
    return total, None, total


def parse_wrk(out):
    m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", out)
    if not m:
        raise RuntimeError(f"cannot parse wrk output: {out[-400:]}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}
    errs = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    return {"requests": int(m.group(1)), "secs": float(m.group(2)) * scale[m.group(3)],
            "socket_errors": sum(int(x) for x in errs.groups()) if errs else 0,
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "p99_ms": float(p99.group(1)) * scale[p99.group(2)] * 1e3 if p99 else None}


class Window:
    """CPU and check counts around one measurement."""

    def __init__(self, lb, backends):
        self.lb, self.b = lb, backends

    def __enter__(self):
        self.t0 = time.monotonic()
        self.v0 = lb_cpu(self.lb)
        self.tls0, self.acc0 = self.b.tls_cpu(), self.b.tls_accepts()
        return self

    def __exit__(self, *exc):
        self.t1 = time.monotonic()
        self.v1 = lb_cpu(self.lb)
        self.tls1, self.acc1 = self.b.tls_cpu(), self.b.tls_accepts()
        return False

    def common(self, prefix):
        secs = self.t1 - self.t0
        res = {f"{prefix}_tls_server_cpu_pct": 100 * (self.tls1 - self.tls0) / secs,
               # minus the stub_status request of the second reading
               f"{prefix}_checks_per_s": (self.acc1 - self.acc0 - 1) / secs}
        if self.v0[1] is not None:
            res[f"{prefix}_control_cpu_pct"] = 100 * (self.v1[1] - self.v0[1]) / secs
        return res


def measure_keepalive(lb, b, args):
    port = int(lb.ready["listeners"]["http"].rsplit(":", 1)[1])
    argv = ["wrk", "-t", "1", "-c", str(args.concurrency), "-d", f"{args.duration}s", "--latency",
            f"http://{HOST}:{port}/"]
    with Window(lb, b) as w:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=args.duration + 60,
                           stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError(f"wrk rc={r.returncode}: {(r.stdout + r.stderr)[-400:]}")
    p = parse_wrk(r.stdout)
    if p["requests"] == 0:
        raise RuntimeError(f"wrk: no request completed: {r.stdout[-400:]}")
    res = {"keepalive_rps": (p["requests"] - p["non_2xx"]) / p["secs"],
           "keepalive_cpu_us_per_req": (w.v1[0] - w.v0[0]) / p["requests"] * 1e6,
           "keepalive_worker_cpu_us_per_req": (w.v1[2] - w.v0[2]) / p["requests"] * 1e6,
           "keepalive_p99_ms": p["p99_ms"]}
    res.update(w.common("keepalive"))
    notes = {k: p[k] for k in ("socket_errors", "non_2xx") if p[k]}
    return res, notes


def measure_bulk(lb, b, args):
    port = int(lb.ready["listeners"]["bulk"].rsplit(":", 1)[1])
    argv = ["iperf3", "-c", HOST, "-p", str(port), "-t", str(args.duration), "-J", "--connect-timeout", "3000"]
    with Window(lb, b) as w:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=args.duration + 60,
                           stdin=subprocess.DEVNULL)
    try:
        j = json.loads(r.stdout)
    except ValueError:
        raise RuntimeError(f"iperf3 rc={r.returncode}: {(r.stdout + r.stderr)[-400:]}")
    if "error" in j:
        raise RuntimeError(f"iperf3: {j['error']}")
    s = j["end"]["sum_received"]
    if s["bytes"] <= 0 or s["seconds"] <= 0:
        raise RuntimeError("iperf3 moved nothing")
    gb = s["bytes"] / 1e9
    res = {"bulk1_gbps": s["bytes"] * 8 / s["seconds"] / 1e9,
           "bulk1_cpu_s_per_gb": (w.v1[0] - w.v0[0]) / gb,
           "bulk1_worker_cpu_s_per_gb": (w.v1[2] - w.v0[2]) / gb}
    res.update(w.common("bulk1"))
    return res, {}


def member_health(vigil, tmp):
    """{health: count} over the checked pools, from GET /v1/status."""
    with open(os.path.join(tmp, "token")) as f:
        token = f.read().strip()
    req = urllib.request.Request(f"http://{vigil.ready['admin']}/v1/status", headers={"X-Auth-Token": token})
    with urllib.request.urlopen(req, timeout=10) as r:
        doc = json.load(r)
    counts, results = {}, {}
    for pool in doc.get("pools", []):
        if not pool.get("name", "").startswith("api"):
            continue
        for m in pool.get("members", []):
            counts[m.get("health")] = counts.get(m.get("health"), 0) + 1
            c = m.get("check") or {}
            results[c.get("result")] = results.get(c.get("result"), 0) + 1
    return counts, results


HTTPS_METRICS = [  # key, title, unit, digits, higher is better
    ("keepalive_rps", "keep-alive requests (wrk -t1)", "req/s", 0, True),
    ("keepalive_cpu_us_per_req", "LB CPU per request (whole process)", "us/req", 2, False),
    ("keepalive_worker_cpu_us_per_req", "data-plane thread CPU per request", "us/req", 2, False),
    ("keepalive_p99_ms", "wrk latency p99", "ms", 2, False),
    ("keepalive_control_cpu_pct", "vigil control thread during wrk", "% of a core", 1, None),
    ("keepalive_tls_server_cpu_pct", "the TLS server (nginx) during wrk", "% of a core", 1, None),
    ("keepalive_checks_per_s", "HTTPS checks during wrk (TLS accepts)", "/s", 1, None),
    ("bulk1_gbps", "bulk, 1 stream (iperf3)", "Gbit/s", 2, True),
    ("bulk1_cpu_s_per_gb", "LB CPU per GB (whole process)", "s/GB", 3, False),
    ("bulk1_worker_cpu_s_per_gb", "data-plane thread CPU per GB", "s/GB", 3, False),
    ("bulk1_control_cpu_pct", "vigil control thread during iperf3", "% of a core", 1, None),
    ("bulk1_checks_per_s", "HTTPS checks during iperf3", "/s", 1, None),
]


# HAProxy logs each server's check state changes (the first checks bring every member up).
HAPROXY_CHECK_LINES = re.compile(r"Server api\d+/m\d+ is UP|Health check for server")


def https_summary(without, with_):
    """{metric: {variant: median, min, max}} and {metric: per-round with/without ratios}."""
    summary, paired = {}, {}
    for key, *_ in HTTPS_METRICS:
        row = {}
        for v, samples in (("without", without), ("with", with_)):
            vals = [x for _, x in samples.get(key, [])]
            if vals:
                row[v] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
                          "n": len(vals), "samples": vals}
        if row:
            summary[key] = row
        a, w = dict(without.get(key, [])), dict(with_.get(key, []))
        per_round = [w[r] / a[r] for r in sorted(set(a) & set(w)) if a[r]]
        if per_round:
            paired[key] = {"median": statistics.median(per_round), "min": min(per_round),
                           "max": max(per_round), "per_round": per_round}
    return summary, paired


def print_https_table(lb, summary, paired):
    print(f"  {lb}:")
    print(f"  {'metric':<44} {'without':>22} {'with':>22} {'with/without':>12} {'per-round ratios':>18}")
    for key, title, unit, d, higher in HTTPS_METRICS:
        if key not in summary:
            continue
        row = summary[key]

        def cell(v):
            s = row.get(v)
            if not s:
                return "-"
            return f"{fmt(s['median'], d)} ({fmt(s['min'], d)}-{fmt(s['max'], d)})"

        r = (row["with"]["median"] / row["without"]["median"]
             if "with" in row and "without" in row and row["without"]["median"] else None)
        pr = paired.get(key) if higher is not None else None
        print(f"  {title + ', ' + unit:<44} {cell('without'):>22} {cell('with'):>22} "
              f"{fmt(r, 3) if r is not None and higher is not None else '':>12} "
              f"{(fmt(pr['min'], 3) + ' - ' + fmt(pr['max'], 3)) if pr else '':>18}")


def run_https_load(args, tmp, procs):
    tools = ("nginx", "wrk", "openssl") + (("iperf3",) if "bulk1" in args.tests else ()) + \
        (("haproxy",) if "haproxy" in args.lbs else ())
    for tool in tools:
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed (run.sh installs it)")
    if "vigil" in args.lbs:
        check_vigil_binary(args.vigil)
    Path(tmp, "token").write_text("bench-token\n")
    os.chmod(os.path.join(tmp, "token"), 0o600)
    b = HttpsBackends(procs, tmp, args)
    b.start()
    log(f"backends: nginx http {b.http_port}, iperf3 {b.bulk_port}, nginx TLS on {args.members} addresses "
        f"127.0.X.Y:{b.tls_port} ({args.tls_key}), stub_status {b.stub_port}")
    configs, haproxy_ports = {}, {}
    for lb in args.lbs:
        for v in ("without", "with"):
            configs[lb, v] = os.path.join(tmp, f"{lb}-{v}." + ("yaml" if lb == "vigil" else "cfg"))
            if lb == "vigil":
                vigil_https_config(configs[lb, v], v, b, args, tmp)
            else:
                haproxy_ports[v] = haproxy_https_config(configs[lb, v], v, b, args)
    runs = [(lb, v) for lb in args.lbs for v in ("without", "with")]
    samples = {run: {} for run in runs}
    notes = []
    findings = {}
    health = []
    for rnd in range(1, args.rounds + 1):
        for lb in args.lbs:
            order = ("without", "with") if rnd % 2 else ("with", "without")
            for v in order:
                name = f"{lb}-{v}-{rnd}"
                try:
                    if lb == "vigil":
                        proc = start_vigil(procs, args.vigil, name, configs[lb, v], tmp)
                    else:
                        proc = start_haproxy(procs, name, configs[lb, v], haproxy_ports[v])
                    proc.lb_name = lb
                except RuntimeError as e:
                    log(f"round {rnd} {lb} {v}: did not start: {e}")
                    notes.append({"round": rnd, "lb": lb, "variant": v, "error": str(e)[:300]})
                    continue
                try:
                    time.sleep(args.warmup)
                    for test, fn in (("keepalive", measure_keepalive), ("bulk1", measure_bulk)):
                        if test not in args.tests:
                            continue
                        try:
                            res, nt = fn(proc, b, args)
                        except Exception as e:
                            res, nt = {}, {"error": str(e)[:300]}
                            log(f"round {rnd} {lb} {v} {test}: FAILED: {e}")
                        for k, val in res.items():
                            if val is not None:
                                samples[lb, v].setdefault(k, []).append((rnd, val))
                        if nt:
                            notes.append({"round": rnd, "lb": lb, "variant": v, "test": test, **nt})
                        if res:
                            log(f"round {rnd} {lb} {v} {test}: "
                                + ", ".join(f"{k}={fmt(x)}" for k, x in res.items()))
                        if proc.poll() is not None:
                            raise RuntimeError(f"{lb} exited with {proc.returncode}:\n{tail(proc.logpath)}")
                        time.sleep(0.3)
                    if lb == "vigil" and v == "with":
                        try:
                            counts, results = member_health(proc, tmp)
                            health.append({"round": rnd, "health": counts, "last_result": results})
                            log(f"round {rnd} vigil with: members {counts}, last check {results}")
                        except Exception as e:
                            log(f"round {rnd} vigil with: GET /v1/status failed: {e}")
                except RuntimeError as e:
                    log(f"round {rnd} {lb} {v}: {e}")
                    notes.append({"round": rnd, "lb": lb, "variant": v, "error": str(e)[:300]})
                finally:
                    procs.stop(proc)
                    hits = log_findings(proc.logpath, PROBLEM, HAPROXY_CHECK_LINES if lb == "haproxy" else None)
                    if hits:
                        f = findings.setdefault(f"{lb}-{v}", {"count": 0, "first": []})
                        f["count"] += len(hits)
                        f["first"] = (f["first"] + hits)[:5]
                time.sleep(0.5)
    for p in (b.backend, b.tls):
        hits = log_findings(p.errlog, PROBLEM)
        if hits:
            findings[p.name] = {"count": len(hits), "first": hits[:5]}

    summary, paired, verdicts = {}, {}, {}
    for lb in args.lbs:
        summary[lb], paired[lb] = https_summary(samples[lb, "without"], samples[lb, "with"])
        verdicts[lb] = {}
        for key in ("keepalive_rps", "keepalive_worker_cpu_us_per_req", "keepalive_p99_ms", "bulk1_gbps",
                    "bulk1_worker_cpu_s_per_gb"):
            pr = paired[lb].get(key)
            if pr:
                inside = pr["min"] <= 1.0 <= pr["max"]
                verdicts[lb][key] = ("within noise" if inside else
                                     ("lower with checks" if pr["max"] < 1 else "higher with checks"))

    print(f"\nhttps-load: {' and '.join(args.lbs)} (1 worker / nbthread 1) in front of nginx (keep-alive, "
          f"wrk -t1 -c{args.concurrency}) and iperf3 (1 stream); {args.members} more members in "
          f"{(args.members + PER_POOL - 1) // PER_POOL} pools, 'with': HTTPS GET /readyz every {args.interval} s "
          f"({args.tls_key} certificate, verify off), 'without': no checks")
    print(f"  {args.rounds} rounds (ABBA order), a fresh process per run, {args.warmup:g} s warm-up, "
          f"{args.duration} s per measurement; median (min - max)")
    for lb in args.lbs:
        print_https_table(lb, summary[lb], paired[lb])
        if verdicts[lb]:
            print("    per-round ratios (with / without, same round) include 1.0, i.e. within the noise? "
                  + ", ".join(f"{k}: {v}" for k, v in verdicts[lb].items()))
    if len(args.lbs) > 1:
        print("  with / without, median of the per-round ratios:")
        for key in ("keepalive_rps", "keepalive_p99_ms", "bulk1_gbps"):
            cells = [f"{lb} {fmt(paired[lb][key]['median'], 3)}" for lb in args.lbs if key in paired[lb]]
            if cells:
                print(f"    {key}: " + ", ".join(cells))
    print("  vigil's whole-process CPU includes its control thread, which runs the checks, and its worker "
          "thread's is the data plane's own; HAProxy's one thread runs both")
    for h in health:
        print(f"  round {h['round']} 'with' member health at the end: {h['health']}, last check results {h['last_result']}")
    for n in notes:
        print(f"  note: {n}")
    for name, f in findings.items():
        print(f"  log {name}: {f['count']} line(s) with warn/error, first: {f['first'][0][:200]}")
    failed = any("error" in n for n in notes) or not any(summary.values())
    return {"scenario": "https-load",
            "params": {"members": args.members, "interval_s": args.interval, "duration_s": args.duration,
                       "warmup_s": args.warmup, "rounds": args.rounds, "concurrency": args.concurrency,
                       "tests": args.tests, "tls_key": args.tls_key, "lbs": args.lbs},
            "results": summary, "with_over_without_per_round": paired, "verdicts": verdicts,
            "member_health": health, "notes": notes, "log_findings": findings}, failed


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    scenario = "tcp-scale"
    if argv and argv[0] in SCENARIOS:
        scenario, argv = argv[0], argv[1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--scenario", choices=SCENARIOS, default=scenario,
                   help="tcp-scale (default) or https-load; may also be given as the first argument")
    p.add_argument("--members", type=int, help="members checked (tcp-scale 10000, https-load 500)")
    p.add_argument("--interval", type=int, help="seconds between checks (tcp-scale 1, https-load 5)")
    p.add_argument("--duration", type=float,
                   help="measured seconds (tcp-scale 30 per target; https-load 60 per wrk/iperf3 run: "
                        "a minute holds every member's reconnect, see README)")
    p.add_argument("--warmup", type=float, help="seconds after start before measuring (tcp-scale 5, https-load 8)")
    p.add_argument("--rounds", type=int, help="interleaved rounds (tcp-scale 1, https-load 3)")
    p.add_argument("--targets", default=",".join(TCP_TARGETS), help="tcp-scale: comma-separated, from "
                   f"{','.join(TCP_TARGETS)} (default all)")
    p.add_argument("--tests", default="keepalive", help="https-load: keepalive,bulk1 (default keepalive)")
    p.add_argument("--lbs", default="vigil,haproxy",
                   help="https-load: the load balancers, from vigil,haproxy (default both)")
    p.add_argument("--concurrency", type=int, default=32, help="https-load: wrk connections (default 32)")
    p.add_argument("--tls-key", choices=("ec256", "rsa2048"), default="ec256",
                   help="https-load: the TLS server's key (default ec256: cheap for the server, which "
                        "shares the machine; rsa2048 as kubeadm makes them)")
    p.add_argument("--vigil", default=str(DEFAULT_VIGIL), help=f"vigil binary (default {DEFAULT_VIGIL})")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=PATH",
                   help="tcp-scale: also measure target vigil-NAME, vigil from PATH (repeatable): a change "
                        "against the build before it, in the same run")
    p.add_argument("--json-out", help="also write the JSON result to this file")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory (configs, logs)")
    a = p.parse_args(argv)
    tcp = a.scenario == "tcp-scale"
    defaults = {"members": 10000 if tcp else 500, "interval": 1 if tcp else 5,
                "duration": 30.0 if tcp else 60.0, "warmup": 5.0 if tcp else 8.0, "rounds": 1 if tcp else 3}
    for k, v in defaults.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    a.vigil = os.path.abspath(a.vigil)  # the processes run in the temporary directory
    a.targets = [t.strip() for t in a.targets.split(",") if t.strip()]
    a.variants = parse_variants(p, a.variant)
    a.targets += list(a.variants)
    for t in a.targets:
        if t not in TCP_TARGETS and t not in a.variants:
            p.error(f"unknown target {t!r}")
    a.lbs = [t.strip() for t in a.lbs.split(",") if t.strip()]
    for t in a.lbs:
        if t not in ("vigil", "haproxy"):
            p.error(f"unknown load balancer {t!r}")
    a.tests = [t.strip() for t in a.tests.split(",") if t.strip()]
    for t in a.tests:
        if t not in ("keepalive", "bulk1"):
            p.error(f"unknown test {t!r}")
    if not (1 <= a.members <= MAX_MEMBERS and 1 <= a.interval <= 60 and 1 <= a.duration <= 600
            and 0 <= a.warmup <= 300 and 1 <= a.rounds <= 50 and 1 <= a.concurrency <= 1000):
        p.error(f"a value is out of range (members 1-{MAX_MEMBERS}, interval 1-60, duration 1-600, "
                "warmup 0-300, rounds 1-50, concurrency 1-1000)")
    if not tcp:
        a.duration = int(a.duration)
    return a


def main(argv):
    args = parse_args(argv)
    if args.scenario == "https-load" and os.geteuid() != 0:
        print("run.py: https-load needs root (nginx runs as root)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, on_sigterm)
    # The sink holds a listener per member; nginx one per member address.
    nofile = raise_nofile(max(65536, args.members + 4096))
    if nofile < args.members + 1000:
        print(f"run.py: descriptor limit {nofile} is too low for {args.members} members", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix=f"vigil-bench-hc-{args.scenario}-", dir="/tmp")
    procs = Processes(tmp, nofile, grace=10.0)
    started = time.monotonic()
    load_start = loadavg()
    if load_start is not None and load_start > 0.5:
        log(f"load average {load_start} before the start: other work on this machine adds noise")
    try:
        if args.scenario == "tcp-scale":
            result, failed = run_tcp_scale(args, tmp, procs)
        else:
            result, failed = run_https_load(args, tmp, procs)
    finally:
        finish(procs, tmp, args.keep_tmp)
    machine = machine_info()
    machine["loadavg_start"], machine["loadavg_end"] = load_start, loadavg()
    print(f"  machine: {machine['nproc']} CPUs ({machine['cpu']}), kernel {machine['kernel']}; "
          f"{time.monotonic() - started:.0f} s; load average {machine['loadavg_start']} at the start, "
          f"{machine['loadavg_end']} at the end (this run included)")
    result = {"bench": "healthcheck", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "machine": machine,
              "versions": {"vigil": tool_version([args.vigil, "version"], r"(\d+\.\d+\S*)"),
                           "haproxy": tool_version(["haproxy", "-v"], r"version (\S+)"),
                           "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)")},
              **result}
    emit_json(result, args.json_out)
    return 1 if failed else 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
