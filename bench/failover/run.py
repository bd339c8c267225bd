#!/usr/bin/env python3
"""Failover benchmark: what API clients see when a master is lost, behind vigil, HAProxy with the
seeds' configurations and NGINX stream.

The experiment is the system tests' (testing/harness/netns.py, reused as is): in a private
network namespace, three simulated kube-apiservers on 127.0.0.11-13:6443; in front of them the
load balancers under test on 127.0.0.1; per load balancer three clients that run for the whole
scenario (a new TLS connection + GET every 200 ms, the real kubectl about once a second, one
long-lived watch pinned to master-01 at start); then master-01 is taken away:

  power-off  iptables DROP of 127.0.0.11 in and out + SIGSTOP (no answer, no RST); after 20 s the
             rules go, the frozen process is killed and a new one starts with a 10 s warm-up
             (/readyz fails, /api answers 401, like an apiserver that is up but not ready)
  graceful   SIGTERM with --shutdown-delay 30s (/readyz fails with [-]shutdown while everything
             else is still served, then it closes); restarted with the warm-up once it exited
  crash      SIGKILL; restarted with the warm-up 10 s later
  hang       SIGSTOP only (its kernel still accepts and ACKs, nothing answers); after 20 s killed
             and restarted with the warm-up
  reset      new connections reset at once (apisim /sim/fault?mode=reset; those accepted before
             are still served); after 20 s killed and restarted with the warm-up
  read-reset new connections read (the ClientHello), then reset with nothing sent back; after
             20 s killed and restarted with the warm-up
  rolling-restart
             the three masters one after another: SIGTERM with --shutdown-delay 5s, restart with
             a 3 s warm-up, the next once it is back in rotation (or ready, for NGINX)

By default every target runs in the same namespace at the same time, so they all see the very same
fault at the same instant and a run of all three scenarios takes about four minutes; `--serial`
gives each target its own namespace and run instead (about seven times as long).

It prints one table (what the columns mean: docs/failover.md) and one JSON line.

Targets (`--targets`, comma-separated; default all):

  vigil                     tests/system's pool: HTTPS /readyz every 2 s, fast 500 ms, timeout 1 s,
                            2 up / 2 down, connect_timeout 1 s (hedging etc. at their defaults)
  haproxy-nocheck           seed 1: Octavia's amphora backend with no health monitor
                            (retries 3 + option redispatch, timeout connect 5 s)
  haproxy-ssl-hello         seed 2, "before": option ssl-hello-chk + check (inter 2 s fall 3 rise 2)
  haproxy-readyz-10s        seed 2, "after": option httpchk GET /readyz HTTP/1.0 +
                            check check-ssl verify none inter 10s fall 3 rise 2
  haproxy-readyz-5s         the same with inter 5s
  haproxy-octavia-tls-hello seed 1's fix: Octavia TLS-HELLO monitor (delay 5, timeout 10,
                            max-retries 4): option ssl-hello-chk, timeout check 10s,
                            check inter 5s fall 3 rise 4
  nginx                     NGINX stream, passive only (max_fails 1, fail_timeout 10s,
                            proxy_connect_timeout 60s: the defaults)

Seed 2's HAProxy keeps "the global and defaults sections as installed" on a RHEL bastion: those
are RHEL 8's /etc/haproxy/haproxy.cfg defaults (retries 3, option redispatch, timeout connect 10s,
timeout client/server 1m, timeout check 10s), written out below. Seed 1's backends come with
Octavia's defaults as the seed shows them (retries 3, option redispatch) and Octavia's listener
timeouts (client and server 50 s, connect 5 s).

Needs root, iproute2, iptables, haproxy, nginx + libnginx-mod-stream (run.sh installs what is
missing), the real kubectl (optional: without it the kubectl column is empty), and built vigil
and vigil-apisim binaries (default build/dev; --build DIR). Python 3 standard library only.
"""
import argparse
import csv
import io
import json
import math
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

from testing.harness import netns as h
from testing.harness.paths import APISIM, VIGIL
from testing.harness.wait import wait_for

NGINX_STREAM_MODULE = "/usr/lib/nginx/modules/ngx_stream_module.so"

# RHEL 8's default /etc/haproxy/haproxy.cfg "defaults" section (seed 2: "global and defaults as
# installed"). The HTTP-only options in it are ignored by the tcp frontend (HAProxy warns).
RHEL_DEFAULTS = """\
defaults
    mode                    http
    log                     global
    option                  httplog
    option                  dontlognull
    option http-server-close
    option forwardfor       except 127.0.0.0/8
    option                  redispatch
    retries                 3
    timeout http-request    10s
    timeout queue           1m
    timeout connect         10s
    timeout client          1m
    timeout server          1m
    timeout http-keep-alive 10s
    timeout check           10s
    maxconn                 3000
"""

ARTICLE_FRONTEND = """\
frontend K8s-api
    bind {bind}
    option tcplog
    mode tcp
    default_backend api-6443
"""

# Seed 1: the defaults shown in the bug report, and Octavia's frontend for a TCP listener.
OCTAVIA_DEFAULTS = """\
defaults
    log global
    retries 3
    option redispatch
    option splice-request
    option splice-response
    option http-keep-alive
"""

OCTAVIA_FRONTEND = """\
frontend api-6443-listener
    maxconn 50000
    bind {bind}
    mode tcp
    default_backend api-6443
    timeout client 50000
"""


def servers(fmt):
    return "".join(f"    server {n} {a}:{h.MASTER_PORT} {fmt}\n".replace(" \n", "\n")
                   for n, a in h.MASTERS.items())


def readyz_variant(inter_s, recovery_bound):
    """Seed 2's fix: HTTPS checks of /readyz every `inter_s` seconds, fall 3 rise 2."""
    return dict(
        title=f"httpchk /readyz, inter {inter_s}s fall 3 rise 2 (seed 2 after)",
        defaults=RHEL_DEFAULTS, frontend=ARTICLE_FRONTEND,
        backend="""\
backend api-6443
    mode tcp
    option httpchk GET /readyz HTTP/1.0
    option log-health-checks
    balance roundrobin
""" + servers(f"weight 1 verify none check check-ssl inter {inter_s}s fall 3 rise 2"),
        recovery_bound=recovery_bound)


HAPROXY_TARGETS = {
    "haproxy-nocheck": dict(
        title="Octavia, no health monitor (seed 1)",
        defaults=OCTAVIA_DEFAULTS, frontend=OCTAVIA_FRONTEND,
        backend="""\
backend api-6443
    mode tcp
    balance roundrobin
    fullconn 50000
    option allbackups
    timeout connect 5000
    timeout server 50000
""" + servers("weight 1"),
        recovery_bound=0.0),
    "haproxy-ssl-hello": dict(
        title="ssl-hello-chk, inter 2s fall 3 rise 2 (seed 2 before)",
        defaults=RHEL_DEFAULTS, frontend=ARTICLE_FRONTEND,
        backend="""\
backend api-6443
    mode tcp
    balance roundrobin
    option ssl-hello-chk
""" + servers("check"),
        recovery_bound=10.0),
    "haproxy-readyz-10s": readyz_variant(inter_s=10, recovery_bound=35.0),
    "haproxy-readyz-5s": readyz_variant(inter_s=5, recovery_bound=20.0),
    "haproxy-octavia-tls-hello": dict(
        title="Octavia TLS-HELLO, inter 5s fall 3 rise 4 (seed 1 fix)",
        defaults=OCTAVIA_DEFAULTS, frontend=OCTAVIA_FRONTEND,
        backend="""\
backend api-6443
    mode tcp
    balance roundrobin
    timeout check 10s
    option ssl-hello-chk
    fullconn 50000
    option allbackups
    timeout connect 5000
    timeout server 50000
""" + servers("weight 1 check inter 5s fall 3 rise 4"),
        recovery_bound=25.0),
}

ALL_TARGETS = ["vigil", "vigil-seed", *HAPROXY_TARGETS, "nginx"]
TITLES = {"vigil": "vigil (HTTPS /readyz 2s, 2/2, hedged connects)",
          "vigil-seed": "vigil with the seed's checks (HTTPS /readyz 5s, timeout 2s, 2 up / 3 down)",
          "nginx": "NGINX stream, passive only (defaults)",
          **{k: v["title"] for k, v in HAPROXY_TARGETS.items()}}


class HAProxyLB(h.LoadBalancer):
    exposes_state = True

    def __init__(self, key, port):
        super().__init__(port)
        self.key = key
        self.spec = HAPROXY_TARGETS[key]
        self.recovery_bound = self.spec["recovery_bound"]

    def start(self, ns, workdir):
        d = Path(workdir) / self.key
        d.mkdir(parents=True, exist_ok=True)
        self.sock = d / "stats.sock"
        cfg = d / "haproxy.cfg"
        cfg.write_text(
            "# Written by bench/failover/run.py: " + self.spec["title"] + "\n"
            "global\n"
            "    maxconn 4096\n"
            "    log stdout format raw local0 info\n"
            f"    stats socket {self.sock} mode 600 level admin\n\n"
            + self.spec["defaults"] + "\n"
            + self.spec["frontend"].format(bind=f"{h.LB_HOST}:{self.port}") + "\n"
            + self.spec["backend"])
        self.log_path = d / "haproxy.log"
        check = ns.run(["haproxy", "-c", "-f", cfg], check=False)
        if check.returncode != 0:
            raise RuntimeError(f"{self.key}: haproxy -c failed:\n{check.stdout}{check.stderr}")
        self.proc = ns.spawn(["haproxy", "-db", "-f", cfg], self.log_path)
        wait_for(lambda: self._stat_rows() is not None, 10, what=f"{self.key} stats socket")

    def _stat_rows(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"{self.key} exited with {self.proc.returncode}: {self.log_text()[-2000:]}")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(str(self.sock))
                s.sendall(b"show stat\n")
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
        except OSError:
            return None
        text = data.decode(errors="replace").lstrip("# ")
        return list(csv.DictReader(io.StringIO(text)))

    def member_state(self, name):
        rows = self._stat_rows() or []
        for r in rows:
            if r.get("pxname") == "api-6443" and r.get("svname") == name:
                status = r.get("status", "")
                return {"status": status,
                        "in_rotation": status.startswith("UP") or status == "no check",
                        "reason": f"{r.get('check_status', '')} {r.get('last_chk', '')}".strip()}
        return None

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except (AttributeError, FileNotFoundError):
            return ""


class NginxLB(h.LoadBalancer):
    key = "nginx"
    exposes_state = False

    def start(self, ns, workdir):
        d = Path(workdir) / "nginx"
        d.mkdir(parents=True, exist_ok=True)
        ups = "".join(f"        server {a}:{h.MASTER_PORT};\n" for a in h.MASTERS.values())
        conf = d / "nginx.conf"
        conf.write_text(f"""\
# Written by bench/failover/run.py: NGINX stream with its defaults (passive health only:
# max_fails=1 fail_timeout=10s, proxy_connect_timeout 60s, proxy_next_upstream on).
load_module {NGINX_STREAM_MODULE};
daemon off;
master_process on;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 4096; }}
stream {{
    upstream masters {{
{ups}    }}
    server {{
        listen {h.LB_HOST}:{self.port};
        proxy_pass masters;
    }}
}}
""")
        self.log_path = d / "error.log"
        check = ns.run(["nginx", "-t", "-p", d, "-c", conf, "-e", d / "error.log"], check=False)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t failed:\n{check.stdout}{check.stderr}")
        self.proc = ns.spawn(["nginx", "-p", d, "-c", conf, "-e", d / "error.log"], d / "nginx.out")
        wait_for(lambda: ns.call(h.tcp_connect_outcome, h.LB_HOST, self.port, 0.5) == "connected",
                   10, what="nginx listening")

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except (AttributeError, FileNotFoundError):
            return ""


def make_lb(key, port, vigil_binary):
    if key == "vigil":
        return h.VigilLB(port, binary=vigil_binary)
    if key == "vigil-seed":
        lb = h.VigilLB(port, binary=vigil_binary, monitor=h.SEED_HEALTH_MONITOR)
        lb.key = "vigil-seed"  # its own row beside `vigil`
        return lb
    if key == "nginx":
        return NginxLB(port)
    return HAProxyLB(key, port)


# ---------------------------------------------------------------------------------------------
# One row of the table

def row(res):
    nc = res.summary(res.newconn)
    kc = res.summary(res.kubectl) if res.kubectl else None
    lat = [r.latency for r in res.all_requests()]
    md, mu = res.mark_down(), res.mark_up()
    went_out = md is not None
    return {
        "scenario": res.scenario,
        "target": res.lb.key,
        "newconn_failed": nc.failures, "newconn_total": nc.count,
        "kubectl_failed": kc.failures if kc else None, "kubectl_total": kc.count if kc else None,
        "watch_failed": len(res.watch_failed_connects()),
        "http_401": nc.http_401 + (kc.http_401 if kc else 0),
        "max_s": max(lat, default=0.0),
        "p99_s": nc.p99,
        "stalled_s": res.stalled_seconds(),
        "watch_gap_s": res.watch_max_gap(),
        "watch_reconnected": res.watch_reconnected_after_fault(),
        "watch_pinned": res.watch.pinned,
        "mark_down_s": md if went_out else (None if not res.lb.exposes_state else math.inf),
        "mark_up_s": mu if went_out else None,
        "exposes_state": res.lb.exposes_state,
        "errors": [f"{t:+.1f}s {ph}: {e}" for t, ph, e in (nc.errors + (kc.errors if kc else []))[:8]],
    }


def fmt_s(v, digits=1):
    if v is None:
        return "-"
    if v == math.inf:
        return "never"
    return f"{v:.{digits}f}"


COLUMNS = [
    ("scenario", "scenario", lambda r: r["scenario"]),
    ("target", "target", lambda r: r["target"]),
    ("newconn", "new-conn failed", lambda r: f"{r['newconn_failed']}/{r['newconn_total']}"),
    ("kubectl", "kubectl failed", lambda r: "-" if r["kubectl_total"] is None else f"{r['kubectl_failed']}/{r['kubectl_total']}"),
    ("watch", "watch failed", lambda r: str(r["watch_failed"])),
    ("401", "401s", lambda r: str(r["http_401"])),
    ("max", "max s", lambda r: fmt_s(r["max_s"], 2)),
    ("p99", "new-conn p99 s", lambda r: fmt_s(r["p99_s"], 2)),
    ("stalled", "stalled s", lambda r: fmt_s(r["stalled_s"])),
    ("gap", "watch gap s", lambda r: fmt_s(r["watch_gap_s"]) + ("" if r["watch_reconnected"] else " (stuck)")),
    ("down", "out after s", lambda r: fmt_s(r["mark_down_s"]) if r["exposes_state"] else "n/a"),
    ("up", "back after restart s", lambda r: fmt_s(r["mark_up_s"]) if r["exposes_state"] else "n/a"),
]


def table(rows, markdown=False):
    heads = [c[1] for c in COLUMNS]
    cells = [[c[2](r) for c in COLUMNS] for r in rows]
    if markdown:
        out = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" if i < 2 else "--:" for i in range(len(heads))) + "|"]
        out += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(out)
    widths = [max(len(x) for x in col) for col in zip(heads, *cells)]
    line = lambda xs: "  ".join(x.ljust(w) if i < 2 else x.rjust(w) for i, (x, w) in enumerate(zip(xs, widths)))  # noqa: E731
    return "\n".join([line(heads), line(["-" * w for w in widths])] + [line(c) for c in cells])


# ---------------------------------------------------------------------------------------------

def check_tools(targets):
    missing = []
    if os.geteuid() != 0:
        sys.exit("run.py: run as root (network namespaces, iptables); bench/failover/run.sh does set-up")
    for tool in ("ip", "iptables"):
        if shutil.which(tool) is None:
            missing.append(tool)
    if any(t.startswith("haproxy") for t in targets) and shutil.which("haproxy") is None:
        missing.append("haproxy")
    if "nginx" in targets and (shutil.which("nginx") is None or not os.path.exists(NGINX_STREAM_MODULE)):
        missing.append("nginx + libnginx-mod-stream")
    for b in (VIGIL, APISIM):
        if not b.exists():
            missing.append(f"{b} (build it: cmake --preset dev && cmake --build --preset dev)")
    if missing:
        sys.exit("run.py: missing: " + ", ".join(missing) + " (bench/failover/run.sh installs the packages)")


def run_one(scenario, keys, workdir, vigil_binary, kubectl, log):
    """One scenario with the given targets in one fresh namespace."""
    ns = h.NetNS("vigil-fo")
    lbs = [make_lb(k, h.MASTER_PORT + i, vigil_binary) for i, k in enumerate(keys)]
    exp = h.Experiment(ns, workdir, lbs, kubectl=kubectl, log=log)
    try:
        results = exp.run(scenario)
    finally:
        exp.stop_all()
        ns.destroy()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", default=",".join(h.SCENARIOS),
                    help=f"comma-separated: {','.join(h.SCENARIOS)} (default: all)")
    ap.add_argument("--targets", default=",".join(ALL_TARGETS),
                    help="comma-separated, default all: " + ",".join(ALL_TARGETS))
    ap.add_argument("--serial", action="store_true",
                    help="one namespace and run per target (default: all targets at once, same fault)")
    ap.add_argument("--build", help="build directory with vigil and vigil-apisim (default build/dev)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown too")
    ap.add_argument("--json-out", help="also write the results as JSON to this file")
    ap.add_argument("--keep-tmp", action="store_true", help="keep configs and logs")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each client's summary lines")
    args = ap.parse_args()

    # --build chooses vigil; the simulated API servers come from VIGIL_BUILD (testing/harness/paths.py).
    vigil = Path(args.build).resolve() / "src/daemon/vigil" if args.build else VIGIL
    scenarios = [s for s in args.scenarios.split(",") if s]
    targets = [t for t in args.targets.split(",") if t]
    for s in scenarios:
        if s not in h.SCENARIOS:
            sys.exit(f"unknown scenario {s!r} (known: {', '.join(h.SCENARIOS)})")
    for t in targets:
        if t not in ALL_TARGETS:
            sys.exit(f"unknown target {t!r} (known: {', '.join(ALL_TARGETS)})")
    check_tools(targets)
    kubectl = h.find_kubectl()
    if kubectl is None:
        print("note: kubectl not found; running without the kubectl client", file=sys.stderr)

    # SIGTERM cleans up like Ctrl-C: the finally blocks remove the namespaces.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    tmp = Path(tempfile.mkdtemp(prefix="vigil-failover-"))
    t0 = time.monotonic()

    def log(msg):
        print(f"  {time.monotonic() - t0:7.1f}s {msg}", file=sys.stderr, flush=True)

    print(f"failover benchmark: scenarios {', '.join(scenarios)}; targets {', '.join(targets)}; "
          f"{'serial' if args.serial else 'all targets at once'}; kubectl {kubectl or '-'}; "
          f"vigil {vigil}; work dir {tmp}", file=sys.stderr)
    rows, details = [], []
    try:
        for scenario in scenarios:
            groups = [[t] for t in targets] if args.serial else [targets]
            for group in groups:
                log(f"== {scenario}: {', '.join(group)}")
                wd = tmp / f"{scenario}-{'-'.join(group) if args.serial else 'all'}"
                wd.mkdir(parents=True)
                results = run_one(scenario, group, wd, vigil, kubectl, log)
                for key in group:
                    res = results[key]
                    rows.append(row(res))
                    lines = res.report_lines()
                    details.extend(lines)
                    if args.verbose:
                        print("\n".join(lines), file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if not args.keep_tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    for key in targets:
        print(f"  {key:<26} {TITLES[key]}")
    print()
    print(table(rows))
    if args.markdown:
        print()
        print(table(rows, markdown=True))
    print()
    print(f"total {time.monotonic() - t0:.0f}s")
    out = {"scenarios": scenarios, "targets": targets, "serial": args.serial, "kubectl": kubectl,
           "rows": [{k: (None if v == math.inf else v) for k, v in r.items()} | (
               {"mark_down_never": True} if r["mark_down_s"] == math.inf else {}) for r in rows]}
    print(json.dumps(out))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
