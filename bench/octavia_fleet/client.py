"""A client of Octavia's v2 API as python-octaviaclient is, over plain HTTP on loopback: the
project in X-Project-Id (what Keystone's middleware sets from a token; the API runs noauth), and
one load balancer built the way a client must build it through that API: the load balancer, then
each child in order, waiting after each write until the load balancer is ACTIVE again (while it
is PENDING_* every write to it answers 409 "is immutable").

Every request and every wait is bounded. Threads share nothing but the counters, under a lock.
"""
import json
import random
import threading
import time
import urllib.error
import urllib.request

from testing.harness.octavia_harness import PROJECT_ID
from testing.harness.project_proxy import SUBNET_ID

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Api:
    """Octavia's API at `base`; counts what it had to try again. At most `connections` requests
    are open at once: the packaged octavia-api serves one at a time on wsgiref, whose listen
    backlog is 5, and a connection beyond it is reset; a client's connection pool (keystoneauth's
    requests session) queues them likewise."""

    def __init__(self, base, timeout=60.0, connections=4):
        self.base = base
        self.timeout = timeout
        self.lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(connections)
        self.retries = {}  # reason -> count

    def request(self, method, path, body=None, pooled=True):
        """(status, parsed JSON or None, seconds); `pooled`: waits for one of the connections,
        which the seconds do not include."""
        if pooled:
            with self.slots:
                return self.request(method, path, body, pooled=False)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"X-Project-Id": PROJECT_ID,
                                              "Content-Type": "application/json",
                                              "Accept": "application/json"})
        start = time.monotonic()
        try:
            with _opener.open(req, timeout=self.timeout) as r:
                text = r.read()
                code = r.status
        except urllib.error.HTTPError as e:
            text, code = e.read(), e.code
        elapsed = time.monotonic() - start
        try:
            return code, json.loads(text or b"null"), elapsed
        except ValueError:
            return code, {"text": text.decode(errors="replace")}, elapsed

    def count(self, reason):
        with self.lock:
            self.retries[reason] = self.retries.get(reason, 0) + 1

    def write(self, method, path, body, expect, attempts=20):
        """Sends a write until it answers `expect`; returns the parsed answer. A 409 (the load
        balancer locked by something else: the provider agent's failover lock during a push)
        and SQLite's "database is locked" (rolled back) are sent again after a second, as an
        operator's script would."""
        for _ in range(attempts):
            code, answer, _ = self.request(method, path, body)
            if code == expect:
                return answer
            text = json.dumps(answer)
            if code == 409:
                self.count("409 immutable")
            elif code == 500 and "database is locked" in text:
                self.count("500 database is locked")
            else:
                raise RuntimeError(f"{method} {path}: {code} {text[:500]}")
            time.sleep(1.0)
        raise RuntimeError(f"{method} {path}: still refused after {attempts} attempts")

    def create(self, path, kind, fields):
        """POSTs {kind: fields}; returns the object."""
        return self.write("POST", path, {kind: fields}, 201)[kind]

    def replace_members(self, pool_id, members):
        """The batch member update: the pool's members become `members`."""
        self.write("PUT", f"/v2/lbaas/pools/{pool_id}/members", {"members": members}, 202)

    def provisioning(self, lb_id, attempts=5):
        for _ in range(attempts - 1):  # a GET is safe to send again
            try:
                code, body, _ = self.request("GET", f"/v2/lbaas/loadbalancers/{lb_id}")
                break
            except OSError:
                self.count("GET connection error")
                time.sleep(1.0)
        else:
            code, body, _ = self.request("GET", f"/v2/lbaas/loadbalancers/{lb_id}")
        if code != 200:
            raise RuntimeError(f"GET loadbalancer {lb_id}: {code} {body}")
        return body["loadbalancer"]["provisioning_status"]

    def wait_active(self, lb_id, poll, timeout):
        """Polls the load balancer every `poll` seconds until ACTIVE (as `openstack ... --wait`
        does); raises on ERROR or after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.provisioning(lb_id)
            if status == "ACTIVE":
                return
            if status == "ERROR":
                raise RuntimeError(f"load balancer {lb_id} ERROR")
            time.sleep(poll)
        raise RuntimeError(f"load balancer {lb_id} not ACTIVE after {timeout:.0f}s")


def build_loadbalancer(api, i, listener_port, members, poll, timeout, batch=False):
    """Load balancer `lb-i`: VIP 127.0.0.1, a TCP listener on `listener_port`, a ROUND_ROBIN
    pool, the members [(address, port)] and a TCP monitor (delay 5 s, timeout 2 s, 3 retries),
    each created after the load balancer is ACTIVE again. With `batch` the members are one
    write, the batch member update (PUT .../members) that Kubernetes' cloud-provider-openstack
    sends, instead of one `member create` each as the CLI does. Returns the load balancer's id."""
    lb = api.create("/v2/lbaas/loadbalancers", "loadbalancer", {
        "name": f"lb-{i}", "vip_subnet_id": SUBNET_ID, "vip_address": "127.0.0.1",
        "provider": "vigil"})
    lb_id = lb["id"]
    api.wait_active(lb_id, poll, timeout)
    listener = api.create("/v2/lbaas/listeners", "listener", {
        "name": f"listener-{i}", "loadbalancer_id": lb_id, "protocol": "TCP",
        "protocol_port": listener_port})
    api.wait_active(lb_id, poll, timeout)
    pool = api.create("/v2/lbaas/pools", "pool", {
        "name": f"pool-{i}", "listener_id": listener["id"], "protocol": "TCP",
        "lb_algorithm": "ROUND_ROBIN"})
    api.wait_active(lb_id, poll, timeout)
    bodies = [{"name": f"m{k}", "address": address, "protocol_port": port}
              for k, (address, port) in enumerate(members)]
    if batch:
        api.replace_members(pool["id"], bodies)
        api.wait_active(lb_id, poll, timeout)
    for body in [] if batch else bodies:
        api.create(f"/v2/lbaas/pools/{pool['id']}/members", "member", body)
        api.wait_active(lb_id, poll, timeout)
    api.create("/v2/lbaas/healthmonitors", "healthmonitor", {
        "pool_id": pool["id"], "type": "TCP", "delay": 5, "timeout": 2, "max_retries": 3,
        "max_retries_down": 3})
    api.wait_active(lb_id, poll, timeout)
    return lb_id


class Prober:
    """A thread that GETs one load balancer (a random one of those created so far) every
    `interval` seconds and keeps each answer's latency: Octavia's API as a user sees it while the
    fleet is built."""

    def __init__(self, api, ids, interval):
        self.api, self.ids, self.interval = api, ids, interval
        self.latencies, self.failures = [], 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.wait(self.interval):
            if not self.ids:
                continue
            try:
                code, _, seconds = self.api.request(
                    "GET", f"/v2/lbaas/loadbalancers/{random.choice(self.ids)}", pooled=False)
            except OSError:
                self.failures += 1
                continue
            if code == 200:
                self.latencies.append(seconds)
            else:
                self.failures += 1

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=self.api.timeout + 5)


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
