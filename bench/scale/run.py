#!/usr/bin/env python3
"""Many load balancers in one process: N load balancers (a listener and a pool of three members
each, TCP or HTTPS checks every 5 s) in vigil and in HAProxy with the same listeners, servers
and checks, one after the other, interleaved over --rounds.

Per target, check kind and size (see measure.py): RSS, the checking thread's CPU over a steady
window (vigil: its control thread; HAProxy, nbthread 1: its process), the checks the members saw
per second, the time from start to the first completed round of checks, the checking thread's
CPU until then, and the time to apply one API change (vigil: PUT .../admin and an Octavia member
create; HAProxy: `set server ... weight` and `add server` on its runtime API). Then the ratios
vigil/HAProxy beside the targets: RSS at most 0.5x, checking CPU at most 0.8x, one API
change within 10 ms, the first round within 5 s.

Listeners on 127.2.X.Y (one address each, one port for all), members on 127.0.X.Y: for TCP
checks bench/healthcheck/sink.c (compiled here with cc; notes every SYN), for HTTPS one nginx
serving TLS on every member address with a certificate made by openssl at the start. Loopback
only; every process is started here and stopped at the end (also on Ctrl-C or SIGTERM), each by
its own process group; every wait is bounded; temporary files go to a directory under /tmp.
Needs root (descriptor limits, nginx, the SYN capture); run.sh installs what is missing. Python 3
standard library only. Benchmarks print numbers and never gate CI.

    bench/scale/run.py [--lbs 1000,10000] [--checks tcp,https] [--targets vigil,haproxy]
                       [--rounds 1] [--duration 30] [--warmup 5] [--api-changes 20]
"""

import argparse
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from bench.benchlib import (Processes, emit_json, finish, fmt, free_port, loadavg, log, log_findings, machine_info,
                            on_sigterm, raise_nofile, run_main, tool_version)
from bench.scale.backends import Sink, TlsServer
from bench.scale.configs import MAX_LBS
from bench.scale.measure import measure
from bench.scale.report import print_table, ratios, summarize
from bench.scale.targets import Haproxy, Vigil

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VIGIL = ROOT / "build/release/src/daemon/vigil"
PROBLEM = re.compile(r"\b(warn|warning|error|alert|emerg|crit|fatal|abort|sanitizer)", re.I)
# HAProxy logs each server's check transitions and its own config advice as warnings.
HAPROXY_NOISE = re.compile(r"Health check|is UP|is DOWN|backend .* has no server available|"
                           r"Proxy .* started|maxconn", re.I)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--lbs", default="1000,10000", help="load balancer counts (default 1000,10000)")
    p.add_argument("--checks", default="tcp,https", help="check kinds, from tcp,https (default both)")
    p.add_argument("--targets", default="vigil,haproxy", help="from vigil,haproxy (default both)")
    p.add_argument("--interval", type=int, default=5, help="seconds between checks of a member (default 5)")
    p.add_argument("--rounds", type=int, default=1, help="interleaved rounds (default 1)")
    p.add_argument("--duration", type=float, default=30, help="steady window, seconds (default 30)")
    p.add_argument("--warmup", type=float, default=5,
                   help="seconds between the first round and the window (default 5)")
    p.add_argument("--api-changes", type=int, default=20, help="API changes timed per run (default 20)")
    p.add_argument("--workers", type=int, default=1,
                   help="vigil workers and HAProxy nbthread (default 1: HAProxy then checks in its one thread)")
    p.add_argument("--start-timeout", type=float, default=300, help="seconds to be ready (default 300)")
    p.add_argument("--first-round-timeout", type=float, default=300,
                   help="seconds for the first round of checks (default 300)")
    p.add_argument("--vigil", default=str(DEFAULT_VIGIL), help=f"vigil binary (default {DEFAULT_VIGIL})")
    p.add_argument("--json-out", help="also write the JSON result to this file")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory (configs, logs)")
    a = p.parse_args(argv)
    try:
        a.lbs = [int(x) for x in a.lbs.split(",") if x.strip()]
    except ValueError:
        p.error("--lbs takes comma-separated integers")
    a.checks = [x.strip() for x in a.checks.split(",") if x.strip()]
    a.targets = [x.strip() for x in a.targets.split(",") if x.strip()]
    if not a.lbs or any(not 1 <= n <= MAX_LBS for n in a.lbs):
        p.error(f"--lbs: each between 1 and {MAX_LBS}")
    if not a.checks or any(c not in ("tcp", "https") for c in a.checks):
        p.error("--checks: from tcp,https")
    if not a.targets or any(t not in ("vigil", "haproxy") for t in a.targets):
        p.error("--targets: from vigil,haproxy")
    if not (1 <= a.interval <= 60 and 1 <= a.rounds <= 20 and 1 <= a.duration <= 600 and 0 <= a.warmup <= 300
            and 0 <= a.api_changes <= 10000 and 1 <= a.workers <= 64):
        p.error("a value is out of range (interval 1-60, rounds 1-20, duration 1-600, warmup 0-300, "
                "api-changes 0-10000, workers 1-64)")
    a.vigil = os.path.abspath(a.vigil)
    if "vigil" in a.targets and not os.access(a.vigil, os.X_OK):
        p.error(f"no vigil binary at {a.vigil} (cmake --preset release && cmake --build --preset release "
                "--target vigil, or pass --vigil)")
    return a


def start_backends(args, procs, tmp):
    members = 3 * max(args.lbs)
    backends = {}
    if "tcp" in args.checks:
        lifetime = 3600 * 6
        backends["sink"] = Sink(procs, tmp, members, lifetime)
        log(f"sink: {members} listeners on 127.0.X.Y:{backends['sink'].port}"
            + ("" if backends["sink"].syn else " (no SYN capture: HAProxy's TCP checks are not seen)"))
    if "https" in args.checks:
        if shutil.which("nginx") is None or shutil.which("openssl") is None:
            raise RuntimeError("nginx and openssl are needed for HTTPS checks (run.sh installs them)")
        backends["tls"] = TlsServer(procs, tmp, members)
        log(f"nginx: TLS on {members} addresses 127.0.X.Y:{backends['tls'].port}")
    return backends


def make_target(name, procs, tmp, label, args):
    return Vigil(procs, tmp, label, args.vigil) if name == "vigil" else Haproxy(procs, tmp, label)


def run(args, tmp, procs):
    backends = start_backends(args, procs, tmp)
    listen_port = free_port()
    samples, notes, findings = {}, [], {}
    for rnd in range(1, args.rounds + 1):
        for check in args.checks:
            member_port = backends["sink"].port if check == "tcp" else backends["tls"].port
            for lbs in args.lbs:
                order = args.targets if rnd % 2 else list(reversed(args.targets))
                for name in order:
                    label = f"{name}-{check}-{lbs}-{rnd}"
                    target = make_target(name, procs, tmp, label, args)
                    target.write_config(lbs, check, args.interval, listen_port, member_port, args.workers)
                    log(f"round {rnd} {check} {lbs} {name}: start (load average {loadavg()})")
                    try:
                        res = measure(target, lbs, check, backends, args)
                    except (RuntimeError, OSError) as e:
                        log(f"round {rnd} {check} {lbs} {name}: FAILED: {e}")
                        notes.append({"round": rnd, "check": check, "lbs": lbs, "target": name, "error": str(e)[:400]})
                        continue
                    finally:
                        if target.proc is not None:
                            hits = log_findings(target.proc.logpath, PROBLEM,
                                                HAPROXY_NOISE if name == "haproxy" else None)
                            if hits:
                                f = findings.setdefault(f"{name}-{check}-{lbs}", {"count": 0, "first": []})
                                f["count"] += len(hits)
                                f["first"] = (f["first"] + hits)[:5]
                    res["loadavg"] = loadavg()
                    samples.setdefault((check, lbs), {}).setdefault(name, []).append(res)
                    log(f"round {rnd} {check} {lbs} {name}: " + ", ".join(
                        f"{k}={fmt(v) if isinstance(v, (int, float)) else v}" for k, v in res.items()))
                    time.sleep(1.0)
    results = []
    for (check, lbs), by_target in samples.items():
        summary = {t: summarize(s) for t, s in by_target.items()}
        print_table(check, lbs, summary, args.targets, args.rounds)
        results.append({"check": check, "lbs": lbs, "summary": summary, "ratios": ratios(summary),
                        "samples": by_target})
    for n in notes:
        print(f"  note: {n}")
    for name, f in findings.items():
        print(f"  log {name}: {f['count']} line(s) with warn/error, first: {f['first'][0][:200]}")
    return {"results": results, "notes": notes, "log_findings": findings}, bool(notes)


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        print("run.py: run as root (descriptor limits, nginx, the sink's SYN capture)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, on_sigterm)
    # Each target holds a listener per load balancer, and vigil a kept connection per member with
    # HTTPS checks; the members are spread over processes of at most 9,000 listeners each.
    want = 4 * max(args.lbs) + 4096
    nofile = raise_nofile(max(65536, want))
    if nofile < max(args.lbs) + 4096:
        print(f"run.py: descriptor limit {nofile} is too low for {max(args.lbs)} listeners", file=sys.stderr)
        return 2
    if nofile < want:
        log(f"descriptor limit {nofile} (the hard limit; raising it needs CAP_SYS_RESOURCE): vigil's "
            f"kept HTTPS check connections at {max(args.lbs)} load balancers want {want}")
    tmp = tempfile.mkdtemp(prefix="vigil-bench-scale-", dir="/tmp")
    procs = Processes(tmp, nofile, grace=20.0)
    started, load_start = time.monotonic(), loadavg()
    try:
        result, failed = run(args, tmp, procs)
    finally:
        finish(procs, tmp, args.keep_tmp)
    machine = machine_info(memory=True)
    machine["loadavg_start"], machine["loadavg_end"] = load_start, loadavg()
    print(f"  machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['mem_gib']} GiB, kernel "
          f"{machine['kernel']}; {time.monotonic() - started:.0f} s; load average {load_start} at the start, "
          f"{machine['loadavg_end']} at the end (this run included)")
    out = {"bench": "scale", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine,
           "versions": {"vigil": tool_version([args.vigil, "version"], r"(\d+\.\d+\S*)"),
                        "haproxy": tool_version(["haproxy", "-v"], r"version (\S+)"),
                        "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)")},
           "params": {k: getattr(args, k) for k in ("lbs", "checks", "targets", "interval", "rounds", "duration",
                                                    "warmup", "api_changes", "workers")},
           **result}
    emit_json(out, args.json_out)
    return 1 if failed else 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
