#!/usr/bin/env python3
"""A replaced vigil node behind Octavia: how long the vigil provider agent takes to give an empty
node every load balancer Octavia holds, and what the agent costs while nothing changes.

The real Octavia 11 driver agent (Debian's octavia-driver-agent, SQLite; testing/harness/
octavia_harness.py) runs the vigil provider agent against one vigil node, with the defaults a
cloud runs (status_interval 5 s, resync_polls 12, request_timeout 10 s). Octavia's database is
filled first with --lbs load balancers, ACTIVE (populate.py: a TCP listener, a pool with a TCP
monitor and three members each), and the node starts empty. Figures:
- first fill: from the agent's start until the node holds every load balancer whole;
- idle: the CPU of the vigil provider agent's process, of the driver agent's whole process tree
  (its status, statistics and lookup listeners too) and of vigil, over --idle seconds with
  nothing changing (at least one resync, which compares every load balancer in full);
- replaced: the node killed (SIGKILL) and started again empty on the same address; the time from
  its start until it holds every load balancer whole.
The targets (a replaced node with 1,000 load balancers reconciled within 60 s, the agent at most
5 % of a core when nothing changes) are printed beside the figures as ratios. Octavia's own
amphora driver, the peer, needs Nova and Neutron to fail an amphora over, which this machine does
not have, so no peer runs here.

Loopback only; every process is started here and stopped at the end; every wait is bounded; files
go to a directory under /tmp. Benchmarks print numbers and never gate CI.

    python3 -m bench.octavia_reconcile.run [--lbs 1000] [--idle 65] [--keep-tmp]
"""

import argparse
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.benchlib import emit_json, fmt, loadavg, log, machine_info, process_cpu, process_tree, raise_nofile

TARGET_SECONDS = 60.0
TARGET_CORE = 0.05
POPULATE = Path(__file__).resolve().parent / "populate.py"
CONFIG = """
admin:
  listen: 127.0.0.1:{port}
  token_file: @TOKEN_FILE@
  state_file: {state_file}
"""


def held(node):
    """How many of the API's load balancers the node holds whole (a listener, a monitored pool
    of three members)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(f"http://{node.admin}/v1/status",
                                 headers={"X-Auth-Token": node_token(node)})
    with opener.open(req, timeout=30) as r:
        doc = json.loads(r.read())
    whole = 0
    for lb in doc.get("loadbalancers", []):
        pools = lb.get("pools", [])
        if (not lb["loadbalancer"].get("source_file") and len(lb.get("listeners", [])) == 1 and
                len(pools) == 1 and len(pools[0]["members"]) == 3 and pools[0]["health_monitor"]):
            whole += 1
    return whole


def node_token(node):
    return (node.dir / "token").read_text().strip()


def wait_held(node, lbs, timeout):
    """Seconds until the node holds `lbs` load balancers whole; None after `timeout`."""
    start = time.monotonic()
    last = -1
    while time.monotonic() - start < timeout:
        count = held(node)
        if count != last:
            log(f"  the node holds {count} of {lbs} load balancers "
                f"({time.monotonic() - start:.1f}s)")
            last = count
        if count >= lbs:
            return time.monotonic() - start
        time.sleep(1.0)
    return None


def provider_agent_pid(octavia):
    """The vigil provider agent's process: octavia-driver-agent logs the PID it started."""
    found = re.search(r'provider agent: "vigil" with PID: (\d+)', octavia.log_text("agent"))
    if found is None:
        raise RuntimeError("octavia-driver-agent did not start the vigil provider agent")
    return int(found.group(1))


def statistics_rows(octavia):
    """How many listeners have statistics in Octavia's SQLite database."""
    with sqlite3.connect(octavia.dir / "octavia.db", timeout=10) as db:
        return db.execute("SELECT COUNT(DISTINCT listener_id) FROM listener_statistics").fetchone()[0]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lbs", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=65.0,
                        help="seconds of idle measurement (a resync every 60 s)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds to wait for a fill before giving up")
    parser.add_argument("--keep-tmp", action="store_true")
    args = parser.parse_args(argv)
    raise_nofile(65536)  # vigil inherits it: a listening socket per listener and worker
    # Imported here: the harness finds the vigil build from VIGIL_BUILD at import.
    from testing.harness.octavia_harness import PYTHON, Octavia, missing
    from testing.harness.vigil_process import Vigil
    from testing.harness.octavia_api import free_port
    from testing.harness.wait import wait_for
    why = missing()
    if why:
        log(f"cannot run: {why}")
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="vigil-bench-octavia-"))
    log(f"machine: {machine_info()}; files in {tmp}")
    port = free_port()
    nodes = []
    octavia = None

    def start_node(state):
        node_dir = tmp / "node"
        node_dir.mkdir(exist_ok=True)
        (node_dir / state).unlink(missing_ok=True)
        node = Vigil(node_dir, CONFIG.format(port=port, state_file=node_dir / state))
        nodes.append(node)
        return node

    def populate(o):
        started = time.monotonic()
        subprocess.run([PYTHON, str(POPULATE), "--config-file", str(o.conf), "--lbs",
                        str(args.lbs)], check=True, env=o.env, timeout=600, capture_output=True)
        log(f"Octavia's database holds {args.lbs} load balancers "
            f"({time.monotonic() - started:.1f}s)")

    result = {"lbs": args.lbs, "load_before": loadavg()}
    try:
        node = start_node("state-1.json")
        start = time.monotonic()
        octavia = Octavia(tmp, node.admin, node.dir / "token", populate=populate,
                          vigil_options="status_interval = 5\nrequest_timeout = 10\n")
        log(f"Octavia's API and driver agent are up ({time.monotonic() - start:.1f}s)")
        first = wait_held(node, args.lbs, args.timeout)
        # From the moment Octavia's processes are up: the agent starts before the API answers.
        result["first_fill_s"] = first
        log(f"first fill: {fmt(first)} s after Octavia was up")

        # The first poll after the fill writes every listener's statistics once (Octavia's
        # statistics driver: a transaction each); the idle window starts after it.
        settle = time.monotonic()
        wait_for(lambda: statistics_rows(octavia) >= args.lbs, args.timeout, interval=1.0,
                 what="every listener's statistics in Octavia's database")
        log(f"statistics written for every listener ({time.monotonic() - settle:.1f}s)")
        agent = process_tree(octavia.agent.pid)
        provider = [provider_agent_pid(octavia)]
        vigil_pid = node.proc.pid
        cpu0, vigil0, t0 = process_cpu(agent), process_cpu([vigil_pid]), time.monotonic()
        provider0 = process_cpu(provider)
        time.sleep(args.idle)  # the measurement window itself: nothing to wait for
        agent = process_tree(octavia.agent.pid)
        elapsed = time.monotonic() - t0
        result["idle_provider_agent_core"] = (process_cpu(provider) - provider0) / elapsed
        result["idle_driver_agent_tree_core"] = (process_cpu(agent) - cpu0) / elapsed
        result["idle_vigil_core"] = (process_cpu([vigil_pid]) - vigil0) / elapsed
        log(f"idle over {elapsed:.0f}s: the vigil provider agent "
            f"{result['idle_provider_agent_core']:.1%} of a core, the driver agent's whole tree "
            f"(its listeners too) {result['idle_driver_agent_tree_core']:.1%}, vigil "
            f"{result['idle_vigil_core']:.1%}")

        node.proc.kill()
        node.proc.wait(timeout=30)
        node.stop()
        node = start_node("state-2.json")
        replaced = wait_held(node, args.lbs, args.timeout)
        result["replaced_s"] = replaced
        log(f"replaced node: every load balancer back in {fmt(replaced)} s")
    finally:
        result["load_after"] = loadavg()
        for node in nodes:
            node.stop()
        if octavia is not None:
            octavia.stop()
        if args.keep_tmp:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    print(f"{'figure':<44}{'measured':>12}{'target':>10}{'ratio':>8}")
    rows = [("replaced node reconciled, s", result.get("replaced_s"), TARGET_SECONDS),
            ("provider agent idle, share of a core", result.get("idle_provider_agent_core"),
             TARGET_CORE)]
    for name, got, target in rows:
        ratio = fmt(got / target, 2) if got is not None else "-"
        print(f"{name:<44}{fmt(got, 3):>12}{fmt(target, 3):>10}{ratio:>8}")
    print(f"{'first fill after Octavia was up, s':<44}{fmt(result.get('first_fill_s'), 3):>12}")
    print(f"{'driver agent tree idle, share of a core':<44}"
          f"{fmt(result.get('idle_driver_agent_tree_core'), 3):>12}")
    print(f"{'vigil idle, share of a core':<44}{fmt(result.get('idle_vigil_core'), 3):>12}")
    emit_json(result)
    return 0 if result.get("replaced_s") is not None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
