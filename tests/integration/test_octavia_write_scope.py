"""An Octavia write changes only what it names: the config file's pool runs on as it was, its
members neither checked again nor reset (check results, thresholds, state times, counters), and
an API member's create, update and delete leave the other API members alone too. Also: an
Octavia member set on a file member (the one write that needs the file's members) still works.
"""
from testing.harness.octavia_api import create, free_port, raw
from testing.harness.vigil_process import EchoServer, Vigil, echo_once
from testing.harness.wait import wait_for

# Checked once at start, then every hour: a member checked again was restarted by the write.
CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1h, timeout: 1s}}
    members:
      - {{name: m1, address: 127.0.0.1, port: {port}}}
      - {{name: m2, address: 127.0.0.1, port: {port}}}
"""

KEPT = ("check", "health", "operating_status", "state_since", "consecutive_successes",
        "consecutive_failures", "total_connections", "in_rotation")


def members(vigil, pool):
    """The members of `pool` (of any load balancer: the API's too) by name, from /v1/status."""
    return {m["name"]: m for lb in vigil.status()["loadbalancers"] for p in lb["pools"]
            if p["name"] == pool for m in p["members"]}


def picture(vigil, pool):
    """What must not change of each member of `pool`, by name."""
    return {name: {k: m.get(k) for k in KEPT} for name, m in members(vigil, pool).items()}


def checked(vigil, pool, names):
    """True once every named member of `pool` has a check result."""
    found = members(vigil, pool)
    return all(found.get(n, {}).get("check") for n in names)


def test_writes_leave_what_they_do_not_name_as_it_runs(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, CONFIG.format(state=tmp_path / "state.json", port=backend.port))
    cleanup(vigil)
    wait_for(lambda: checked(vigil, "masters", ["m1", "m2"]), 15, what="the file's first checks")
    host, port = vigil.listener("api")
    assert echo_once(host, port, b"ping") == b"ping"  # a counter that must survive the writes
    wait_for(lambda: sum(m["total_connections"] for m in vigil.members("masters").values()) == 1,
             10, what="the session's count")
    file_before = picture(vigil, "masters")

    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s"})
    listener = create(vigil, "listeners", "listener", {
        "loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": free_port()})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN", "name": "api-pool"})
    members = f"/v2.0/lbaas/pools/{pool['id']}/members"
    create(vigil, "healthmonitors", "healthmonitor", {
        "pool_id": pool["id"], "type": "TCP", "delay": 3600, "timeout": 1, "max_retries": 1})
    a1 = create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend.port,
                                        "name": "a1"}, path=members)
    wait_for(lambda: checked(vigil, "api-pool", ["a1"]), 15, what="a1's first check")
    api_before = picture(vigil, "api-pool")

    # Create, update and delete other members of the API pool; each answer comes after the
    # change ran, and a member the change restarted would be checked at once, like a2.
    other = EchoServer()  # Octavia refuses a second member on the same address and port
    cleanup(other)
    a2 = create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": other.port,
                                        "name": "a2"}, path=members)
    code, body = raw(vigil, "PUT", f"{members}/{a2['id']}", {"member": {"weight": 5}})
    assert code == 200 and body["member"]["weight"] == 5, body
    wait_for(lambda: checked(vigil, "api-pool", ["a2"]), 15, what="a2's first check")
    code, _ = raw(vigil, "DELETE", f"{members}/{a2['id']}")
    assert code == 204

    assert picture(vigil, "masters") == file_before
    assert picture(vigil, "api-pool") == api_before

    # Octavia member set on a file member: a runtime override, found among the file's members.
    file_pool = next(p["id"] for p in vigil.status()["pools"] if p["name"] == "masters")
    m1 = vigil.members("masters")["m1"]
    code, body = raw(vigil, "PUT", f"/v2.0/lbaas/pools/{file_pool}/members/{m1['id']}",
                     {"member": {"weight": 0}})
    assert code == 200, body
    assert body["member"]["id"] == m1["id"], body
    assert vigil.members("masters")["m1"]["admin_override"], vigil.members("masters")["m1"]


def test_the_member_route_finds_pools_of_the_file_and_of_the_api_alike(tmp_path, cleanup):
    """PUT /v1/pools/{pool}/members/{member}/admin builds only the pools its key can name: the
    file's by the daemon's names, the API's by the names people gave them in the object store.
    A name in both is ambiguous there as it is in the full views, and the answer carries the
    member's live check either way."""
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, CONFIG.format(state=tmp_path / "state.json", port=backend.port))
    cleanup(vigil)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s"})
    listener = create(vigil, "listeners", "listener", {
        "loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": free_port()})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN", "name": "masters"})
    create(vigil, "healthmonitors", "healthmonitor", {
        "pool_id": pool["id"], "type": "TCP", "delay": 3600, "timeout": 1, "max_retries": 1})
    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend.port,
                                   "name": "a1"}, path=f"/v2.0/lbaas/pools/{pool['id']}/members")
    wait_for(lambda: checked(vigil, "masters", ["m1", "m2", "a1"]), 15, what="the first checks")
    file_lb = vigil.status()["loadbalancers"][0]
    file_pool, file_name = file_lb["pools"][0]["id"], file_lb["loadbalancer"]["name"]

    code, body = raw(vigil, "PUT", "/v1/pools/masters/members/m1/admin", {"state": "drain"})
    assert code == 409 and "k8s/masters" in body["faultstring"], body
    for path in ("/v1/pools/k8s%2Fmasters/members/a1/admin",
                 f"/v1/pools/{pool['id']}/members/a1/admin",
                 f"/v1/pools/{file_pool}/members/m1/admin",
                 f"/v1/pools/{file_name}%2Fmasters/members/m2/admin"):
        code, body = raw(vigil, "PUT", path, {"state": "drain"})
        assert code == 200, (path, body)
        assert body["member"]["operating_status"] == "DRAINING", (path, body)
        assert body["member"]["check"]["result"] == "ok", (path, body)
        assert raw(vigil, "GET", path)[1]["member"]["admin_override"]["state"] == "drain"
    assert raw(vigil, "GET", "/v1/pools/k8s%2Fnone/members/a1/admin")[0] == 404
    assert raw(vigil, "GET", "/v1/pools/k8s%2Fmasters/members/m1/admin")[0] == 404


def api_load_balancer(vigil, name, backend_port, pool_name):
    """An API load balancer with a listener, a pool checked once an hour and one member; returns
    (load balancer, listener port, pool id)."""
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": name})
    port = free_port()
    listener = create(vigil, "listeners", "listener", {
        "loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN", "name": pool_name})
    create(vigil, "healthmonitors", "healthmonitor", {
        "pool_id": pool["id"], "type": "TCP", "delay": 3600, "timeout": 1, "max_retries": 1})
    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend_port,
                                   "name": f"{pool_name}-m"},
           path=f"/v2.0/lbaas/pools/{pool['id']}/members")
    return lb, port, pool["id"]


def test_a_write_to_one_api_load_balancer_leaves_the_others_running(tmp_path, cleanup):
    """A write hands the daemon the load balancer it changed (or the id of the one it deleted):
    the API's other load balancers run on, their members neither checked again nor reset, their
    listeners serving, in the order they were created; a port another one holds is still refused."""
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, CONFIG.format(state=tmp_path / "state.json", port=backend.port))
    cleanup(vigil)
    first, _, first_pool = api_load_balancer(vigil, "first", backend.port, "first-pool")
    _, second_port, _ = api_load_balancer(vigil, "second", backend.port, "second-pool")
    third, _, _ = api_load_balancer(vigil, "third", backend.port, "third-pool")
    wait_for(lambda: all(checked(vigil, p, [f"{p}-m"]) for p in ("first-pool", "second-pool",
                                                                  "third-pool")),
             15, what="the first checks")
    assert echo_once("127.0.0.1", second_port, b"before") == b"before"
    wait_for(lambda: members(vigil, "second-pool")["second-pool-m"]["total_connections"] == 1,
             10, what="the session's count")
    second_before = picture(vigil, "second-pool")

    other = EchoServer()
    cleanup(other)
    added = create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": other.port},
                   path=f"/v2.0/lbaas/pools/{first_pool}/members")
    code, body = raw(vigil, "PUT", f"/v2.0/lbaas/loadbalancers/{first['id']}",
                     {"loadbalancer": {"description": "changed"}})
    assert code == 200, body
    taken = raw(vigil, "POST", "/v2.0/lbaas/listeners", {"listener": {
        "loadbalancer_id": first["id"], "protocol": "TCP", "protocol_port": second_port}})
    assert taken[0] == 409 and str(second_port) in str(taken[1]), taken
    code, _ = raw(vigil, "DELETE", f"/v2.0/lbaas/loadbalancers/{third['id']}?cascade=true")
    assert code == 204
    code, _ = raw(vigil, "DELETE", f"/v2.0/lbaas/pools/{first_pool}/members/{added['id']}")
    assert code == 204

    assert picture(vigil, "second-pool") == second_before
    assert echo_once("127.0.0.1", second_port, b"after") == b"after"
    names = [lb["loadbalancer"]["name"] for lb in vigil.status()["loadbalancers"]]
    assert names[1:] == ["first", "second"], names
    code, body = raw(vigil, "GET", "/v2.0/lbaas/loadbalancers")
    # Octavia's order: created_at (to the second, which the file's may share), then the ids.
    listed = [lb["name"] for lb in body["loadbalancers"]]
    assert sorted(n for n in listed if n in ("first", "second", "third")) == ["first", "second"], \
        listed
