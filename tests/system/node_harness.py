"""What the multi-node system tests share (the keepalived pair in pair_harness.py, the BGP fleet
in fleet_harness.py): a veth from a node's namespace to a bridge, a node's vigil, its config's
members and peers, and a watch that reconnects. Every address exists only inside the tests'
namespaces. Standard library only."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

from testing.harness.netns import MASTERS, TOKEN
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import read_ready_file

PEER_PORT = 7946


def members_yaml():
    """The pool's members in a node's config: the three masters."""
    return "\n".join(f"      - {{name: {n}, address: {a}, port: 6443}}" for n, a in MASTERS.items())


def peers_yaml(nodes, token_file, node):
    """The `peers` of `node`'s config (docs/ha.md): every node of `nodes` (name: address)."""
    listed = "\n".join(f"  - {{name: {n}, address: {a}, port: {PEER_PORT}}}" for n, a in nodes.items())
    return f"peers:\n{listed}\npeers_auth: {{token_file: {token_file}}}\npeer_name: {node}\n"


def veth(upstream, port, ns, cidr, bridge="br0"):
    """A veth from `ns` (eth0, with `cidr`, up) to `upstream`'s side (`port`, up, on `bridge`
    unless None)."""
    upstream.run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns.name])
    if bridge:
        upstream.run(["ip", "link", "set", port, "master", bridge])
    upstream.run(["ip", "link", "set", port, "up"])
    ns.run(["ip", "addr", "add", cidr, "dev", "eth0"])
    ns.run(["ip", "link", "set", "eth0", "up"])


class VigilNode:
    """A node's vigil: a subclass sets self.ns (its NetNS) and self.dir (its directory, where
    every log goes) and defines vigil_yaml(token_file), the config text."""

    vigil = None

    def start_vigil(self):
        (self.dir / "token").write_text(TOKEN + "\n")
        config = self.dir / "vigil.yaml"
        config.write_text(self.vigil_yaml(self.dir / "token"))
        ready = self.dir / "vigil.ready"
        ready.unlink(missing_ok=True)
        self.vigil = self.ns.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready], self.dir / "vigil.log")
        read_ready_file(ready, self.vigil)

    def log(self, what):
        return (self.dir / f"{what}.log").read_text(errors="replace")

    def create_load_balancer_through_api(self, admin, vip, port, topology):
        """As Octavia's provider driver would, through this node's admin API (`admin`): a load
        balancer on `vip` with a TCP listener on `port` in front of the node's three masters."""
        def post(path, kind, fields):
            req = urllib.request.Request(
                f"http://{admin}/v2.0/lbaas/{path}", data=json.dumps({kind: fields}).encode(),
                method="POST", headers={"X-Auth-Token": TOKEN, "Content-Type": "application/json"})
            with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=5) as r:
                assert r.status == 201, r.status
                return json.loads(r.read())[kind]

        def create():
            lb = post("loadbalancers", "loadbalancer",
                      {"name": "octavia", "topology": topology, "vip_address": vip})
            listener = post("listeners", "listener",
                            {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port})
            pool = post("pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                          "lb_algorithm": "ROUND_ROBIN"})
            for name, address in MASTERS.items():
                post(f"pools/{pool['id']}/members", "member",
                     {"name": name, "address": address, "protocol_port": port})
        self.ns.call(create)


class ReconnectingWatch:
    """A watch (`GET /api/v1/nodes?watch=true`) that reconnects at once when its stream ends or
    fails, as client-go does, in a thread of `ns`. A subclass opens a stream (open() returns the
    connection, the response and its own record of the stream) and keeps what it needs through
    on_failed(why), on_event(stream, t) and on_ended(stream, why) (why is None when the watch was
    stopped). A subclass sets its own fields before calling __init__, which starts the thread."""

    def __init__(self, ns, name):
        self.stop = threading.Event()
        self._conn = None
        self.thread = ns.thread(self.run, name)

    def run(self):
        while not self.stop.is_set():
            try:
                conn, r, stream = self.open()
            except Exception as e:  # noqa: BLE001 - a failed connect is a data point
                self.on_failed(f"{type(e).__name__}: {e}")
                self.stop.wait(0.05)
                continue
            self._conn = conn
            why = None
            try:
                while not self.stop.is_set():
                    line = r.readline()
                    if not line:
                        why = "EOF"
                        break
                    if line.strip():
                        self.on_event(stream, time.monotonic())
            except Exception as e:  # noqa: BLE001
                why = f"{type(e).__name__}: {e}"
            self.on_ended(stream, why)
            conn.close()

    def interrupt(self):
        """Stops the watch, also when it waits on a silent stream."""
        self.stop.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
