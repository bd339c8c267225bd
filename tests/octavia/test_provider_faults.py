"""vigil's faults as Octavia shows them, through the real Octavia 11 API and driver agent with the
vigil provider driver: one load balancer (a TCP listener, a pool with a TCP monitor and two
members on simulated API servers) in front of a vigil whose admin API keeps its port across
restarts. vigil killed or frozen: the load balancer goes operating ERROR within two status
intervals, and back to ONLINE when vigil answers again. A member change vigil does not get ends
ERROR and leaves no parent PENDING_*, and can be repaired once vigil is back. `failover` is 202
and re-pushes the load balancer. A vigil restarted without its state gets the load balancer
again on its own, and traffic flows.

The tests run in this order on one Octavia (starting one takes most of a test's time); each
leaves vigil running with the load balancer ONLINE.
"""
import json
import signal
import time
import urllib.error
import urllib.request

import pytest

from octavia_harness import Octavia, OctaviaCli, missing
from testing.harness.octavia_api import free_port, raw
from testing.harness.vigil_process import ApiSim, Vigil, https_get
from testing.harness.wait import wait_for

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

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
"""
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def figure(what, seconds):
    """Prints a measured figure (pytest -s shows them; docs/octavia.md quotes them)."""
    print(f"figure: {what}: {seconds:.2f}s")
    return seconds


class Cloud:
    """Octavia, a vigil and one load balancer `k8s` with listener `api` and pool `masters`."""

    def __init__(self, tmp):
        self.dir = tmp
        self.things = []
        self.admin_port = free_port()
        self.sims = [self.keep(ApiSim(tmp, f"master-0{i}")) for i in (1, 2)]
        self.vigil = None
        self.start_vigil("state.json")
        self.octavia = self.keep(Octavia(tmp, f"127.0.0.1:{self.admin_port}", tmp / "token",
                                         vigil_options=f"status_interval = {INTERVAL:g}\n"
                                                       f"request_timeout = {REQUEST_TIMEOUT}\n"))
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

    def start_vigil(self, state_name):
        self.vigil = Vigil(self.dir, CONFIG.format(port=self.admin_port,
                                                   state_file=self.dir / state_name))

    def kill_vigil(self):
        self.vigil.proc.kill()
        self.vigil.proc.wait(timeout=10)
        self.vigil.stop()  # closes its log

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

    def wait_provisioning(self, status="ACTIVE", timeout=30.0):
        def reached():
            current = self.provisioning("loadbalancers", self.lb_id)
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

    def assert_parents_unlocked(self, after):
        statuses = {"load balancer": self.provisioning("loadbalancers", self.lb_id),
                    "listener": self.provisioning("listeners", self.listener_id),
                    "pool": self.provisioning("pools", self.pool_id)}
        assert set(statuses.values()) == {"ACTIVE"}, f"{after}: {statuses}"

    def traffic_flows(self):
        status, headers, _ = https_get("127.0.0.1", self.port, "/readyz")
        assert status == 200 and headers.get("X-Served-By", "").startswith("master-0"), headers

    def stop(self):
        if self.vigil is not None:
            self.vigil.proc.send_signal(signal.SIGCONT)  # a test that failed while it was frozen
            self.vigil.stop()
        for thing in reversed(self.things):
            thing.stop()


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    c = Cloud(tmp_path_factory.mktemp("faults"))
    yield c
    c.stop()


def test_a_killed_vigil_is_error_within_two_intervals_and_online_once_back(cloud):
    cloud.traffic_flows()
    cloud.kill_vigil()
    seconds, tree = cloud.wait_tree("ERROR", timeout=4 * INTERVAL)
    figure("killed -> load balancer ERROR", seconds)
    assert seconds <= 2 * INTERVAL + SLACK, \
        f"load balancer ERROR {seconds:.2f}s after vigil was killed (bound 2 x {INTERVAL}s)"
    # As Octavia's health driver writes an amphora that stopped reporting.
    assert tree["listener"] == "ERROR" and tree["pool"] == "OFFLINE", tree
    assert set(tree["members"].values()) == {"OFFLINE"}, tree
    log = cloud.octavia.log_text("agent")
    assert f"load balancer {cloud.lb_id} is now operating ERROR" in log
    assert "Connection refused" in log
    # Back with its state: its own statuses again.
    cloud.start_vigil("state.json")
    seconds, _ = cloud.wait_tree("ONLINE", timeout=4 * INTERVAL)
    figure("back with its state -> load balancer ONLINE", seconds)
    assert seconds <= 2 * INTERVAL + SLACK, f"ONLINE {seconds:.2f}s after vigil was back"
    cloud.wait_online()
    cloud.traffic_flows()


def test_a_member_change_vigil_does_not_get_ends_error_and_locks_nothing(cloud):
    bound = REQUEST_TIMEOUT + INTERVAL + SLACK
    # Refused: vigil killed.
    cloud.kill_vigil()
    cloud.cli.run("member", "set", "--weight", "3", "masters", "master-01")
    seconds = figure("refused change -> member ERROR",
                     cloud.wait_member("master-01", "ERROR", timeout=2 * bound))
    assert seconds <= bound, f"member ERROR {seconds:.2f}s after a refused change (bound {bound}s)"
    cloud.assert_parents_unlocked("after a change vigil refused")
    cloud.start_vigil("state.json")
    cloud.wait_online()

    # Frozen: the change times out; the load balancer is seen ERROR meanwhile.
    cloud.vigil.proc.send_signal(signal.SIGSTOP)
    try:
        frozen = time.monotonic()
        cloud.cli.run("member", "set", "--weight", "4", "masters", "master-02")
        seconds = figure("change to a frozen vigil -> member ERROR",
                         cloud.wait_member("master-02", "ERROR", timeout=2 * bound))
        assert seconds <= bound, \
            f"member ERROR {seconds:.2f}s after a change to a frozen vigil (bound {bound}s)"
        cloud.assert_parents_unlocked("after a change to a frozen vigil")
        cloud.wait_tree("ERROR", timeout=4 * INTERVAL)
        seconds = figure("frozen -> load balancer ERROR", time.monotonic() - frozen)
        assert seconds <= 2 * INTERVAL + SLACK, \
            f"load balancer ERROR {seconds:.2f}s after vigil froze (bound 2 x {INTERVAL}s)"
        assert "timed out" in cloud.octavia.log_text("agent")
    finally:
        cloud.vigil.proc.send_signal(signal.SIGCONT)
    cloud.wait_online()

    # Both members in ERROR can be changed and deleted once vigil answers.
    cloud.cli.run("member", "set", "--weight", "5", "masters", "master-02")
    cloud.wait_member("master-02", "ACTIVE", timeout=bound)
    code, body = raw(cloud.vigil, "GET", f"/v2/lbaas/pools/{cloud.pool_id}/members")
    assert {m["name"]: m["weight"] for m in body["members"]}["master-02"] == 5, body
    cloud.cli.run("member", "delete", "masters", "master-01")
    wait_for(lambda: not cloud.get(f"/v2/lbaas/pools/{cloud.pool_id}/members?name=master-01")[1]
             ["members"], bound, interval=POLL, what="master-01 deleted in Octavia")
    cloud.assert_parents_unlocked("after the delete")
    cloud.cli.json("member", "create", "--name", "master-01", "--address", "127.0.0.1",
                   "--protocol-port", str(cloud.sims[0].port), "masters")
    cloud.wait_member("master-01", "ACTIVE", timeout=bound)
    cloud.wait_online()


def test_failover_is_accepted_and_pushes_the_load_balancer_again(cloud):
    member = cloud.member("master-02")
    # vigil loses a member behind Octavia's back (its own API); a failover gives it back.
    code, _ = raw(cloud.vigil, "DELETE", f"/v2/lbaas/pools/{cloud.pool_id}/members/{member['id']}")
    assert code == 204
    start = time.monotonic()
    assert cloud.put(f"/v2/lbaas/loadbalancers/{cloud.lb_id}/failover") == 202
    cloud.wait_provisioning("ACTIVE", timeout=20)
    figure("failover -> ACTIVE", time.monotonic() - start)
    code, body = raw(cloud.vigil, "GET", f"/v2/lbaas/pools/{cloud.pool_id}/members/{member['id']}")
    assert code == 200 and body["member"]["weight"] == 5, body
    assert f"load balancer {cloud.lb_id} pushed to vigil" in cloud.octavia.log_text("api")
    cloud.assert_parents_unlocked("after the failover")
    cloud.wait_online()


def test_a_vigil_restarted_without_its_state_gets_the_load_balancer_back(cloud):
    cloud.kill_vigil()
    cloud.wait_tree("ERROR", timeout=4 * INTERVAL)
    start = time.monotonic()
    cloud.start_vigil("empty-state.json")  # no state file: vigil starts with nothing
    cloud.wait_online()
    seconds = figure("restarted empty -> everything ONLINE", time.monotonic() - start)
    log = cloud.octavia.log_text("agent")
    assert f"vigil does not have load balancer {cloud.lb_id}" in log
    code, _ = raw(cloud.vigil, "GET", f"/v2/lbaas/loadbalancers/{cloud.lb_id}")
    assert code == 200
    cloud.assert_parents_unlocked(f"after the catch-up ({seconds:.1f}s)")
    cloud.traffic_flows()
