"""The driver's pure parts: Octavia's provider objects as vigil request bodies, the refusals,
the status updates a change reports and the operating statuses read from vigil. No Octavia
process is needed, only octavia-lib."""
import pytest

octavia_lib = pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402
from octavia_lib.api.drivers import exceptions  # noqa: E402

from vigil_octavia import status, translate  # noqa: E402
from vigil_octavia.provisioning import Change, status_update  # noqa: E402

LB, LN, POOL, M, HM = (f"00000000-0000-4000-8000-00000000000{i}" for i in range(1, 6))


def test_creates_keep_octavias_ids_and_leave_unset_fields_to_vigil():
    body = translate.loadbalancer(dm.LoadBalancer(loadbalancer_id=LB, name="k8s",
                                                  vip_address="127.0.0.1", description=None,
                                                  project_id="p1", listeners=[], pools=[]))
    assert body == {"id": LB, "name": "k8s", "vip_address": "127.0.0.1", "project_id": "p1",
                    "tags": [translate.OWNER_TAG]}  # the agent deletes only what is tagged
    # On a pair or a fleet the nodes' VRRP or BGP brings the address: ACTIVE_STANDBY in vigil.
    shared = translate.loadbalancer(dm.LoadBalancer(loadbalancer_id=LB, vip_address="192.0.2.9"),
                                    shared=True)
    assert shared["topology"] == "ACTIVE_STANDBY"
    body = translate.loadbalancer(dm.LoadBalancer(
        loadbalancer_id=LB, flavor={"loadbalancer_topology": "ACTIVE_STANDBY"}))
    assert body == {"id": LB, "topology": "ACTIVE_STANDBY",  # a flavor's topology
                    "tags": [translate.OWNER_TAG]}
    body = translate.member(dm.Member(member_id=M, pool_id=POOL, address="10.0.0.11",
                                      protocol_port=6443, weight=1, monitor_port=None))
    assert body == {"id": M, "address": "10.0.0.11", "protocol_port": 6443, "weight": 1}


def test_updates_send_what_changed_and_null_resets():
    body = translate.member(dm.Member(weight=0, monitor_port=None), updating=True)
    assert body == {"weight": 0, "monitor_port": None}
    body = translate.listener(dm.Listener(connection_limit=100, protocol_port=6443),
                              updating=True)
    assert body == {"connection_limit": 100}  # the port cannot change


def test_tcp_monitors_carry_no_http_fields():
    hm = dm.HealthMonitor(healthmonitor_id=HM, pool_id=POOL, type="TLS-HELLO", delay=5,
                          timeout=10, max_retries=4, url_path="/", http_method="GET")
    assert translate.healthmonitor(hm) == {"id": HM, "pool_id": POOL, "type": "TLS-HELLO",
                                           "delay": 5, "timeout": 10, "max_retries": 4}
    https = dm.HealthMonitor(url_path="/readyz")
    assert translate.healthmonitor(https, updating=True, monitor_type="HTTPS") == {
        "url_path": "/readyz"}


def test_allowed_cidrs_and_source_ip_persistence_reach_vigil():
    # As Octavia's API hands them to a provider: the list as given, and every persistence key,
    # unset ones as None.
    cidrs = ["10.0.0.0/8", "fd00::/8"]
    assert translate.listener(dm.Listener(listener_id=LN, protocol="TCP", protocol_port=22623,
                                          allowed_cidrs=cidrs))["allowed_cidrs"] == cidrs
    assert translate.listener(dm.Listener(allowed_cidrs=None), updating=True) == {
        "allowed_cidrs": None}
    sp = {"type": "SOURCE_IP", "cookie_name": None, "persistence_timeout": None,
          "persistence_granularity": None}
    assert translate.pool(dm.Pool(pool_id=POOL, protocol="TCP", lb_algorithm="ROUND_ROBIN",
                                  session_persistence=sp))["session_persistence"] == {
        "type": "SOURCE_IP", "persistence_timeout": None, "persistence_granularity": None}
    assert translate.pool(dm.Pool(session_persistence=None), updating=True) == {
        "session_persistence": None}


@pytest.mark.parametrize("make, message", [
    (lambda: translate.listener(dm.Listener(listener_id=LN, protocol="HTTP")),
     "listener protocol HTTP is not supported (use TCP)"),
    (lambda: translate.listener(dm.Listener(listener_id=LN, protocol="TERMINATED_HTTPS",
                                            default_tls_container_ref="x")),
     "listener protocol TERMINATED_HTTPS"),
    (lambda: translate.pool(dm.Pool(pool_id=POOL, protocol="UDP")),
     "pool protocol UDP is not supported"),
    (lambda: translate.pool(dm.Pool(pool_id=POOL, protocol="TCP",
                                    lb_algorithm="SOURCE_IP_PORT")),
     "vigil does not balance by SOURCE_IP_PORT"),
    (lambda: translate.pool(dm.Pool(pool_id=POOL, protocol="TCP",
                                    session_persistence={"type": "HTTP_COOKIE"})),
     "session persistence HTTP_COOKIE is not supported (use SOURCE_IP"),
    (lambda: translate.pool(dm.Pool(pool_id=POOL, protocol="TCP", tls_enabled=True)),
     "pool tls_enabled is not supported"),
    (lambda: translate.healthmonitor(dm.HealthMonitor(healthmonitor_id=HM, type="PING")),
     "vigil does not run PING health monitors"),
    (lambda: translate.loadbalancer(dm.LoadBalancer(loadbalancer_id=LB,
                                                    listeners=[dm.Listener()])),
     "create the load balancer first"),
])
def test_what_vigil_does_not_do_is_refused(make, message):
    with pytest.raises(exceptions.UnsupportedOptionError) as refused:
        make()
    assert message in refused.value.user_fault_string


def test_a_change_reports_itself_and_unlocks_its_parents():
    change = Change("member", M, "create", apply=None, pool_id=POOL)
    parents = {"pools": {POOL}, "listeners": {LN}, "loadbalancers": {LB}}
    assert status_update(change, "ACTIVE", {"operating_status": "NO_MONITOR"}, parents) == {
        "members": [{"id": M, "provisioning_status": "ACTIVE", "operating_status": "NO_MONITOR"}],
        "pools": [{"id": POOL, "provisioning_status": "ACTIVE"}],
        "listeners": [{"id": LN, "provisioning_status": "ACTIVE"}],
        "loadbalancers": [{"id": LB, "provisioning_status": "ACTIVE"}],
    }
    # A failed change is ERROR, and its parents are usable again all the same.
    failed = status_update(change, "ERROR", None, parents)
    assert failed["members"] == [{"id": M, "provisioning_status": "ERROR"}]
    assert failed["loadbalancers"] == [{"id": LB, "provisioning_status": "ACTIVE"}]


def test_a_cascade_delete_reports_every_child_deleted():
    change = Change("loadbalancer", LB, "delete", apply=None,
                    children={"listeners": {LN}, "pools": {POOL}, "members": {M},
                              "healthmonitors": {HM}})
    update = status_update(change, "DELETED", None, {})
    assert update["loadbalancers"] == [{"id": LB, "provisioning_status": "DELETED"}]
    for key, object_id in (("listeners", LN), ("pools", POOL), ("members", M),
                           ("healthmonitors", HM)):
        assert update[key] == [{"id": object_id, "provisioning_status": "DELETED"}]


def test_operating_statuses_and_statistics_come_from_vigil():
    answer = {"loadbalancers": [
        {"loadbalancer": {"id": "file-lb", "operating_status": "ONLINE",
                          "source_file": "/etc/vigil/vigil.yaml"}, "listeners": [], "pools": []},
        {"loadbalancer": {"id": LB, "operating_status": "DEGRADED", "source_file": ""},
         "listeners": [{"id": LN, "operating_status": "ONLINE"}],
         "pools": [{"id": POOL, "operating_status": "DEGRADED",
                    "members": [{"id": M, "operating_status": "ERROR"}]}]},
    ]}
    entries = status.api_loadbalancers(answer)
    assert [e["loadbalancer"]["id"] for e in entries] == [LB]  # not the config file's
    assert status.operating_update(entries[0]) == {
        "loadbalancers": [{"id": LB, "operating_status": "DEGRADED"}],
        "listeners": [{"id": LN, "operating_status": "ONLINE"}],
        "pools": [{"id": POOL, "operating_status": "DEGRADED"}],
        "members": [{"id": M, "operating_status": "ERROR"}],
    }
    node_a = {"active_connections": 1, "total_connections": 7, "bytes_in": 512,
              "bytes_out": 4096, "request_errors": 0}
    node_b = dict(node_a, active_connections=2, bytes_in=8)
    assert status.statistics_update({LN: [node_a]}) == {"listeners": [dict(node_a, id=LN)]}
    # A pair or a fleet: the sums over the nodes.
    assert status.statistics_update({LN: [node_a, node_b]}) == {
        "listeners": [{"id": LN, "active_connections": 3, "total_connections": 14,
                       "bytes_in": 520, "bytes_out": 8192, "request_errors": 0}]}
