"""A BGP fleet of vigil nodes in namespaces the test creates (docs/ha.md shows the same).

  router:        bridge br0 198.51.100.1/24 toward the nodes, client0 203.0.113.1/24 toward the
                 client; BIRD 2 with deploy/bird/router.conf as written (BGP + BFD from each
                 node, one ECMP route per service address), forwarding with the L4 hash
                 (fib_multipath_hash_policy=1)
  node1..node3:  eth0 198.51.100.11-13/24 on br0, default route via the router; lo with the
                 service addresses 192.0.2.100/32 and 192.0.2.101/32; three vigil-apisim on
                 the node's loopback (named <node>-master-0N, so X-Served-By names the node);
                 vigil with listeners on both service addresses; BIRD 2 with
                 deploy/bird/vigil-node.conf (only NODE_ADDRESS changed) and
                 deploy/bird/vigil-bgp-health, which announces while `vigil health` passes
  client:        eth0 203.0.113.50/24, default route via the router

192.0.2.100 is routed by BIRD. 192.0.2.101 is routed by a resilient nexthop group the test
manages itself, when the kernel has them (BIRD 2.0 installs plain multipath routes): it shows
what a router with resilient hashing does to established sessions when one next hop goes.

Every address exists only inside these namespaces (TEST-NET ranges); destroy() removes them
and every process in them. Standard library only.
"""
from __future__ import annotations

import http.client
import json
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

from netns_harness import MASTERS, ROOT, TOKEN, VIGIL, Master, NetNS, insecure_tls, require_netns, wait_for
from node_harness import VigilNode, veth

DEPLOY = ROOT / "deploy" / "bird"
BIRD = shutil.which("bird") or "/usr/sbin/bird"
BIRDC = shutil.which("birdc") or "/usr/sbin/birdc"

SERVICE = "192.0.2.100"            # announced over BGP (deploy/bird/vigil-node.conf)
RESILIENT_SERVICE = "192.0.2.101"  # a resilient nexthop group set by the test
PORT = 6443
ROUTER = "198.51.100.1"
NODES = {"node1": "198.51.100.11", "node2": "198.51.100.12", "node3": "198.51.100.13"}
CLIENT, CLIENT_GW = "203.0.113.50", "203.0.113.1"
ADMIN = "127.0.0.1:8404"
NEXTHOP_GROUP = 100


def vigil_yaml(token_file):
    members = "\n".join(f"      - {{name: {n}, address: {a}, port: 6443}}" for n, a in MASTERS.items())
    return f"""\
admin:
  listen: "{ADMIN}"
  token_file: {token_file}
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


def node_bird_conf(address):
    """deploy/bird/vigil-node.conf with this node's address, nothing else changed."""
    text, n = re.subn(r"^define NODE_ADDRESS = [0-9.]+;", f"define NODE_ADDRESS = {address};",
                      (DEPLOY / "vigil-node.conf").read_text(), flags=re.M)
    assert n == 1, "deploy/bird/vigil-node.conf has no `define NODE_ADDRESS = ...;` line"
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
    """One vigil node: namespace, three masters, vigil, BIRD and the health loop."""

    vigil_yaml = staticmethod(vigil_yaml)

    def __init__(self, name, router, workdir):
        self.name, self.address = name, NODES[name]
        self.dir = Path(workdir) / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ns = NetNS(prefix=f"vigil-fleet-{name}")
        veth(router, f"to-{name}", self.ns, f"{self.address}/24")
        self.ns.run(["ip", "route", "add", "default", "via", ROUTER])
        for a in (SERVICE, RESILIENT_SERVICE):
            self.ns.run(["ip", "addr", "add", f"{a}/32", "dev", "lo"])
        self.masters = [Master(self.ns, self.dir, f"{name}-{n}", a) for n, a in MASTERS.items()]
        self.bird = self.health_loop = None

    def start_routing(self):
        self.bird = Bird(self.ns, self.dir, node_bird_conf(self.address))
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "VIGIL": str(VIGIL), "VIGIL_ADMIN": f"http://{ADMIN}",
               "BIRDC": BIRDC, "BIRD_SOCKET": str(self.bird.socket)}
        self.health_loop = self.ns.spawn(["sh", DEPLOY / "vigil-bgp-health"], self.dir / "health.log", env=env)

    def accepted(self):
        """vigil_listener_connections_total per listener, from this node's /metrics."""
        def fetch():
            require_netns()
            req = urllib.request.Request(f"http://{ADMIN}/metrics", headers={"X-Auth-Token": TOKEN})
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(req, timeout=2) as r:
                return r.read().decode()
        text = self.ns.call(fetch)
        out = {}
        for labels, value in re.findall(r"^vigil_listener_connections_total\{([^}]*)\} (\S+)", text, re.M):
            if m := re.search(r'listener="([^"]+)"', labels):
                out[m.group(1)] = int(float(value))
        return out


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

    def route_resilient_service(self):
        """192.0.2.101 via a resilient group over the three nodes; a plain multipath route when
        the kernel has no resilient groups. Returns True for the resilient group."""
        for i, address in enumerate(NODES.values(), start=1):
            self.ns.run(["ip", "nexthop", "add", "id", i, "via", address, "dev", "br0"])
        group = "/".join(str(i) for i in range(1, len(NODES) + 1))
        r = self.ns.run(["ip", "nexthop", "add", "id", NEXTHOP_GROUP, "group", group, "type", "resilient",
                         "buckets", 64], check=False)
        if r.returncode != 0:
            self.ns.run(["ip", "nexthop", "add", "id", NEXTHOP_GROUP, "group", group])
        self.ns.run(["ip", "route", "add", f"{RESILIENT_SERVICE}/32", "nhid", NEXTHOP_GROUP])
        self.resilient = r.returncode == 0
        return self.resilient, r.stderr.strip()

    def drop_node_from_group(self, name):
        """What a routing daemon with resilient groups does when a node withdraws."""
        self.ns.run(["ip", "nexthop", "del", "id", list(NODES).index(name) + 1])

    def add_node_to_group(self, name):
        """... and when it announces again. A resilient group moves buckets to the new next hop
        only once they have been idle (idle_timer, 120 s by default): busy flows stay put."""
        i = list(NODES).index(name) + 1
        self.ns.run(["ip", "nexthop", "add", "id", i, "via", NODES[name], "dev", "br0"])
        group = "/".join(str(k) for k in range(1, len(NODES) + 1))
        kind = ["type", "resilient"] if self.resilient else []
        self.ns.run(["ip", "nexthop", "replace", "id", NEXTHOP_GROUP, "group", group, *kind])


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


def wait_nexthops(router, address, expected, timeout, what):
    return wait_for(lambda: router.nexthops(address) == set(expected), timeout, interval=0.02, what=what)
