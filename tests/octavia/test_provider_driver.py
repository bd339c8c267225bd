"""The first seed's scenario through the real Octavia 11 API with the vigil provider driver: the
stock `openstack loadbalancer` CLI creates a load balancer with `--provider vigil`, a TCP
listener, a pool and three members on simulated API servers (NO_MONITOR), then the TLS-HELLO
monitor the seed lacked (ONLINE); a stopped backend goes ERROR and comes back ONLINE in Octavia's
`member list`, fed by vigil's checks through the driver agent; `member set` disables and drains;
traffic shows in `stats show`; allowed_cidrs and SOURCE_IP session persistence set through
Octavia act in traffic; `delete --cascade` removes it from Octavia and vigil. What vigil
does not do is refused at Octavia's API; what vigil refuses (a VIP that is not on its host)
turns the object ERROR.
"""
import json
import re
import urllib.error
import urllib.request

import pytest

from testing.harness.octavia_api import free_port, raw, refused, start_vigil
from testing.harness.octavia_harness import PROJECT_ID, Octavia, OctaviaCli, missing
from testing.harness.vigil_process import ApiSim, https_get
from testing.harness.wait import wait_for

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def octavia_get(octavia, path):
    """GET on Octavia's API (through the proxy); (status, JSON or None)."""
    try:
        with _opener.open(octavia.endpoint + path, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def wait_lb(octavia, lb_id, status="ACTIVE", timeout=60.0):
    """Waits for the load balancer's provisioning_status; fails at once on ERROR."""
    def reached():
        code, body = octavia_get(octavia, f"/v2/lbaas/loadbalancers/{lb_id}")
        current = body["loadbalancer"]["provisioning_status"] if code == 200 else code
        if current == "ERROR" != status:
            raise AssertionError(f"load balancer {lb_id} went ERROR: "
                                 f"{octavia.log_text('api')[-4000:]}")
        return current == status
    wait_for(reached, timeout, interval=0.2, what=f"load balancer {lb_id} {status}")


def agent_requests(octavia, expected):
    """{"create member": {driver library methods it called but the one status update}, ...} from
    the vigil driver's log lines, once `expected` says how many writes of a kind are logged
    (a line is written just after the status update)."""
    def lines():
        found = {}
        for line in octavia.log_text("api").splitlines():
            line = re.sub(r"\x1b\[[0-9;]*m", "", line)  # oslo.log's colours
            head, sep, calls = line.partition(" requests of Octavia's driver agent: ")
            if sep:
                action, kind = head.split("vigil: ", 1)[1].split()[:2]
                found.setdefault(f"{action} {kind}", []).append(calls.split(", "))
        return found if all(len(found.get(k, ())) >= n for k, n in expected.items()) else None
    found = wait_for(lines, timeout=10, interval=0.2, what=f"the driver's lines for {expected}")
    for write, each in found.items():
        assert all(calls[-1] == "update_loadbalancer_status" and
                   calls.count("update_loadbalancer_status") == 1 for calls in each), (write, each)
    return {write: {c for calls in each for c in calls[:-1]} for write, each in found.items()}


def test_seed_scenario_through_octavia(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2, 3)]
    for sim in sims:
        cleanup(sim)
    vigil = start_vigil(tmp_path, cleanup)
    octavia = Octavia(tmp_path, vigil.admin, tmp_path / "token")
    cleanup(octavia)
    lb = OctaviaCli(octavia)

    created = lb.json("create", "--name", "k8s", "--vip-subnet-id", "loopback",
                      "--vip-address", "127.0.0.1", "--provider", "vigil")
    assert created["provider"] == "vigil" and created["project_id"] == PROJECT_ID
    lb_id = created["id"]
    wait_lb(octavia, lb_id)
    # vigil holds it under Octavia's id: no mapping anywhere.
    code, body = raw(vigil, "GET", f"/v2/lbaas/loadbalancers/{lb_id}")
    assert code == 200 and body["loadbalancer"]["name"] == "k8s", body

    port = free_port()
    listener = lb.json("listener", "create", "--name", "api", "--protocol", "TCP",
                       "--protocol-port", str(port), "k8s")
    wait_lb(octavia, lb_id)
    pool = lb.json("pool", "create", "--name", "masters", "--protocol", "TCP",
                   "--lb-algorithm", "ROUND_ROBIN", "--listener", "api")
    wait_lb(octavia, lb_id)
    for sim in sims:
        lb.json("member", "create", "--name", sim.name, "--address", "127.0.0.1",
                "--protocol-port", str(sim.port), "masters")
        wait_lb(octavia, lb_id)
    code, body = raw(vigil, "GET", f"/v2/lbaas/pools/{pool['id']}/members")
    assert sorted(m["name"] for m in body["members"]) == ["master-01", "master-02", "master-03"]

    # The seed's bug, now visible in Octavia: without a monitor nothing is known.
    members = lb.wait_members("masters", "NO_MONITOR", timeout=30)
    assert {m["provisioning_status"] for m in members.values()} == {"ACTIVE"}

    monitor = lb.json("healthmonitor", "create", "--delay", "5", "--max-retries", "4",
                      "--timeout", "10", "--type", "TLS-HELLO", "masters")
    wait_lb(octavia, lb_id)
    code, body = raw(vigil, "GET", f"/v2/lbaas/healthmonitors/{monitor['id']}")
    assert code == 200 and body["healthmonitor"]["type"] == "TLS-HELLO", body
    lb.wait_members("masters", "ONLINE", timeout=60)

    # Traffic flows through vigil's listener; Octavia's statistics show its bytes.
    for _ in range(6):
        status, headers, _ = https_get("127.0.0.1", port, "/readyz")
        assert status == 200 and headers.get("X-Served-By", "").startswith("master-0")
    # The agent writes what vigil counted at its last poll: wait until that is all six.
    stats = wait_for(lambda: (s := lb.json("stats", "show", "k8s"))["total_connections"] >= 6 and s,
                     timeout=30, interval=0.5, what="six connections in Octavia's statistics")
    assert stats["bytes_in"] > 0 and stats["bytes_out"] > 0, stats

    # allowed_cidrs, set through Octavia, keeps every other client from the members: vigil
    # closes this client (127.0.0.1) at accept; taken away, it is served again.
    lb.run("listener", "set", "--allowed-cidr", "127.0.0.2/32", "--allowed-cidr", "10.0.0.0/8",
           "api")
    wait_lb(octavia, lb_id)
    code, body = raw(vigil, "GET", f"/v2/lbaas/listeners/{listener['id']}")
    assert body["listener"]["allowed_cidrs"] == ["127.0.0.2/32", "10.0.0.0/8"], body
    with pytest.raises(OSError):
        https_get("127.0.0.1", port, "/readyz", timeout=3)
    lb.run("listener", "unset", "--allowed-cidrs", "api")
    wait_lb(octavia, lb_id)
    assert https_get("127.0.0.1", port, "/readyz")[0] == 200
    # SOURCE_IP persistence, set through Octavia, is vigil's stick table.
    lb.run("pool", "set", "--session-persistence", "type=SOURCE_IP", "masters")
    wait_lb(octavia, lb_id)
    code, body = raw(vigil, "GET", f"/v2/lbaas/pools/{pool['id']}")
    assert body["pool"]["session_persistence"]["type"] == "SOURCE_IP", body
    served_by = {https_get("127.0.0.1", port, "/readyz")[1]["X-Served-By"] for _ in range(4)}
    assert len(served_by) == 1, served_by  # one client, one member
    refused_cookie = lb.run("pool", "set", "--session-persistence",
                            "type=APP_COOKIE,cookie_name=s", "masters", check=False)
    assert "session persistence APP_COOKIE is not supported" in refused_cookie.stderr, (
        refused_cookie.stderr)
    lb.run("pool", "unset", "--session-persistence", "masters")
    wait_lb(octavia, lb_id)

    # A stopped backend goes ERROR in Octavia, the others stay ONLINE; back when it returns.
    sims[0].kill()
    members = lb.wait_members("masters", "ERROR", ["master-01"], timeout=90)
    assert members["master-02"]["operating_status"] == "ONLINE"
    tree = json.loads(lb.run("status", "show", "k8s").stdout)["loadbalancer"]
    assert tree["operating_status"] == "DEGRADED", tree
    tree_pool = tree["listeners"][0]["pools"][0]
    assert tree_pool["id"] == pool["id"] and tree_pool["operating_status"] == "DEGRADED"
    assert tree_pool["health_monitor"]["id"] == monitor["id"]
    restarted = ApiSim(tmp_path, "master-01", port=sims[0].port)
    cleanup(restarted)
    lb.wait_members("masters", "ONLINE", ["master-01"], timeout=90)

    # Updates go through too: disabled is OFFLINE, weight 0 is DRAINING, in vigil and Octavia.
    lb.run("member", "set", "--disable", "masters", "master-02")
    wait_lb(octavia, lb_id)
    lb.run("member", "set", "--weight", "0", "masters", "master-03")
    wait_lb(octavia, lb_id)
    lb.wait_members("masters", "OFFLINE", ["master-02"], timeout=30)
    members = lb.wait_members("masters", "DRAINING", ["master-03"], timeout=30)
    assert members["master-03"]["weight"] == 0
    code, body = raw(vigil, "GET", f"/v2/lbaas/pools/{pool['id']}/members")
    assert {m["name"]: m["operating_status"] for m in body["members"]} == {
        "master-01": "ONLINE", "master-02": "OFFLINE", "master-03": "DRAINING"}

    # What each write asked Octavia's driver agent (one forked process a request): a create's
    # look until it committed (one, unless the API was slow to commit) and one status update;
    # the pool's load balancer from vigil, so never get_pool.
    asked = agent_requests(octavia, {"create member": 3, "update pool": 2, "update member": 2,
                                     "create healthmonitor": 1})
    assert {"create pool": {"get_pool"}, "create member": {"get_loadbalancer"},
            "create healthmonitor": {"get_loadbalancer"}, "update pool": {"get_loadbalancer"},
            "update member": {"get_loadbalancer"}}.items() <= asked.items(), asked

    # What vigil does not do is refused at Octavia's API, and nothing is created.
    for protocol in ("HTTP", "UDP"):
        done = lb.run("listener", "create", "--protocol", protocol, "--protocol-port",
                      str(free_port()), "k8s", check=False)
        assert done.returncode != 0
        assert f"listener protocol {protocol} is not supported" in done.stderr, done.stderr
    assert [ln["id"] for ln in lb.json("listener", "list")] == [listener["id"]]

    # What only vigil can check decides ERROR: it binds a VIP on its own host, and 192.0.2.1
    # (TEST-NET-1) is none of its addresses. Octavia shows ERROR with vigil's reason in its log,
    # and the load balancer can be deleted.
    other = lb.json("create", "--name", "elsewhere", "--vip-subnet-id", "loopback",
                    "--vip-address", "192.0.2.1", "--provider", "vigil")
    wait_lb(octavia, other["id"], status="ERROR")
    assert "vip_address 192.0.2.1 is not an address of this host" in octavia.log_text("api")
    lb.run("delete", "elsewhere")
    wait_lb(octavia, other["id"], status=404)

    lb.run("delete", "--cascade", "k8s")
    wait_lb(octavia, lb_id, status=404)
    code, _ = raw(vigil, "GET", f"/v2/lbaas/loadbalancers/{lb_id}")
    assert code == 404
    assert raw(vigil, "GET", f"/v2/lbaas/pools/{pool['id']}")[0] == 404
    assert refused(port)
