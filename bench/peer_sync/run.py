#!/usr/bin/env python3
"""Peer sync benchmark: what streaming 10,000 client sessions, and 1,000 new ones a second, to a
peer costs the sender and the receiver, against the same vigil without `peers:`.

Each round runs three vigils side by side, at the same time, so that the machine's other work
weighs on the two measured alike:
  A    peers with B (`peers:`, on 127.0.0.1, ports the kernel picked): streams its sessions to B
  B    A's peer; it only receives A's stream (no load goes through it)
  A0   the same vigil and config as A without `peers:`
Each A has a load of its own (load.c, compiled here: an echo backend, and a client that holds
--sessions client sessions through that A): long-lived ones, and --rate short ones a second,
each closed --min-life..--max-life ms after it opened (uniform), so that additions and removals
flow at --rate each (the short ones standing at any moment, rate x mean life, count in
--sessions). After --warmup s of churn, over a window of --window s: CPU time (utime + stime,
/proc/PID/task/TID/stat) of A, A0 and B, the control thread (the main thread) apart from the
workers; the bytes A's stream to B carried (acknowledged, from `ss -ti`); the loads' own CPU.
Then the churn stops and B's vigil_peer_sessions must equal A's vigil_peer_sessions_sent and
the sessions A's client holds; B's RssAnon is read with none of A's sessions known and with
them all.

It prints per figure the median and range over the rounds, the extra CPU of the sync as % of
one core (A minus A0, round by round, for the sender; B's whole CPU for the receiver), then one
JSON line.
Loopback only; every process is started here and stopped at the end (also on Ctrl-C or
SIGTERM), each by its own process group; every wait is bounded; temporary files go to a
directory under /tmp. Needs cc and ss; more than 20,000 descriptors per process for the whole
10,000 sessions (root raises the limit; where the hard limit is lower, fewer are held and the
run says so). Python 3 standard library only. Benchmarks print numbers and never gate CI.

    cmake --preset release && cmake --build --preset release --target vigil
    bench/peer_sync/run.py [--rounds 3] [--window 30] [--sessions 10000] [--rate 1000]
"""

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from bench.benchlib import (Processes, compile_c, finish, free_port, loadavg, log, machine_cpu, machine_info,
                            on_sigterm, raise_nofile, run_main, wait_until)
from bench.peer_sync.nodes import Load, Node, stream_bytes, threads_cpu
from bench.peer_sync.report import print_report, summarize

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VIGIL = ROOT / "build/release/src/daemon/vigil"
# What vigil keeps back from its descriptor limit for all but sessions (daemon/fd_budget.cc: 64
# fixed, the admin API's 64, 64 idle check sockets, the listeners), with room to spare.
VIGIL_RESERVE = 256
# vigil's counters of sessions it refused or closed: all 0 in a clean run.
REFUSALS = ("listener_rejected_connections_total", "listener_no_backend_connections_total",
            "listener_connect_failures_total", "member_sessions_closed_total")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--rounds", type=int, default=3, help="rounds of both runs (default 3)")
    p.add_argument("--window", type=float, default=30, help="measured seconds (default 30)")
    p.add_argument("--warmup", type=float, default=5, help="seconds of churn before the window (default 5)")
    p.add_argument("--sessions", type=int, default=10000,
                   help="sessions A holds, the short ones standing included (default 10000)")
    p.add_argument("--rate", type=int, default=1000, help="new short sessions a second (default 1000)")
    p.add_argument("--min-life", type=int, default=500, help="shortest life of a short session, ms (default 500)")
    p.add_argument("--max-life", type=int, default=1500, help="longest, ms (default 1500)")
    p.add_argument("--workers", type=int, default=1, help="vigil's workers (default 1)")
    p.add_argument("--vigil", default=str(DEFAULT_VIGIL), help=f"vigil binary (default {DEFAULT_VIGIL})")
    p.add_argument("--json-out", help="also write the JSON result to this file")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary directory (configs, logs)")
    a = p.parse_args(argv)
    if not (1 <= a.rounds <= 20 and 1 <= a.window <= 600 and 0 <= a.warmup <= 120 and 1 <= a.workers <= 64
            and 0 <= a.rate <= 20000 and 200 <= a.min_life <= a.max_life <= 60000 and a.sessions >= 1):
        p.error("a value is out of range (rounds 1-20, window 1-600, warmup 0-120, workers 1-64, "
                "rate 0-20000, 200 <= min-life <= max-life <= 60000)")
    a.vigil = os.path.abspath(a.vigil)
    if not os.access(a.vigil, os.X_OK):
        p.error(f"no vigil binary at {a.vigil} (cmake --preset release && cmake --build --preset release "
                "--target vigil, or pass --vigil)")
    return a


def plan(args, nofile):
    """(long-lived sessions to hold, sessions in all): --sessions, less the short ones standing,
    lowered to what vigil A can hold under the descriptor limit (two descriptors a session)."""
    standing = args.rate * (args.min_life + args.max_life) // 2000
    total = min(args.sessions, (nofile - VIGIL_RESERVE) // 2 - standing // 20 - 50)
    if total < args.sessions:
        log(f"descriptor limit {nofile} (cannot be raised here): {total} sessions instead of {args.sessions}")
    if total <= standing:
        raise RuntimeError(f"{total} sessions leave none long-lived beside the {standing} short ones standing")
    return total - standing, total


def sample(nodes, loads, b_port):
    """Everything the window's figures are differences of."""
    return {"t": time.monotonic(), "cpu": {k: threads_cpu(n.proc.pid) for k, n in nodes.items()},
            "load_cpu": {k: load.cpu() for k, load in loads.items()}, "machine": machine_cpu(),
            "stream": stream_bytes(b_port), "load": {k: load.stat() for k, load in loads.items()}}


def run_round(args, tmp, procs, binary, held):
    """One round: B, A streaming to B, and A alone (no `peers:`), each A with its own load, side by
    side; its raw figures."""
    ports = {"a": free_port(), "b": free_port()}
    max_conn = args.sessions + args.rate * args.max_life // 1000 + 100
    loads = {"a": Load(procs, tmp, binary, "a"), "a0": Load(procs, tmp, binary, "a0")}
    nodes = {"b": Node(procs, tmp, args.vigil, "b", loads["a"].echo_port, ports, args.workers, max_conn),
             "a": Node(procs, tmp, args.vigil, "a", loads["a"].echo_port, ports, args.workers, max_conn),
             "a0": Node(procs, tmp, args.vigil, "a", loads["a0"].echo_port, {}, args.workers, max_conn)}
    a, b = nodes["a"], nodes["b"]
    out = {}
    try:
        for n in nodes.values():
            n.start()
        if not wait_until(lambda: b.metric("vigil_peer_up", peer="a", direction="receive") == 1
                          and a.metric("vigil_peer_up", peer="b", direction="send") == 1, 15, 0.1):
            raise RuntimeError("A's stream to B did not come up within 15 s")
        out["b_rss_anon_kb_none"] = b.rss_anon_kb()
        for k, load in loads.items():
            load.start_client(nodes[k].listen_port, args.min_life, args.max_life)
            load.say(f"hold {held}")
        for k, load in loads.items():
            wait_until(lambda: load.stat()["held"] >= held or load.stat()["failed"] > 0, 180, 0.2)
            st = load.stat()
            if st["held"] < held or st["failed"] > 0:
                raise RuntimeError(f"{k}: {st['held']} of {held} sessions held, {st['failed']} failed")
        if not wait_until(lambda: b.metric("vigil_peer_sessions", peer="a") == held, 10, 0.1):
            raise RuntimeError(f"B knows {b.metric('vigil_peer_sessions', peer='a')} of A's {held} sessions")
        out["b_rss_anon_kb_known"] = b.rss_anon_kb()
        for load in loads.values():
            load.say(f"churn {args.rate}")
        time.sleep(args.warmup)
        first = sample(nodes, loads, ports["b"])
        time.sleep(args.window)
        last = sample(nodes, loads, ports["b"])
        # During the churn: within one 200 ms sync round of each other.
        out["a_sent_churning"] = a.metric("vigil_peer_sessions_sent")
        out["b_known_churning"] = b.metric("vigil_peer_sessions", peer="a")
        for load in loads.values():
            load.say("calm")
        time.sleep(args.max_life / 1000 + 1.0)  # every short session closed, and a sync round after
        after = loads["a"].stat()
        out["held_end"] = after["held"] + after["short"]
        out["a_sent_end"] = a.metric("vigil_peer_sessions_sent")
        out["b_known_end"] = b.metric("vigil_peer_sessions", peer="a")
        out["b_lost"] = b.metric("vigil_peer_lost_total", peer="a")
        for k in nodes:
            out[f"{k}_rss_anon_kb_end"] = nodes[k].rss_anon_kb()
        for k in loads:  # what went wrong, if anything did: the client's count and vigil's
            out[f"{k}_lost"] = loads[k].stat()["lost"]
            m = nodes[k].metrics()
            for family in REFUSALS:
                out[f"{k}_{family}"] = sum(v for (f, _), v in m.items() if f == f"vigil_{family}")
        out.update(window(first, last))
        return out
    finally:
        for load in loads.values():
            load.stop()
        for n in nodes.values():
            n.stop()


def window(first, last):
    dt = last["t"] - first["t"]
    core = lambda x, y: 100 * (y - x) / dt  # noqa: E731  CPU seconds a second, as % of one core
    out = {"seconds": round(dt, 2)}
    for node in first["cpu"]:
        for part in ("control", "workers"):
            out[f"{node}_{part}_pct"] = core(first["cpu"][node][part], last["cpu"][node][part])
        out[f"{node}_pct"] = out[f"{node}_control_pct"] + out[f"{node}_workers_pct"]
    for k in first["load"]:
        out[f"load_{k}_pct"] = core(first["load_cpu"][k], last["load_cpu"][k])
        out[f"{k}_opened_per_s"] = (last["load"][k]["opened"] - first["load"][k]["opened"]) / dt
        out[f"{k}_closed_per_s"] = (last["load"][k]["closed"] - first["load"][k]["closed"]) / dt
        out[f"{k}_failed"] = last["load"][k]["failed"]
        out[f"{k}_sessions"] = sum(last["load"][k][x] for x in ("held", "short", "pending"))
    out["machine_pct"] = core(first["machine"], last["machine"])
    if first["stream"] is not None and last["stream"] is not None:
        out["stream_bytes_per_s"] = (last["stream"] - first["stream"]) / dt
    for part in ("", "_control", "_workers"):
        out[f"extra{part}_pct"] = out[f"a{part}_pct"] - out[f"a0{part}_pct"]
    return out


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, on_sigterm)
    nofile = raise_nofile(65536)
    held, total = plan(args, nofile)
    load_before = loadavg()
    tmp = tempfile.mkdtemp(prefix="vigil-bench-peer-sync-")
    procs = Processes(tmp, nofile, grace=10)
    runs = []
    try:
        binary = compile_c(Path(__file__).resolve().parent / "load.c", tmp)
        log(f"{held} long-lived sessions through each A, {args.rate} short ones a second "
            f"({args.min_life}-{args.max_life} ms): about {total} in all")
        for rnd in range(args.rounds):
            log(f"round {rnd + 1}/{args.rounds}")
            r = run_round(args, tmp, procs, binary, held)
            r["round"] = rnd + 1
            log("  " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                 for k, v in r.items() if k != "round"))
            runs.append(r)
    finally:
        finish(procs, tmp, args.keep_tmp)
    result = summarize(runs)
    result.update({"held": held, "sessions_planned": total, "rate": args.rate, "window_s": args.window,
                   "life_ms": [args.min_life, args.max_life], "workers": args.workers, "nofile": nofile,
                   "machine": machine_info(memory=True), "load_average": [load_before, loadavg()],
                   "date": time.strftime("%Y-%m-%d"), "runs": runs})
    print_report(result, args.json_out)
    return 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
