"""A BGP fleet of vigil nodes in namespaces the test creates (docs/ha.md shows the same).

  router:        bridge br0 198.51.100.1/24 toward the nodes, client0 203.0.113.1/24 toward the
                 client; BIRD 2 with deploy/bird/router.conf as written (BGP + BFD from each
                 node, one ECMP route per service address), forwarding with the L4 hash
                 (fib_multipath_hash_policy=1)
  node1..node3:  eth0 198.51.100.11-13/24 on br0, default route via the router; lo with the
                 service addresses 192.0.2.100/32 and 192.0.2.101/32; three vigil-apisim on
                 the node's loopback (named <node>-master-0N, so X-Served-By names the node;
                 a watch gets an event every 200 ms); vigil with listeners on both service
                 addresses and the fleet as its `peers` (each node's eth0 address, port 7946, one
                 token file shared by all); BIRD 2 with
                 deploy/bird/vigil-node.conf (only NODE_ADDRESS changed) and
                 deploy/bird/vigil-bgp-health, which announces while `vigil health` passes
  client:        eth0 203.0.113.50/24, default route via the router

192.0.2.100 is routed by BIRD. 192.0.2.101 is routed by a resilient nexthop group the test
manages itself, when the kernel has them (BIRD 2.0 installs plain multipath routes): it shows
what a router with resilient hashing does to established sessions when one next hop goes.
RouteMirror makes that group follow BIRD's route, as a router with resilient hashing would.

Every address exists only inside these namespaces (TEST-NET ranges); destroy() removes them
and every process in them. Standard library only.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from testing.harness.netns import (MASTERS, TOKEN, WATCH_PATH, Master, NetNS, insecure_tls,
                                   require_netns)
from testing.harness.paths import ROOT, VIGIL
from testing.harness.wait import wait_for
from node_harness import ReconnectingWatch, VigilNode, members_yaml, peers_yaml, veth

DEPLOY = ROOT / "deploy" / "bird"
BIRD = shutil.which("bird") or "/usr/sbin/bird"
BIRDC = shutil.which("birdc") or "/usr/sbin/birdc"

SERVICE = "192.0.2.100"            # announced over BGP (deploy/bird/vigil-node.conf)
RESILIENT_SERVICE = "192.0.2.101"  # a resilient nexthop group set by the test
# A load balancer created through each node's API, announced from `vigil health --vips-file`:
# its address is in a prefix every node makes local with one route (docs/ha.md).
API_SERVICE = "192.0.2.102"
API_PREFIX = "192.0.2.96/28"
PORT = 6443
ROUTER = "198.51.100.1"
NODES = {"node1": "198.51.100.11", "node2": "198.51.100.12", "node3": "198.51.100.13"}
CLIENT, CLIENT_GW = "203.0.113.50", "203.0.113.1"
ADMIN = "127.0.0.1:8404"
NEXTHOP_GROUP = 100
WATCH_INTERVAL = 0.2     # seconds between a watch's events (vigil-apisim --watch-interval)


def vigil_yaml(token_file, node=None, peers_token=None):
    """The config of `node`; with `peers_token` (a file shared by the nodes) the fleet is its
    `peers` (docs/ha.md), each node by its own address on the router's network."""
    members = members_yaml()
    peers = "" if peers_token is None else peers_yaml(NODES, peers_token, node)
    return f"""\
{peers}admin:
  listen: "{ADMIN}"
  token_file: {token_file}
  state_file: {Path(token_file).parent / "state.json"}
listeners:
  - name: api
    bind: "{SERVICE}:{PORT}"
    pool: masters
  - name: api-resilient
    bind: "{RESILIENT_SERVICE}:{PORT}"
    pool: masters
pools:
  - name: masters
    health_monitor: {{type: HTTPS, path: /readyz, interval: 1s, timeout: 500ms}}
    members:
{members}
"""


def node_bird_conf(address, node_dir):
    """deploy/bird/vigil-node.conf with this node's address, and its directory for the files
    vigil-bgp-health writes in /run/bird; nothing else changed."""
    text, n = re.subn(r"^define NODE_ADDRESS = [0-9.]+;", f"define NODE_ADDRESS = {address};",
                      (DEPLOY / "vigil-node.conf").read_text(), flags=re.M)
    assert n == 1, "deploy/bird/vigil-node.conf has no `define NODE_ADDRESS = ...;` line"
    text, n = re.subn(r'"/run/bird/vigil-', f'"{node_dir}/vigil-', text)
    assert n == 2, "deploy/bird/vigil-node.conf does not include the two files of vigil-bgp-health"
    return text


def router_bird_conf():
    """deploy/bird/router.conf exactly as written; checked against the test's addresses."""
    text = (DEPLOY / "router.conf").read_text()
    neighbors = re.findall(r"neighbor ([0-9.]+) as", text)
    assert sorted(neighbors) == sorted(NODES.values()), (neighbors, NODES)
    assert f"define ROUTER_ADDRESS = {ROUTER};" in text
    return text


class Bird:
    """One BIRD daemon in a namespace, with its control socket in `workdir`."""

    def __init__(self, ns, workdir, conf_text):
        self.ns, self.dir = ns, Path(workdir)
        self.conf = self.dir / "bird.conf"
        self.conf.write_text(conf_text)
        self.socket = self.dir / "bird.ctl"
        ns.run([BIRD, "-p", "-c", self.conf])   # a syntax error fails here, with its line
        self.proc = ns.spawn([BIRD, "-f", "-c", self.conf, "-s", self.socket, "-P", self.dir / "bird.pid"],
                             self.dir / "bird.log")

    def show(self, *what):
        return self.ns.run([BIRDC, "-s", self.socket, "show", *what], check=False).stdout


class Node(VigilNode):
    """One vigil node: namespace, three masters, vigil, BIRD and the health loop. With `peers`
    (the default) its vigil has the fleet as peers, with the token file `workdir`/peers.token."""

    def vigil_yaml(self, token_file):
        return vigil_yaml(token_file, self.name, self.peers_token)

    def __init__(self, name, router, workdir, peers=True):
        self.name, self.address = name, NODES[name]
        self.dir = Path(workdir) / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.peers_token = None
        if peers:
            self.peers_token = Path(workdir) / "peers.token"
            self.peers_token.write_text("fleet-peers-token\n")
            self.peers_token.chmod(0o600)
        self.ns = NetNS(prefix=f"vigil-fleet-{name}")
        veth(router, f"to-{name}", self.ns, f"{self.address}/24")
        self.ns.run(["ip", "route", "add", "default", "via", ROUTER])
        for a in (SERVICE, RESILIENT_SERVICE):
            self.ns.run(["ip", "addr", "add", f"{a}/32", "dev", "lo"])
        self.ns.run(["ip", "route", "add", "local", API_PREFIX, "dev", "lo"])
        self.masters = [Master(self.ns, self.dir, f"{name}-{n}", a, args=("--watch-interval", f"{WATCH_INTERVAL}s"))
                        for n, a in MASTERS.items()]
        self.bird = self.health_loop = None
        self.frozen = []

    def start_routing(self):
        self.bird = Bird(self.ns, self.dir, node_bird_conf(self.address, self.dir))
        # As vigil-bgp-health.service sets them, in the node's directory for /run/bird.
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "VIGIL": str(VIGIL), "VIGIL_ADMIN": f"http://{ADMIN}",
               "BIRDC": BIRDC, "BIRD_SOCKET": str(self.bird.socket),
               "STATE_FILE": str(self.dir / "vigil-state.conf"), "VIPS_FILE": str(self.dir / "vigil-vips.conf"),
               "VIGIL_TOKEN_FILE": str(self.dir / "token")}
        self.health_loop = self.ns.spawn(["sh", DEPLOY / "vigil-bgp-health"], self.dir / "health.log", env=env)

    def create_api_load_balancer(self):
        """A load balancer on API_SERVICE: local through API_PREFIX's route, so SINGLE."""
        self.create_load_balancer_through_api(ADMIN, API_SERVICE, PORT, "SINGLE")

    def metrics(self):
        """This node's /metrics text."""
        def fetch():
            require_netns()
            req = urllib.request.Request(f"http://{ADMIN}/metrics", headers={"X-Auth-Token": TOKEN})
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(req, timeout=2) as r:
                return r.read().decode()
        return self.ns.call(fetch)

    def metric(self, name, **labels):
        """One sample of this node's /metrics (the first whose labels include `labels`), or None."""
        return metric(self.metrics(), name, **labels)

    def tcp_resets_sent(self):
        """Resets this node's kernel has sent (Tcp OutRsts of its /proc/net/snmp)."""
        lines = [line.split() for line in self.ns.run(["cat", "/proc/net/snmp"]).stdout.splitlines()
                 if line.startswith("Tcp:")]
        return int(dict(zip(lines[0], lines[1]))["OutRsts"])

    def power_off(self):
        """The node as if it lost power: eth0 drops everything in and out, then every process in
        the namespace is stopped (SIGSTOP), also one the health loop starts meanwhile."""
        self.ns.iptables("-I", "INPUT", "-i", "eth0", "-j", "DROP")
        self.ns.iptables("-I", "OUTPUT", "-o", "eth0", "-j", "DROP")
        for _ in range(5):
            new = [p for p in self.ns.pids() if p not in self.frozen and p != os.getpid()]
            if not new:
                return
            for pid in new:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    self.frozen.append(pid)
                except ProcessLookupError:
                    pass
        raise AssertionError(f"{self.name}: processes still appearing after five rounds of SIGSTOP")

    def power_on(self):
        """Undoes power_off(): the processes run on, eth0 passes traffic again."""
        for pid in self.frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.frozen = []
        self.ns.iptables("-D", "INPUT", "-i", "eth0", "-j", "DROP")
        self.ns.iptables("-D", "OUTPUT", "-o", "eth0", "-j", "DROP")

    def accepted(self):
        """vigil_listener_connections_total per listener, from this node's /metrics."""
        text = self.metrics()
        out = {}
        for labels, value in re.findall(r"^vigil_listener_connections_total\{([^}]*)\} (\S+)", text, re.M):
            if m := re.search(r'listener="([^"]+)"', labels):
                out[m.group(1)] = int(float(value))
        return out


def metric(text, name, **labels):
    """One sample of a /metrics text (the first whose labels include `labels`), or None."""
    for line in text.splitlines():
        m = re.match(r"^([a-z_:]+)(?:\{(.*)\})? (\S+)$", line)
        if m and m.group(1) == name and all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
            return float(m.group(3))
    return None


class Router:
    def __init__(self, workdir):
        self.dir = Path(workdir) / "router"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ns = NetNS(prefix="vigil-fleet-router")
        self.ns.run(["ip", "link", "add", "br0", "type", "bridge"])
        self.ns.run(["ip", "addr", "add", f"{ROUTER}/24", "dev", "br0"])
        self.ns.run(["ip", "link", "set", "br0", "up"])
        for key, value in (("net.ipv4.ip_forward", 1), ("net.ipv4.fib_multipath_hash_policy", 1)):
            self.ns.run(["sysctl", "-qw", f"{key}={value}"])
        self.bird = None
        self.resilient = False
        self.idle_timer = []
        self.in_group = set()

    def start_bird(self):
        self.bird = Bird(self.ns, self.dir, router_bird_conf())

    def nexthops(self, address):
        """The next hops of the router's route to `address` (empty when there is none)."""
        r = subprocess.run(["ip", "-n", self.ns.name, "-4", "-j", "route", "show", f"{address}/32"],
                           capture_output=True, text=True, timeout=5)
        routes = json.loads(r.stdout or "[]")
        hops = set()
        for route in routes:
            if "nhid" in route and not route.get("gateway") and not route.get("nexthops"):
                hops |= self.group_members(route["nhid"])
            for nh in route.get("nexthops", []):
                hops.add(nh["gateway"])
            if route.get("gateway"):
                hops.add(route["gateway"])
        return hops

    def nexthop_order(self, address):
        """The gateways of a multipath route in the kernel's order (its hash ranges' order)."""
        r = subprocess.run(["ip", "-n", self.ns.name, "-4", "-j", "route", "show", f"{address}/32"],
                           capture_output=True, text=True, timeout=5)
        return [nh["gateway"] for route in json.loads(r.stdout or "[]") for nh in route.get("nexthops", [])]

    def group_members(self, nhid):
        r = self.ns.run(["ip", "-j", "nexthop", "show", "id", nhid], check=False)
        group = json.loads(r.stdout or "[]")
        ids = [g["id"] for entry in group for g in entry.get("group", [])]
        out = set()
        for i in ids:
            e = json.loads(self.ns.run(["ip", "-j", "nexthop", "show", "id", i]).stdout)
            out |= {x["gateway"] for x in e if "gateway" in x}
        return out

    def route_resilient_service(self, idle_timer=None):
        """192.0.2.101 via a resilient group over the three nodes; a plain multipath route when
        the kernel has no resilient groups. Returns True for the resilient group. `idle_timer`
        (seconds; the kernel's default is 120): how long a bucket must have been idle before it
        may move to a next hop that comes back."""
        for i, address in enumerate(NODES.values(), start=1):
            self.ns.run(["ip", "nexthop", "add", "id", i, "via", address, "dev", "br0"])
        group = "/".join(str(i) for i in range(1, len(NODES) + 1))
        self.idle_timer = [] if idle_timer is None else ["idle_timer", idle_timer]
        r = self.ns.run(["ip", "nexthop", "add", "id", NEXTHOP_GROUP, "group", group, "type", "resilient",
                         "buckets", 64, *self.idle_timer], check=False)
        if r.returncode != 0:
            self.ns.run(["ip", "nexthop", "add", "id", NEXTHOP_GROUP, "group", group])
        self.ns.run(["ip", "route", "add", f"{RESILIENT_SERVICE}/32", "nhid", NEXTHOP_GROUP])
        self.resilient = r.returncode == 0
        self.in_group = set(NODES)
        return self.resilient, r.stderr.strip()

    def drop_node_from_group(self, name):
        """What a routing daemon with resilient groups does when a node withdraws."""
        self.ns.run(["ip", "nexthop", "del", "id", list(NODES).index(name) + 1])
        self.in_group.discard(name)

    def add_node_to_group(self, name):
        """... and when it announces again. A resilient group moves buckets to the new next hop
        only once they have been idle (idle_timer, 120 s by default): busy flows stay put."""
        i = list(NODES).index(name) + 1
        self.ns.run(["ip", "nexthop", "add", "id", i, "via", NODES[name], "dev", "br0"])
        self.in_group.add(name)
        group = "/".join(str(list(NODES).index(n) + 1) for n in sorted(self.in_group))
        kind = ["type", "resilient", *self.idle_timer] if self.resilient else []
        self.ns.run(["ip", "nexthop", "replace", "id", NEXTHOP_GROUP, "group", group, *kind])


class RouteMirror:
    """Makes the resilient group of 192.0.2.101 follow BIRD's route to 192.0.2.100, as a router
    with resilient hashing would: a node BIRD withdraws (BFD, or its health loop) leaves the
    group, one it announces again comes back. Woken by `ip monitor route` in the router, and
    every 250 ms in any case. Keeps every change: (time, next hops by node name), and when the
    group followed."""

    def __init__(self, router):
        self.router = router
        self.changes = []        # (monotonic time, frozenset of node names) of BIRD's route
        self.applied = []        # (monotonic time, frozenset) once the group was changed to it
        self.errors = []
        self.stop = threading.Event()
        self.monitor = subprocess.Popen(["ip", "-n", router.ns.name, "monitor", "route"], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        self.wake = threading.Event()
        self.reader = threading.Thread(target=self._read, name="fleet-route-monitor", daemon=True)
        self.thread = threading.Thread(target=self._run, name="fleet-route-mirror", daemon=True)
        self.reader.start()
        self.thread.start()

    def _read(self):
        for line in self.monitor.stdout:
            if SERVICE in line:
                self.wake.set()

    def _run(self):
        by_address = {a: n for n, a in NODES.items()}
        while not self.stop.is_set():
            self.wake.wait(0.25)
            self.wake.clear()
            now = time.monotonic()
            try:
                hops = frozenset(by_address[a] for a in self.router.nexthops(SERVICE) if a in by_address)
                if not self.changes or hops != self.changes[-1][1]:
                    self.changes.append((now, hops))
                    if hops:
                        for gone in self.router.in_group - hops:
                            self.router.drop_node_from_group(gone)
                        for back in hops - self.router.in_group:
                            self.router.add_node_to_group(back)
                        self.applied.append((time.monotonic(), hops))
            except Exception as e:  # noqa: BLE001 - reported by the test
                self.errors.append(f"{type(e).__name__}: {e}")

    def first(self, after, pred):
        """The first (time, hops) of BIRD's route after `after` for which pred(hops) holds."""
        return next(((t, h) for t, h in self.changes if t > after and pred(h)), None)

    def applied_after(self, after, pred):
        return next(((t, h) for t, h in self.applied if t > after and pred(h)), None)

    def close(self):
        self.stop.set()
        self.monitor.kill()
        self.monitor.wait(timeout=5)
        self.thread.join(5)


class Watch(ReconnectingWatch):
    """A watch through a service address, without TCP keepalive. Every stream keeps its node
    (X-Served-By), when it opened and ended and why, and its events' times. A silent stream is
    only given up after 60 s: longer than any scenario here."""

    def __init__(self, ns, address, label):
        self.address, self.label = address, label
        self.streams = []        # dicts: node, opened, events [times], ended, why
        self.failed = []         # (time, why) of connects or requests that failed
        super().__init__(ns, f"fleet-watch-{label}")

    def open(self):
        conn = http.client.HTTPSConnection(self.address, PORT, timeout=3, context=insecure_tls())
        conn.request("GET", WATCH_PATH)
        r = conn.getresponse()
        if r.status != 200:
            conn.close()
            raise RuntimeError(f"HTTP {r.status}")
        conn.sock.settimeout(60)
        node = (r.getheader("X-Served-By") or "?").split("-")[0]
        stream = {"node": node, "opened": time.monotonic(), "events": [], "ended": None, "why": None}
        self.streams.append(stream)
        return conn, r, stream

    def on_failed(self, why):
        self.failed.append((time.monotonic(), why))

    def on_event(self, stream, t):
        stream["events"].append(t)

    def on_ended(self, stream, why):
        stream["why"] = why
        stream["ended"] = time.monotonic()

    def stream_at(self, t):
        """The stream open at `t`."""
        return next((s for s in self.streams if s["opened"] <= t and (s["ended"] is None or s["ended"] > t)), None)

    def back_after(self, t):
        """The first event after `t` on a stream opened after `t`: the watch back, or None."""
        for s in self.streams:
            if s["opened"] > t and s["events"]:
                return s["events"][0], s
        return None

    def longest_silence(self, stream, start, end):
        """The longest time without an event on `stream` within [start, end]."""
        inside = [start] + [e for e in stream["events"] if start < e < end] + [end]
        return max(b - a for a, b in zip(inside, inside[1:]))


class Prober:
    """New connections (TLS, one GET) to `address` one after another, `period` apart, through the
    faults: every one's start, end, node and error."""

    def __init__(self, ns, address=SERVICE, timeout=1.0, period=0.05):
        self.address, self.timeout, self.period = address, timeout, period
        self.results = []   # (start, node or None, error, end)
        self.stop = threading.Event()
        self.thread = ns.thread(self.run, "fleet-prober")

    def run(self):
        while not self.stop.is_set():
            start = time.monotonic()
            node, err = new_connection(self.address, timeout=self.timeout)
            self.results.append((start, node, err, time.monotonic()))
            self.stop.wait(self.period)

    def between(self, t0, t1):
        return [r for r in self.results if t0 <= r[0] <= t1]


class Session:
    """A keep-alive TLS connection through a service address (from a thread in the client)."""

    def __init__(self, address):
        require_netns()
        self.conn = http.client.HTTPSConnection(address, PORT, timeout=3, context=insecure_tls())
        self.node = self.get()

    def get(self):
        """One GET on this connection: the node that served it (X-Served-By's prefix)."""
        self.conn.request("GET", "/api/v1/nodes/master-01")
        r = self.conn.getresponse()
        r.read()
        if r.status != 200:
            raise RuntimeError(f"HTTP {r.status}")
        return (r.getheader("X-Served-By") or "?").split("-")[0]

    def still_works(self):
        """True when a second GET on the same connection is answered by the same node. A
        reconnect would hide a broken session, so http.client's auto_open is off."""
        self.conn.auto_open = 0
        try:
            return self.get() == self.node
        except Exception:  # noqa: BLE001 - a reset or a timeout: the session is gone
            return False

    def close(self):
        self.conn.close()


def new_connection(address, timeout=2.0):
    """(node that served it or None, error) for one new TLS connection and GET."""
    require_netns()
    conn = http.client.HTTPSConnection(address, PORT, timeout=timeout, context=insecure_tls())
    try:
        conn.request("GET", "/api/v1/nodes/master-01")
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            return None, f"HTTP {r.status}"
        return (r.getheader("X-Served-By") or "?").split("-")[0], ""
    except Exception as e:  # noqa: BLE001 - every failure is a data point
        return None, f"{type(e).__name__}: {e}"
    finally:
        conn.close()


def print_logs(nodes, router):
    """After a failure: the tail of every node's logs, and what the router's BIRD says."""
    for n in nodes.values():
        for what in ("health", "bird", "vigil"):
            try:
                print(f"--- {n.name} {what}.log (tail)\n" + "".join(n.log(what).splitlines(True)[-15:]))
            except FileNotFoundError:
                pass
    if router.bird:
        print("--- router: birdc show protocols\n" + router.bird.show("protocols"))


def wait_nexthops(router, address, expected, timeout, what):
    return wait_for(lambda: router.nexthops(address) == set(expected), timeout, interval=0.02, what=what)
