#!/usr/bin/env python3
"""What vigil on every node costs the API servers, and what it costs each node.

N node-local vigils (default 1,000 processes, as N nodes would run them) each run the shipped
preset, deploy/kubernetes/node-local/vigil.yaml, with only its addresses changed: listeners on
127.0.0.1 ports the kernel picks (no [::1]), the admin API on one too, and the three bootstrap
masters pointed at three nginx TLS servers (127.0.0.21-23, one port) answering 200 on /readyz,
standing in for kube-apiserver, and its backup member (the VIP) at one of them, a third of the
nodes each. members_from is left out: a node's watch costs an API server one
long-lived connection and about one request per 300 s (its timeout), which the text below adds.

After --warmup seconds (long enough for the once-a-minute fresh connection of kept checks to
settle), it reads nginx's access log for --seconds and reports, per API server and scaled to
1,000 nodes: requests/s, full TLS handshakes/s (a new connection whose session was not resumed),
resumed handshakes/s, and connections/s; and per node: private memory (RssAnon, mean and max)
and CPU (% of a core) over the same window. The issue's targets: at most 200 requests/s and 20
full handshakes/s per API server per 1,000 nodes; under 8 MB RssAnon and 0.5 % of a core idle.

Run as root (nginx): sudo bench/node_local/run.sh [--nodes 1000] [--seconds 60] [--warmup 70]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import benchlib
from bench.benchlib import CLK_TCK, Processes, log
from testing.harness.wait import wait_until

ROOT = Path(__file__).resolve().parents[2]
PRESET = ROOT / "deploy/kubernetes/node-local/vigil.yaml"
MASTERS = ["127.0.0.21", "127.0.0.22", "127.0.0.23"]


def default_vigil():
    for build in ("release", "dev"):
        path = ROOT / f"build/{build}/src/daemon/vigil"
        if path.exists():
            return str(path)
    return "vigil"


def render_preset(port, token, vip):
    """The shipped preset with the bench's addresses: every line it changes is named here. The
    VIP, a backup member, is one of the masters: in a cluster it leads through the external load
    balancer to one of them, and `vip` spreads the nodes over the three as that would."""
    text = PRESET.read_text()
    swaps = {
        'listen: "127.0.0.1:7446"': 'listen: "127.0.0.1:0"',
        "token_file: /etc/vigil/token": f"token_file: {token}",
        'bind: "127.0.0.1:7445"': 'bind: "127.0.0.1:0"',
        "address: 10.0.0.11, port: 6443": f"address: {MASTERS[0]}, port: {port}",
        "address: 10.0.0.12, port: 6443": f"address: {MASTERS[1]}, port: {port}",
        "address: 10.0.0.13, port: 6443": f"address: {MASTERS[2]}, port: {port}",
        "address: 10.0.0.10, port: 6443": f"address: {vip}, port: {port}",
    }
    for old, new in swaps.items():
        if old not in text:
            raise SystemExit(f"{PRESET} no longer has {old!r}: update render_preset()")
        text = text.replace(old, new)
    out = []
    skip = False
    for line in text.splitlines():
        if "name: api-v6" in line:
            continue  # no [::1] on every bench machine
        if line.strip().startswith("members_from:"):
            skip = True
            continue
        if skip and line.strip().startswith("kubernetes:"):
            continue
        skip = False
        out.append(line)
    return "\n".join(out) + "\n"


def start_nginx(procs, tmp, port, nodes):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-days", "2", "-subj", "/CN=kubernetes", "-keyout", f"{tmp}/tls.key",
                    "-out", f"{tmp}/tls.crt"], check=True, capture_output=True, timeout=30)
    listens = "\n".join(f"        listen {a}:{port} ssl;" for a in MASTERS)
    conf = Path(tmp) / "nginx.conf"
    conf.write_text(f"""\
user root;
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
worker_rlimit_nofile {nodes * 8 + 1024};
events {{ worker_connections {nodes * 4 + 1024}; }}
http {{
    log_format checks '$msec $server_addr $connection $connection_requests $ssl_session_reused';
    access_log {tmp}/access.log checks buffer=64k flush=1s;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    ssl_certificate {tmp}/tls.crt;
    ssl_certificate_key {tmp}/tls.key;
    ssl_session_cache shared:checks:10m;
    keepalive_timeout 75s;
    keepalive_requests 100000;
    server {{
{listens}
        location = /readyz {{ return 200 "ok"; }}
    }}
}}
""")
    p = procs.spawn("nginx", ["nginx", "-p", tmp, "-e", f"{tmp}/error.log", "-c", str(conf)])
    if not wait_until(lambda: all(benchlib.listening(port, a) for a in MASTERS), 10):
        raise SystemExit(f"nginx did not listen:\n{benchlib.tail(p.logpath)}")
    return p


def start_vigils(procs, tmp, vigil, nodes, port):
    token = Path(tmp) / "token"
    token.write_text("bench-token\n")
    token.chmod(0o600)
    configs = []
    for i, vip in enumerate(MASTERS):
        configs.append(Path(tmp) / f"vigil-{i}.yaml")
        configs[-1].write_text(render_preset(port, token, vip))
    started = []
    for i in range(nodes):
        ready = Path(tmp) / f"node-{i}.ready"
        config = configs[i % len(configs)]
        started.append((procs.spawn(f"node-{i}", [vigil, "serve", "-c", str(config),
                                                   "--ready-file", str(ready)]), ready))
        if i % 100 == 99:
            log(f"started {i + 1} vigils")
    for p, ready in started:
        if not wait_until(lambda: ready.exists() or p.poll() is not None, 60):
            raise SystemExit(f"{p.name} not ready:\n{benchlib.tail(p.logpath)}")
        if p.poll() is not None:
            raise SystemExit(f"{p.name} exited:\n{benchlib.tail(p.logpath)}")
    return [p for p, _ in started]


def rss_anon_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def read_log(path, start, end):
    """(requests, full handshakes, resumed handshakes, connections) per server address."""
    per = {a: [0, 0, 0, 0] for a in MASTERS}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 5 or not start <= float(parts[0]) < end or parts[1] not in per:
                continue
            counts = per[parts[1]]
            counts[0] += 1
            if parts[3] == "1":  # the connection's first request: its handshake
                counts[3] += 1
                counts[1 if parts[4] == "." else 2] += 1
    return per


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    ap.add_argument("--warmup", type=float, default=70.0)
    ap.add_argument("--vigil", default=default_vigil())
    ap.add_argument("--json-out")
    ap.add_argument("--keep-tmp", action="store_true")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("run.py: run as root (nginx)", file=sys.stderr)
        return 2
    nofile = benchlib.raise_nofile(args.nodes * 16 + 4096)
    tmp = tempfile.mkdtemp(prefix="vigil-bench-node-local-", dir="/tmp")
    procs = Processes(tmp, nofile, grace=10)
    try:
        port = benchlib.free_port()
        start_nginx(procs, tmp, port, args.nodes)
        log(f"nginx TLS on {', '.join(MASTERS)}:{port}; starting {args.nodes} vigils ({args.vigil})")
        vigils = start_vigils(procs, tmp, args.vigil, args.nodes, port)
        log(f"warming up {args.warmup:.0f} s")
        time.sleep(args.warmup)
        start = time.time()
        ticks = {p.pid: cpu_ticks(p.pid) for p in vigils}
        time.sleep(args.seconds)
        end = time.time()
        cpu = [(cpu_ticks(p.pid) - ticks[p.pid]) / CLK_TCK / (end - start) * 100 for p in vigils]
        rss = [rss_anon_kb(p.pid) / 1024 for p in vigils]
        time.sleep(2)  # nginx flushes its log buffer every second
        per = read_log(Path(tmp) / "access.log", start, end)
    finally:
        benchlib.finish(procs, tmp, args.keep_tmp)
    scale = 1000 / args.nodes
    window = end - start
    rows = {a: {"requests_per_s": c[0] / window * scale,
                "full_handshakes_per_s": c[1] / window * scale,
                "resumed_handshakes_per_s": c[2] / window * scale,
                "connections_per_s": c[3] / window * scale} for a, c in per.items()}
    print(f"\n{args.nodes} node-local vigils ({args.vigil}), {window:.0f} s measured after "
          f"{args.warmup:.0f} s; per API server, scaled to 1,000 nodes:")
    print(f"{'API server':<14}{'requests/s':>12}{'full TLS/s':>12}{'resumed/s':>11}{'conns/s':>9}")
    for a, r in rows.items():
        print(f"{a:<14}{r['requests_per_s']:>12.1f}{r['full_handshakes_per_s']:>12.1f}"
              f"{r['resumed_handshakes_per_s']:>11.1f}{r['connections_per_s']:>9.1f}")
    print(f"plus members_from's watch: 1,000 long-lived connections and about "
          f"{1000 / 300:.1f} requests/s (one per node per 300 s)")
    print(f"per node: RssAnon mean {statistics.mean(rss):.2f} MB, max {max(rss):.2f} MB; "
          f"CPU mean {statistics.mean(cpu):.3f} %, max {max(cpu):.3f} % of a core")
    benchlib.emit_json({"bench": "node_local", "nodes": args.nodes, "seconds": window,
                        "warmup": args.warmup, "per_api_server_per_1000_nodes": rows,
                        "rss_anon_mb": {"mean": statistics.mean(rss), "max": max(rss)},
                        "cpu_pct": {"mean": statistics.mean(cpu), "max": max(cpu)},
                        "machine": benchlib.machine_info()}, args.json_out)
    return 0


if __name__ == "__main__":
    benchlib.run_main(main, sys.argv[1:])
