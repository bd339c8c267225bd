#!/usr/bin/env python3
"""Peer sync benchmark: what streaming 10,000 client sessions, and 1,000 new ones a second, to a
peer costs the sender and the receiver, against the same vigil without `peers:`.

Two runs per round, their order alternating from round to round:
  peers   vigil A and vigil B on 127.0.0.1, peers of each other (`peers:`, ports the kernel
          picked); the load goes through A, B only receives A's stream.
  alone   vigil A with the same config without `peers:`; B is not started.
In each, load.c (compiled here) holds --sessions client sessions through A to its echo backend:
long-lived ones, and --rate short ones a second, each closed --min-life..--max-life ms after it
opened (uniform), so that additions and removals flow at --rate each (the short ones standing
at any moment, rate x mean life, count in --sessions). After --warmup s of churn, over a window
of --window s: CPU time (utime + stime, /proc/PID/task/TID/stat) of A and of B, the control
thread (the main thread) apart from the workers; the bytes A's stream to B carried (acknowledged,
from `ss -ti`); the load's own CPU. Then the churn stops and B's vigil_peer_sessions must equal
A's vigil_peer_sessions_sent and the sessions the client holds; B's RssAnon is read with its
peer's sessions known and with none.

It prints per figure the median and range over the rounds, the extra CPU of the sync as % of
one core (peers minus alone, round by round, for A; B's whole CPU, for B), then one JSON line.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for benchlib
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (Processes, finish, free_port, loadavg, log, machine_cpu, machine_info,  # noqa: E402
                      on_sigterm, raise_nofile, run_main, wait_until)
from nodes import Load, Node, stream_bytes, threads_cpu  # noqa: E402
from report import print_report, summarize  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VIGIL = ROOT / "build/release/src/daemon/vigil"
# What vigil keeps back from its descriptor limit for all but sessions (daemon/fd_budget.cc: 64
# fixed, the admin API's 64, 64 idle check sockets, the listeners), with room to spare.
VIGIL_RESERVE = 256


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


def sample(a, b, load):
    """Everything the window's figures are differences of."""
    client, echo = load.cpu()
    return {"t": time.monotonic(), "a": threads_cpu(a.proc.pid), "b": threads_cpu(b.proc.pid) if b else None,
            "client": client, "echo": echo, "machine": machine_cpu(),
            "stream": stream_bytes(b.peer_ports["b"]) if b else None, "load": load.stat()}


def run_once(mode, args, tmp, procs, load, held):
    """One run, `mode` "peers" or "alone": its raw figures."""
    peers = mode == "peers"
    ports = {"a": free_port(), "b": free_port()} if peers else {}
    max_conn = args.sessions + args.rate * args.max_life // 1000 + 100
    b = Node(procs, tmp, args.vigil, "b", load.echo_port, ports, args.workers, max_conn) if peers else None
    a = Node(procs, tmp, args.vigil, "a", load.echo_port, ports, args.workers, max_conn)
    out = {"mode": mode}
    try:
        if b:
            b.start()
        a.start()
        if b:
            if not wait_until(lambda: b.metric("vigil_peer_up", peer="a", direction="receive") == 1
                              and a.metric("vigil_peer_up", peer="b", direction="send") == 1, 15, 0.1):
                raise RuntimeError("A's stream to B did not come up within 15 s")
            out["b_rss_anon_kb_none"] = b.rss_anon_kb()
        load.start_client(a.listen_port, args.min_life, args.max_life)
        load.say(f"hold {held}")
        if not wait_until(lambda: sum(load.stat()[k] for k in ("held", "failed")) >= held, 180, 0.2):
            raise RuntimeError(f"only {load.stat()['held']} of {held} sessions held after 180 s")
        if b:
            if not wait_until(lambda: b.metric("vigil_peer_sessions", peer="a") == held, 10, 0.1):
                raise RuntimeError(f"B knows {b.metric('vigil_peer_sessions', peer='a')} of A's {held} sessions")
            out["b_rss_anon_kb_known"] = b.rss_anon_kb()
        load.say(f"churn {args.rate}")
        time.sleep(args.warmup)
        first = sample(a, b, load)
        time.sleep(args.window)
        last = sample(a, b, load)
        if b:  # during the churn: within one 200 ms round of each other
            out["a_sent_churning"] = a.metric("vigil_peer_sessions_sent")
            out["b_known_churning"] = b.metric("vigil_peer_sessions", peer="a")
        load.say("calm")
        time.sleep(args.max_life / 1000 + 1.0)  # every short session closed, and a sync round after
        after = load.stat()
        out["held_end"] = after["held"] + after["short"]
        if b:
            out["a_sent_end"] = a.metric("vigil_peer_sessions_sent")
            out["b_known_end"] = b.metric("vigil_peer_sessions", peer="a")
            out["b_rss_anon_kb_end"] = b.rss_anon_kb()
            out["b_lost"] = b.metric("vigil_peer_lost_total", peer="a")
        out["a_rss_anon_kb_end"] = a.rss_anon_kb()
        out.update(window(first, last))
        return out
    finally:
        if load.client is not None:
            load.say("drop")
            load.stop_client()
        a.stop()
        if b:
            b.stop()


def window(first, last):
    dt = last["t"] - first["t"]
    core = lambda x, y: 100 * (y - x) / dt  # noqa: E731  CPU seconds a second, as % of one core
    out = {"seconds": round(dt, 2)}
    for node in ("a", "b"):
        if first[node] is not None:
            for part in ("control", "workers"):
                out[f"{node}_{part}_pct"] = core(first[node][part], last[node][part])
            out[f"{node}_pct"] = out[f"{node}_control_pct"] + out[f"{node}_workers_pct"]
    out["client_pct"] = core(first["client"], last["client"])
    out["echo_pct"] = core(first["echo"], last["echo"])
    out["machine_pct"] = core(first["machine"], last["machine"])
    if first["stream"] is not None and last["stream"] is not None:
        out["stream_bytes_per_s"] = (last["stream"] - first["stream"]) / dt
    out["opened_per_s"] = (last["load"]["opened"] - first["load"]["opened"]) / dt
    out["closed_per_s"] = (last["load"]["closed"] - first["load"]["closed"]) / dt
    out["failed"] = last["load"]["failed"]
    out["sessions"] = last["load"]["held"] + last["load"]["short"] + last["load"]["pending"]
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
        load = Load(procs, tmp, Path(__file__).resolve().parent / "load.c")
        log(f"echo on {load.echo_port}; {held} long-lived sessions, {args.rate} short ones a second "
            f"({args.min_life}-{args.max_life} ms): about {total} in all")
        for rnd in range(args.rounds):
            for mode in (("peers", "alone") if rnd % 2 == 0 else ("alone", "peers")):
                log(f"round {rnd + 1}/{args.rounds}: {mode}")
                r = run_once(mode, args, tmp, procs, load, held)
                r["round"] = rnd + 1
                log("  " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                     for k, v in r.items() if k not in ("mode", "round")))
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
