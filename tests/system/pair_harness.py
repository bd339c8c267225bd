"""A keepalived pair of vigil nodes in namespaces the test creates (docs/ha.md shows the same).

  switch namespace:  bridge br0, one veth port per node
  lb-a, lb-b:        eth0 10.99.0.11/24 and 10.99.0.12/24 on the bridge; on each node's loopback
                     three vigil-apisim (127.0.0.11-13:6443), vigil with its VIP listener
                     10.99.0.100:6443 (freebind) and admin 127.0.0.1:8404, and keepalived whose
                     vrrp_script runs `vigil health --exit-code`
  client:            eth0 10.99.0.50/24; new TLS connections to the VIP

Every address exists only inside these namespaces; NetNS.destroy() removes them and every
process in them. Standard library only.
"""
from __future__ import annotations

import dataclasses
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from testing.harness.netns import (MASTERS, REQUEST_TIMEOUT, WATCH_PATH, Master, NetNS,
                                   insecure_tls, require_netns)
from testing.harness.kubectl_watch import KubectlWatch
from testing.harness.paths import ROOT, VIGIL
from testing.harness.process import stop
from testing.harness.wait import wait_for
from node_harness import ReconnectingWatch, VigilNode, members_yaml, peers_yaml, veth

SUBNET_PREFIX = 24
VIP = "10.99.0.100"
NODES = {"lb-a": "10.99.0.11", "lb-b": "10.99.0.12"}
PRIORITY = {"lb-a": 100, "lb-b": 90}
CLIENT = "10.99.0.50"
PORT = 6443
ADMIN = "127.0.0.1:8404"
ROUTER_ID = 51
KEEPALIVED = shutil.which("keepalived") or "/usr/sbin/keepalived"

# Fast member checks: the pair test is about the address, not the members.
MONITOR = """      type: HTTPS
      path: /readyz
      interval: 1s
      fast_interval: 200ms
      timeout: 500ms
      healthy_threshold: 1
      unhealthy_threshold: 2"""


def vigil_yaml(token_file, node=None, admin=ADMIN):
    """The config of `node` (a name of NODES): with it, the pair's peers (docs/ha.md), so that the
    node that takes the address over tickles the sessions the other held; the API's objects are
    kept beside the token. `admin`: where the admin API listens."""
    members = members_yaml()
    peers = "" if node is None else peers_yaml(NODES, token_file, node)
    return f"""\
{peers}admin:
  listen: "{admin}"
  token_file: {token_file}
  state_file: {Path(token_file).parent / "state.json"}
listeners:
  - name: api
    bind: "{VIP}:{PORT}"
    freebind: true      # the standby listens before VRRP gives it the address
    pool: masters
pools:
  - name: masters
    health_monitor:
{MONITOR}
    members:
{members}
"""


DEPLOY = ROOT / "deploy" / "keepalived"
SHIPPED_VIGIL = "/usr/bin/vigil"
SHIPPED_TRACK_DIR = "/run/vigil-keepalived"
SHIPPED_TOKEN = "/etc/vigil/token"
SHIPPED_RELOAD = "systemctl try-reload-or-restart keepalived"
# A load balancer created through each node's API (as Octavia's provider driver does), with its
# own address: on neither node until keepalived reads it from `vigil health --vips-file`.
API_VIP = "10.99.0.101"


def substitute(text, replacements):
    """`text` with each placeholder (a whole word) replaced; each must be there."""
    for placeholder, value in replacements.items():
        text, n = re.subn(rf"(?<![\w/.-]){re.escape(placeholder)}(?![\w-])", value, text)
        assert n, f"{placeholder!r} is not in the shipped file"
    return text


def keepalived_conf(node, track_dir):
    """deploy/keepalived/keepalived.conf with `node`'s values for the placeholders."""
    me = NODES[node]
    peer = next(a for n, a in NODES.items() if n != node)
    return substitute((DEPLOY / "keepalived.conf").read_text(), {
        "NODE_NAME": node, "VIP/PREFIX": f"{VIP}/{SUBNET_PREFIX}", "SELF": me, "PEER": peer,
        "IFACE": "eth0", "priority 100": f"priority {PRIORITY[node]}", SHIPPED_VIGIL: str(VIGIL),
        SHIPPED_TRACK_DIR: str(track_dir)})


def tracker_argv(node_dir, track_dir):
    """The ExecStart= of deploy/keepalived/vigil-keepalived-track.service, with this build's vigil,
    the node's directory for /run/vigil-keepalived, its token, and keepalived's reload as systemd
    would do it (SIGHUP, nothing when keepalived does not run)."""
    unit = (DEPLOY / "vigil-keepalived-track.service").read_text()
    lines = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1, lines
    pid = node_dir / "keepalived.pid"
    command = substitute(lines[0].removeprefix("ExecStart="),
                         {SHIPPED_VIGIL: str(VIGIL), SHIPPED_TRACK_DIR: str(track_dir),
                          SHIPPED_TOKEN: str(node_dir / "token"),
                          SHIPPED_RELOAD: f"test ! -e {pid} || kill -HUP $(cat {pid})"})
    return shlex.split(command)


class Node(VigilNode):
    """One load balancer node: its namespace, three masters, vigil and keepalived."""

    def vigil_yaml(self, token_file):
        return vigil_yaml(token_file, self.name, self.admin)

    def __init__(self, name, switch, workdir, admin=ADMIN):
        self.name, self.address, self.admin = name, NODES[name], admin
        self.dir = Path(workdir) / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ns = NetNS(prefix=f"vigil-pair-{name}")
        veth(switch, f"sw-{name}", self.ns, f"{self.address}/{SUBNET_PREFIX}")
        self.masters = [Master(self.ns, self.dir, n, a) for n, a in MASTERS.items()]
        self.keepalived = self.tracker = None
        self.track_dir = self.dir / "run"    # the node's /run/vigil-keepalived
        self.track_dir.mkdir(exist_ok=True)
        self.track_file = self.track_dir / "vigil.track"

    def start_tracker(self):
        """vigil-keepalived-track.service's command; returns once it wrote the track file."""
        self.tracker = self.ns.spawn(tracker_argv(self.dir, self.track_dir), self.dir / "tracker.log")
        wait_for(lambda: self.track_value() is not None, 10, what=f"{self.name}: the track file written")

    def track_value(self):
        try:
            return self.track_file.read_text().strip()
        except FileNotFoundError:
            return None

    def start_keepalived(self):
        conf = self.dir / "keepalived.conf"
        conf.write_text(keepalived_conf(self.name, self.track_dir))
        self.keepalived = self.ns.spawn(
            [KEEPALIVED, "-n", "-l", "-D", "-P", "-f", conf, "-p", self.dir / "keepalived.pid",
             "-r", self.dir / "vrrp.pid"], self.dir / "keepalived.log")

    def health(self):
        r = self.ns.run([VIGIL, "health", "--exit-code", "--admin", f"http://{ADMIN}"], check=False)
        return r.returncode, r.stdout.strip()

    def holds_vip(self, address=VIP):
        # `ip -n` reads the namespace without entering it: cheap enough to poll every 20 ms.
        r = subprocess.run(["ip", "-n", self.ns.name, "-4", "-o", "addr", "show", "dev", "eth0"],
                           capture_output=True, text=True, timeout=5)
        return f" {address}/" in r.stdout

    def create_api_load_balancer(self):
        """A load balancer on API_VIP, ACTIVE_STANDBY: keepalived brings the address."""
        self.create_load_balancer_through_api(ADMIN, API_VIP, PORT, "ACTIVE_STANDBY")

    def mac(self):
        r = subprocess.run(["ip", "-n", self.ns.name, "-j", "link", "show", "eth0"], capture_output=True,
                           text=True, timeout=5)
        return json.loads(r.stdout)[0]["address"]

    def freeze(self):
        """The node hangs as a whole: no frame leaves or enters eth0 (ARP included: a frozen
        kernel answers none) and every process in the namespace is stopped."""
        self.ns.iptables("-I", "INPUT", "-i", "eth0", "-j", "DROP")
        self.ns.iptables("-I", "OUTPUT", "-o", "eth0", "-j", "DROP")
        self.ns.run(["ip", "link", "set", "eth0", "arp", "off"])
        for _ in range(2):   # twice: a child forked while the first pass ran is stopped too
            for pid in self.ns.pids():
                try:
                    os.kill(pid, signal.SIGSTOP)
                except ProcessLookupError:
                    pass

    def resume(self):
        for pid in self.ns.pids():
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.ns.iptables("-D", "INPUT", "-i", "eth0", "-j", "DROP")
        self.ns.iptables("-D", "OUTPUT", "-o", "eth0", "-j", "DROP")
        self.ns.run(["ip", "link", "set", "eth0", "arp", "on"])

    def destroy(self):
        self.ns.destroy()


def make_switch():
    sw = NetNS(prefix="vigil-pair-sw")
    sw.run(["ip", "link", "add", "br0", "type", "bridge"])
    sw.run(["ip", "link", "set", "br0", "up"])
    return sw


@dataclasses.dataclass
class Attempt:
    start: float
    end: float
    ok: bool
    served_by: str | None
    error: str = ""


def tls_get_via_vip(timeout=2.0, address=VIP):
    """One new TLS connection and GET through the VIP (from a thread in the client namespace)."""
    require_netns()
    start = time.monotonic()
    conn = http.client.HTTPSConnection(address, PORT, timeout=timeout, context=insecure_tls())
    try:
        conn.request("GET", "/api/v1/nodes/master-01")
        r = conn.getresponse()
        r.read()
        ok = r.status == 200
        return Attempt(start, time.monotonic(), ok, r.getheader("X-Served-By"), "" if ok else f"HTTP {r.status}")
    except Exception as e:  # noqa: BLE001 - every failure is a data point
        return Attempt(start, time.monotonic(), False, None, f"{type(e).__name__}: {e}")
    finally:
        conn.close()


def client_neighbor(client_ns):
    """The MAC address the client's ARP table has for the VIP (None without an entry)."""
    r = subprocess.run(["ip", "-n", client_ns.name, "-j", "neigh", "show", VIP], capture_output=True,
                       text=True, timeout=5)
    entries = json.loads(r.stdout or "[]")
    return entries[0].get("lladdr") if entries else None


class Pair:
    """The switch, both nodes and the client namespace; start() brings vigil and keepalived up.
    `admin`: where each node's admin API listens (its loopback unless a test reaches it from
    another namespace, as Octavia's provider driver does)."""

    def __init__(self, workdir, admin=ADMIN):
        self.switch = make_switch()
        self.spaces = [self.switch]
        self.nodes = []
        try:
            for name in NODES:
                self.nodes.append(Node(name, self.switch, workdir, admin))
                self.spaces.append(self.nodes[-1].ns)
            self.client_ns = self.attach("client", CLIENT)
        except BaseException:
            self.destroy()
            raise

    def attach(self, name, address):
        """A namespace of its own on the switch (eth0 with `address`), removed by destroy()."""
        ns = NetNS(prefix=f"vigil-pair-{name}")
        self.spaces.append(ns)
        veth(self.switch, f"sw-{name}", ns, f"{address}/{SUBNET_PREFIX}")
        return ns

    def start(self):
        """Returns the node that holds the address once keepalived has elected one."""
        for n in self.nodes:
            n.start_vigil()
        for n in self.nodes:
            wait_for(lambda: n.health()[0] == 0, 15, what=f"{n.name}: vigil health ready")
        for n in self.nodes:
            n.start_tracker()     # before keepalived, as its unit is
        for n in self.nodes:
            n.start_keepalived()
        return wait_holder(self.nodes, 20, "one node holding the address")

    def other(self, node):
        return next(n for n in self.nodes if n is not node)

    def print_logs(self):
        for n in self.nodes:
            for what in ("keepalived", "tracker", "vigil"):
                try:
                    print(f"--- {n.name} {what}.log (tail)\n" + "".join(n.log(what).splitlines(True)[-25:]))
                except FileNotFoundError:
                    pass

    def destroy(self):
        for n in self.nodes:
            stop(n.keepalived)
            stop(n.tracker)
        for ns in reversed(self.spaces):
            ns.destroy()


class Client:
    """A new TLS connection through `address` (the VIP) every `period` (PERIOD), from the client
    namespace."""

    PERIOD = 0.2

    def __init__(self, ns, address=VIP, period=PERIOD):
        self.address, self.period = address, period
        self.attempts = []
        self.stop = threading.Event()
        self.thread = ns.thread(self.run, "pair-client")

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            self.attempts.append(tls_get_via_vip(address=self.address))
            nxt = max(nxt + self.period, time.monotonic())
            self.stop.wait(max(0.0, nxt - time.monotonic()))


def measure(client, label, fault_at, moved_at, end):
    """Prints and returns (seconds until the move, failed, in flight at the fault, started
    during the move) for the client's connections around one fault."""
    window = [a for a in client.attempts if a.end >= fault_at and a.start <= end]
    failed = [a for a in window if not a.ok]
    in_flight = [a for a in window if a.start < fault_at < a.end]
    during_move = [a for a in window if fault_at <= a.start <= moved_at]
    moved = moved_at - fault_at
    print(f"{label:<28} moved after {moved:.2f}s  connections={len(window)} failed={len(failed)} "
          f"(in flight at fault {len(in_flight)}, started during the move {len(during_move)})  "
          f"longest stall {longest_stall(client, fault_at - 1.0, end):.2f}s")
    for a in failed[:3]:
        print(f"    failed at {a.start - fault_at:+.2f}s: {a.error}")
    return moved, failed, in_flight, during_move


def longest_stall(client, start, end):
    """The longest time between two successful connections ending within [start, end]."""
    ok_ends = sorted(a.end for a in client.attempts if a.ok and start <= a.end <= end)
    return max((b - a for a, b in zip(ok_ends, ok_ends[1:])), default=float("nan"))


class VipWatch(ReconnectingWatch):
    """A watch through the VIP; it keeps the time of every event. With `keepalive` its socket
    sends TCP keepalive probes after 1 s of silence, every second: the client's own dead-peer
    detection, which is all that can end a watch on a node that froze (the frozen node sends
    nothing, and the new holder knows nothing of the connection until the client sends a packet)."""

    def __init__(self, ns, keepalive):
        self.keepalive = keepalive
        self.events = []     # monotonic times
        self.ends = []       # (time, why a stream ended or a connect failed)
        super().__init__(ns, "pair-watch")

    def open(self):
        conn = http.client.HTTPSConnection(VIP, PORT, timeout=REQUEST_TIMEOUT, context=insecure_tls())
        conn.connect()
        if self.keepalive:
            s = conn.sock
            s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 5)
        conn.request("GET", WATCH_PATH)
        r = conn.getresponse()
        if r.status != 200:
            conn.close()
            raise RuntimeError(f"HTTP {r.status}")
        conn.sock.settimeout(60)   # longer than the scenario: only the network ends a stream
        return conn, r, None

    def on_failed(self, why):
        self.ends.append((time.monotonic(), f"connect: {why}"))

    def on_event(self, stream, t):
        self.events.append(t)

    def on_ended(self, stream, why):
        if why is not None:
            self.ends.append((time.monotonic(), why))

    def longest_silence(self, start, end):
        """The longest time without an event within [start, end]."""
        inside = [start] + [t for t in self.events if start < t < end] + [end]
        return max(b - a for a, b in zip(inside, inside[1:]))

    def first_event_after(self, t):
        return next((e for e in self.events if e > t), None)


def kubectl_watch(ns, kubectl, workdir):
    """The real `kubectl get nodes --watch` through the VIP (testing/harness/kubectl_watch.py)."""
    return KubectlWatch(ns, kubectl, workdir, f"https://{VIP}:{PORT}", name="pair-kubectl-watch")


def wait_holder(nodes, timeout, what):
    """The node that alone holds the VIP, once one does."""
    def alone():
        holders = [n for n in nodes if n.holds_vip()]
        return holders[0] if len(holders) == 1 else None
    return wait_for(alone, timeout, interval=0.05, what=what)


