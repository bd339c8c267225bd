"""Octavia (the real Octavia 11 API and driver agent, with the vigil provider driver) in front of
one or two vigil nodes, for the provider fault tests: one load balancer (a TCP listener, a pool
with a TCP monitor and two members on simulated API servers), whose nodes keep their admin ports
across restarts. Holds no tests. Every wait is bounded.
"""
import json
import signal
import threading
import time
import urllib.error
import urllib.request

from testing.harness.octavia_api import free_port, raw
from testing.harness.octavia_harness import Octavia, OctaviaCli
from testing.harness.vigil_process import ApiSim, Vigil, https_get
from testing.harness.wait import wait_for

# [vigil] status_interval and request_timeout: small, so that the test stays short, but the
# interval not below what the driver agent takes to look objects up and write statuses on a busy
# 2-core machine (about a second in all), which every bound below includes once.
INTERVAL = 4.0
REQUEST_TIMEOUT = 2.0
# What a figure may exceed its bound by: this test's own polling of Octavia's API (0.25 s).
SLACK = 0.25
POLL = 0.25

CONFIG = """
admin:
  listen: 127.0.0.1:{port}
  token_file: @TOKEN_FILE@
  state_file: {state_file}
{store}"""
# admin.store when the nodes share one etcd (Cloud's `etcd`).
STORE = """  store:
    type: etcd
    endpoints: [{endpoints}]
    prefix: /vigil/octavia/
    timeout: 1s
"""
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def figure(what, seconds):
    """Prints a measured figure (pytest -s shows them; docs/octavia.md quotes them)."""
    print(f"figure: {what}: {seconds:.2f}s")
    return seconds


class Cloud:
    """Octavia, vigil nodes (`names`: one, or a pair whose listeners share their port through
    SO_REUSEPORT, as two hosts would share a VIP) and one load balancer `k8s` with listener
    `api` and pool `masters`. `vigil` is the first node. `etcd`: an EtcdCluster the nodes keep
    their API objects in (admin.store); `vigil_options`: more of octavia.conf's [vigil]."""

    def __init__(self, tmp, names=("a",), etcd=None, vigil_options=""):
        self.dir = tmp
        self.things = []
        self.etcd = etcd
        self.admin_ports = {name: free_port() for name in names}
        self.sims = [self.keep(ApiSim(tmp, f"master-0{i}")) for i in (1, 2)]
        self.nodes = {}
        for name in names:
            self.start_vigil("state.json", name)
        self.metrics_file = tmp / "vigil_octavia.prom"
        endpoints = ", ".join(f"http://127.0.0.1:{port}" for port in self.admin_ports.values())
        first = next(iter(self.nodes.values()))
        self.octavia = self.keep(Octavia(tmp, f"127.0.0.1:{self.admin_ports[names[0]]}",
                                         first.dir / "token",
                                         vigil_options=f"status_interval = {INTERVAL:g}\n"
                                                       f"request_timeout = {REQUEST_TIMEOUT}\n"
                                                       f"endpoints = {endpoints}\n"
                                                       f"metrics_file = {self.metrics_file}\n"
                                                       + vigil_options))
        self.cli = OctaviaCli(self.octavia)
        self.lb_id = self.cli.json("create", "--name", "k8s", "--vip-subnet-id", "loopback",
                                   "--vip-address", "127.0.0.1", "--provider", "vigil")["id"]
        self.wait_provisioning()
        self.port = free_port()
        self.listener_id = self.cli.json("listener", "create", "--name", "api", "--protocol",
                                         "TCP", "--protocol-port", str(self.port), "k8s")["id"]
        self.wait_provisioning()
        self.pool_id = self.cli.json("pool", "create", "--name", "masters", "--protocol", "TCP",
                                     "--lb-algorithm", "ROUND_ROBIN", "--listener", "api")["id"]
        self.wait_provisioning()
        for sim in self.sims:
            self.cli.json("member", "create", "--name", sim.name, "--address", "127.0.0.1",
                          "--protocol-port", str(sim.port), "masters")
            self.wait_provisioning()
        self.cli.json("healthmonitor", "create", "--delay", "1", "--timeout", "1",
                      "--max-retries", "1", "--type", "TCP", "masters")
        self.wait_provisioning()
        self.wait_online()

    def keep(self, thing):
        self.things.append(thing)
        return thing

    @property
    def vigil(self):
        return next(iter(self.nodes.values()))

    def start_vigil(self, state_name, name="a"):
        """Starts node `name` (again) with the state file `state_name` of its directory."""
        node_dir = self.dir / f"node-{name}"
        node_dir.mkdir(exist_ok=True)
        store = STORE.format(endpoints=", ".join(self.etcd.endpoints)) if self.etcd else ""
        self.nodes[name] = Vigil(node_dir, CONFIG.format(port=self.admin_ports[name],
                                                         state_file=node_dir / state_name,
                                                         store=store))

    def kill_vigil(self, name="a"):
        node = self.nodes[name]
        node.proc.kill()
        node.proc.wait(timeout=10)
        node.stop()  # closes its log

    def get(self, path):
        """GET on Octavia's API: (status, JSON or None)."""
        try:
            with _opener.open(self.octavia.endpoint + path, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, None

    def put(self, path):
        req = urllib.request.Request(self.octavia.endpoint + path, method="PUT")
        try:
            with _opener.open(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def provisioning(self, collection, object_id):
        code, body = self.get(f"/v2/lbaas/{collection}/{object_id}")
        assert code == 200, f"GET {collection}/{object_id}: {code}"
        return next(iter(body.values()))["provisioning_status"]

    def member(self, name):
        code, body = self.get(f"/v2/lbaas/pools/{self.pool_id}/members?name={name}")
        assert code == 200 and len(body["members"]) == 1, (code, body)
        return body["members"][0]

    def wait_provisioning(self, status="ACTIVE", timeout=30.0, lb_id=None):
        def reached():
            current = self.provisioning("loadbalancers", lb_id or self.lb_id)
            return current == status or (current == "ERROR" and self.fail("load balancer ERROR"))
        wait_for(reached, timeout, interval=POLL, what=f"load balancer {status}")

    def fail(self, what):
        raise AssertionError(f"{what}: {self.octavia.log_text('api')[-3000:]}")

    def tree(self):
        """Octavia's status tree: {"lb": ..., "listener": ..., "pool": ..., "members": {name:
        operating status}}."""
        code, body = self.get(f"/v2/lbaas/loadbalancers/{self.lb_id}/status")
        assert code == 200, code
        lb = body["statuses"]["loadbalancer"]
        listener = lb["listeners"][0]
        pool = listener["pools"][0]
        return {"lb": lb["operating_status"], "listener": listener["operating_status"],
                "pool": pool["operating_status"],
                "members": {m["name"]: m["operating_status"] for m in pool["members"]}}

    def wait_tree(self, lb_status, timeout):
        """Waits for the load balancer's operating status; returns (seconds waited, tree)."""
        start = time.monotonic()
        tree = wait_for(lambda: (t := self.tree())["lb"] == lb_status and t, timeout,
                        interval=POLL, what=f"load balancer operating {lb_status}")
        return time.monotonic() - start, tree

    def wait_online(self, timeout=30.0):
        """Everything ONLINE: the load balancer, its listener, pool and every member."""
        def online():
            t = self.tree()
            return (t["lb"] == t["listener"] == t["pool"] == "ONLINE" and
                    set(t["members"].values()) == {"ONLINE"} and len(t["members"]) == 2 and t)
        return wait_for(online, timeout, interval=0.2, what="everything ONLINE")

    def wait_member(self, name, status, timeout):
        """Waits for a member's provisioning status; returns the seconds waited."""
        start = time.monotonic()
        wait_for(lambda: self.member(name)["provisioning_status"] == status, timeout,
                 interval=POLL, what=f"member {name} {status}")
        return time.monotonic() - start

    def node_metric(self, metric, name, **labels):
        """A sample of the agent's [vigil] metrics_file for node `name`; None until written."""
        from prometheus_client.parser import text_string_to_metric_families
        if not self.metrics_file.exists():
            return None
        want = dict(labels, node=f"127.0.0.1:{self.admin_ports[name]}")
        for family in text_string_to_metric_families(self.metrics_file.read_text()):
            for s in family.samples:
                if s.name == metric and s.labels == want:
                    return s.value
        return None

    def assert_parents_unlocked(self, after):
        statuses = {"load balancer": self.provisioning("loadbalancers", self.lb_id),
                    "listener": self.provisioning("listeners", self.listener_id),
                    "pool": self.provisioning("pools", self.pool_id)}
        assert set(statuses.values()) == {"ACTIVE"}, f"{after}: {statuses}"

    def weights(self, name="a"):
        """{member name: weight} as node `name` holds the pool; None when it lacks the pool."""
        code, body = raw(self.nodes[name], "GET", f"/v2/lbaas/pools/{self.pool_id}/members")
        return {m["name"]: m["weight"] for m in body["members"]} if code == 200 else None

    def traffic_flows(self):
        status, headers, _ = https_get("127.0.0.1", self.port, "/readyz")
        assert status == 200 and headers.get("X-Served-By", "").startswith("master-0"), headers

    def stop(self):
        for node in self.nodes.values():
            node.proc.send_signal(signal.SIGCONT)  # a test that failed while it was frozen
            node.stop()
        for thing in reversed(self.things):
            thing.stop()


class Traffic:
    """A client through the load balancer's listener while a test runs: a new TLS connection and
    `GET /readyz` every 50 ms, each bounded by 2 s, every failure kept with its time."""

    def __init__(self, port):
        self.port = port
        self.ok = 0
        self.failures = []  # (monotonic time, what went wrong)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.wait(0.05):
            at = time.monotonic()
            try:
                status, _, _ = https_get("127.0.0.1", self.port, "/readyz", timeout=2)
                if status == 200:
                    self.ok += 1
                    continue
                error = f"HTTP {status}"
            except OSError as e:
                error = str(e)
            self.failures.append((at, error))

    def failed_since(self, start):
        return [f for f in self.failures if f[0] >= start]

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=10)
