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
import shutil
import subprocess
import time
from pathlib import Path

from netns_harness import (MASTERS, TOKEN, VIGIL, Master, NetNS, insecure_tls, read_ready_file,
                           require_netns, wait_for)

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


def vigil_yaml(token_file):
    members = "\n".join(f"      - {{name: {n}, address: {a}, port: 6443}}" for n, a in MASTERS.items())
    return f"""\
admin:
  listen: "{ADMIN}"
  token_file: {token_file}
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


def keepalived_conf(node, vigil=VIGIL):
    """The keepalived.conf of `node` (docs/ha.md shows it with placeholders)."""
    me = NODES[node]
    peer = next(a for n, a in NODES.items() if n != node)
    return f"""\
global_defs {{
  router_id {node}
  script_user root
}}

vrrp_script chk_vigil {{
  script "{vigil} health --exit-code --admin http://{ADMIN}"
  interval 1      # every second
  timeout 2
  fall 2          # two failures in a row take the address away
  rise 1
}}

vrrp_instance VI_API {{
  state BACKUP    # both start as BACKUP: with nopreempt the address stays where it is
  nopreempt
  interface eth0
  virtual_router_id {ROUTER_ID}
  priority {PRIORITY[node]}
  advert_int 1
  unicast_src_ip {me}
  unicast_peer {{
    {peer}
  }}
  virtual_ipaddress {{
    {VIP}/{SUBNET_PREFIX} dev eth0
  }}
  garp_master_refresh 1
  track_script {{
    chk_vigil
  }}
}}
"""


class Node:
    """One load balancer node: its namespace, three masters, vigil and keepalived."""

    def __init__(self, name, switch, workdir):
        self.name, self.address = name, NODES[name]
        self.dir = Path(workdir) / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.ns = NetNS(prefix=f"vigil-pair-{name}")
        plug(switch, self.ns, f"sw-{name}", f"{self.address}/{SUBNET_PREFIX}")
        self.masters = [Master(self.ns, self.dir, n, a) for n, a in MASTERS.items()]
        self.vigil = None
        self.keepalived = None

    def start_vigil(self):
        (self.dir / "token").write_text(TOKEN + "\n")
        config = self.dir / "vigil.yaml"
        config.write_text(vigil_yaml(self.dir / "token"))
        ready = self.dir / "vigil.ready"
        ready.unlink(missing_ok=True)
        self.vigil = self.ns.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready], self.dir / "vigil.log")
        read_ready_file(ready, self.vigil)

    def start_keepalived(self):
        conf = self.dir / "keepalived.conf"
        conf.write_text(keepalived_conf(self.name))
        self.keepalived = self.ns.spawn(
            [KEEPALIVED, "-n", "-l", "-D", "-P", "-f", conf, "-p", self.dir / "keepalived.pid",
             "-r", self.dir / "vrrp.pid"], self.dir / "keepalived.log")

    def health(self):
        r = self.ns.run([VIGIL, "health", "--exit-code", "--admin", f"http://{ADMIN}"], check=False)
        return r.returncode, r.stdout.strip()

    def holds_vip(self):
        # `ip -n` reads the namespace without entering it: cheap enough to poll every 20 ms.
        r = subprocess.run(["ip", "-n", self.ns.name, "-4", "-o", "addr", "show", "dev", "eth0"],
                           capture_output=True, text=True, timeout=5)
        return f" {VIP}/" in r.stdout

    def log(self, what):
        return (self.dir / f"{what}.log").read_text(errors="replace")

    def destroy(self):
        self.ns.destroy()


def plug(switch, ns, port, cidr):
    """A veth from `ns` (eth0, with `cidr`) to the switch's bridge (`port`)."""
    switch.run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns.name])
    switch.run(["ip", "link", "set", port, "master", "br0", "up"])
    ns.run(["ip", "addr", "add", cidr, "dev", "eth0"])
    ns.run(["ip", "link", "set", "eth0", "up"])


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


def tls_get_via_vip(timeout=2.0):
    """One new TLS connection and GET through the VIP (from a thread in the client namespace)."""
    require_netns()
    start = time.monotonic()
    conn = http.client.HTTPSConnection(VIP, PORT, timeout=timeout, context=insecure_tls())
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


def wait_holder(nodes, timeout, what):
    """The node that alone holds the VIP, once one does."""
    def alone():
        holders = [n for n in nodes if n.holds_vip()]
        return holders[0] if len(holders) == 1 else None
    return wait_for(alone, timeout, interval=0.05, what=what)


def stop(proc, timeout=10):
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
