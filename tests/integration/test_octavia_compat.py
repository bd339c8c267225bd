"""The Octavia API answers as Octavia 11 does: a request id on every answer, the project from
X-Project-Id (or admin.octavia_project) on every object and kept across a restart, exactly
Octavia 11's fields (null, "NONE" and [] included), the status tree's shape, the amphora's status
rules for empty pools, pool-less and full listeners, and WSME's and Octavia's error wording.
"""
import json
import re
import socket

from testing.harness.octavia_api import create, exchange, free_port, raw, start_vigil
from testing.harness.vigil_process import TOKEN, EchoServer, Vigil, saved_state
from testing.harness.wait import wait_for

REQUEST_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

# Octavia 11's response fields (octavia/api/v2/types/*.py, as its API renders them), and the
# extras vigil adds on purpose (docs/api.md, differences).
OCTAVIA_FIELDS = {
    "loadbalancer": {"additional_vips", "admin_state_up", "availability_zone", "created_at",
                     "description", "flavor_id", "id", "listeners", "name", "operating_status",
                     "pools", "project_id", "provider", "provisioning_status", "tags",
                     "tenant_id", "updated_at", "vip_address", "vip_network_id", "vip_port_id",
                     "vip_qos_policy_id", "vip_subnet_id"},
    "listener": {"admin_state_up", "allowed_cidrs", "alpn_protocols", "client_authentication",
                 "client_ca_tls_container_ref", "client_crl_container_ref", "connection_limit",
                 "created_at", "default_pool_id", "default_tls_container_ref", "description", "id",
                 "insert_headers", "l7policies", "loadbalancers", "name", "operating_status",
                 "project_id", "protocol", "protocol_port", "provisioning_status",
                 "sni_container_refs", "tags", "tenant_id", "timeout_client_data",
                 "timeout_member_connect", "timeout_member_data", "timeout_tcp_inspect",
                 "tls_ciphers", "tls_versions", "updated_at"},
    "pool": {"admin_state_up", "alpn_protocols", "ca_tls_container_ref", "created_at",
             "crl_container_ref", "description", "healthmonitor_id", "id", "lb_algorithm",
             "listeners", "loadbalancers", "members", "name", "operating_status", "project_id",
             "protocol", "provisioning_status", "session_persistence", "tags", "tenant_id",
             "tls_ciphers", "tls_container_ref", "tls_enabled", "tls_versions", "updated_at"},
    "member": {"address", "admin_state_up", "backup", "created_at", "id", "monitor_address",
               "monitor_port", "name", "operating_status", "project_id", "protocol_port",
               "provisioning_status", "subnet_id", "tags", "tenant_id", "updated_at", "weight"},
    "healthmonitor": {"admin_state_up", "created_at", "delay", "domain_name", "expected_codes",
                      "http_method", "http_version", "id", "max_retries", "max_retries_down",
                      "name", "operating_status", "pools", "project_id", "provisioning_status",
                      "tags", "tenant_id", "timeout", "type", "updated_at", "url_path"},
}
VIGIL_EXTRAS = {"loadbalancer": {"vigil_topology"},
                "member": {"vigil_check", "vigil_admin_override"}}

CONFIG_WITH_PROJECT = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state_file}
  octavia_project: {project}
"""


def request(vigil, method, path, body=None, headers=None, token=TOKEN):
    """(status, headers, parsed body or the text) of one request."""
    code, answer_headers, text = exchange(vigil, method, path, body, token, headers)
    return code, answer_headers, json.loads(text) if text.startswith("{") else text


def tree(vigil, lb_id):
    code, body = raw(vigil, "GET", f"/v2/lbaas/loadbalancers/{lb_id}/status")
    assert code == 200, body
    return body["statuses"]["loadbalancer"]


def test_every_answer_has_a_fresh_request_id_and_none_echoed(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    mine = {"X-OpenStack-Request-ID": "req-00000000-0000-4000-8000-000000000000"}
    answers = [
        request(vigil, "GET", "/v2.0/lbaas/loadbalancers", headers=mine),
        request(vigil, "GET", "/v2.0/lbaas/pools/00000000-0000-4000-8000-000000000001"),
        request(vigil, "POST", "/v2.0/lbaas/loadbalancers", b"{", headers=mine),
        request(vigil, "GET", "/v2.0/lbaas/listeners", token="wrong"),
        request(vigil, "GET", "/v1/status"),
        request(vigil, "GET", "/healthz", token=None),
    ]
    assert [a[0] for a in answers] == [200, 404, 400, 401, 200, 200]
    ids = [a[1]["x-openstack-request-id"] for a in answers]
    assert all(REQUEST_ID.match(i) for i in ids), ids
    assert len(set(ids)) == len(ids) and mine["X-OpenStack-Request-ID"] not in ids
    assert answers[1][2] == {"faultcode": "Client", "debuginfo": None,
                             "faultstring": "Pool 00000000-0000-4000-8000-000000000001 not found."}


def build(vigil, headers=None, with_monitor=True):
    """A load balancer, a listener, a pool with one member (and a monitor); their objects."""
    def post(path, kind, fields):
        code, _, body = request(vigil, "POST", path, {kind: fields}, headers)
        assert code == 201, body
        return body[kind]
    lb = post("/v2.0/lbaas/loadbalancers", "loadbalancer", {"name": "k8s"})
    listener = post("/v2.0/lbaas/listeners", "listener",
                    {"loadbalancer_id": lb["id"], "protocol": "TCP",
                     "protocol_port": free_port(), "project_id": "someone-else"})
    pool = post("/v2.0/lbaas/pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                              "lb_algorithm": "ROUND_ROBIN"})
    member = post(f"/v2.0/lbaas/pools/{pool['id']}/members", "member",
                  {"address": "127.0.0.1", "protocol_port": free_port()})
    out = {"loadbalancer": lb, "listener": listener, "pool": pool, "member": member}
    if with_monitor:
        out["healthmonitor"] = post("/v2.0/lbaas/healthmonitors", "healthmonitor",
                                    {"pool_id": pool["id"], "type": "TCP", "delay": 5,
                                     "timeout": 5, "max_retries": 2})
    return out


def all_objects(vigil, ids):
    pool = ids["pool"]["id"]
    paths = {"loadbalancer": "/v2/lbaas/loadbalancers", "listener": "/v2/lbaas/listeners",
             "pool": "/v2/lbaas/pools", "member": f"/v2/lbaas/pools/{pool}/members",
             "healthmonitor": "/v2/lbaas/healthmonitors"}
    out = {}
    for kind, path in paths.items():
        code, body = raw(vigil, "GET", f"{path}/{ids[kind]['id']}")
        assert code == 200, body
        out[kind] = body[kind]
    return out


def test_the_project_comes_from_x_project_id_and_survives_a_restart(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil, headers={"X-Project-Id": "p-42"})
    build(vigil)  # no header, no default: ""
    for kind, o in all_objects(vigil, ids).items():
        assert (o["project_id"], o["tenant_id"]) == ("p-42", "p-42"), kind
    for collection in ("loadbalancers", "listeners", "pools", "healthmonitors"):
        code, body = raw(vigil, "GET", f"/v2.0/lbaas/{collection}?project_id=p-42")
        assert [o["id"] for o in body[collection]] == [ids[collection[:-1]]["id"]], collection
        code, body = raw(vigil, "GET", f"/v2.0/lbaas/{collection}")
        # The config file's own load balancer (no listeners) is there too, without a project.
        assert {o["project_id"] for o in body[collection]} == {"", "p-42"}, collection
    vip_port = ids["loadbalancer"]["vip_port_id"]
    vigil.stop()
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    after = all_objects(again, ids)
    assert {o["project_id"] for o in after.values()} == {"p-42"}
    assert after["loadbalancer"]["vip_port_id"] == vip_port


def test_the_configured_project_and_an_old_state_file(tmp_path, cleanup):
    state = tmp_path / "state.json"
    config = CONFIG_WITH_PROJECT.format(state_file=state, project="ops")
    vigil = Vigil(tmp_path, config)
    cleanup(vigil)
    ids = build(vigil, with_monitor=False)
    assert ids["member"]["project_id"] == "ops"
    code, _, lb = request(vigil, "POST", "/v2.0/lbaas/loadbalancers",
                          {"loadbalancer": {"project_id": "given"}}, {"X-Project-Id": "p-1"})
    assert code == 201 and lb["loadbalancer"]["tenant_id"] == "given"
    vigil.stop()
    # A state file from before projects were kept: no project_id anywhere.
    doc = saved_state(state)
    doc.pop("journal")  # the journal's records are in `doc`: it is replayed no more

    def strip(o):
        if isinstance(o, dict):
            o.pop("project_id", None)
            for v in o.values():
                strip(v)
        elif isinstance(o, list):
            for v in o:
                strip(v)
    strip(doc)
    state.write_text(json.dumps(doc))
    again = Vigil(tmp_path, config)
    cleanup(again)
    code, body = raw(again, "GET", f"/v2/lbaas/listeners/{ids['listener']['id']}")
    assert code == 200 and body["listener"]["project_id"] == ""


def test_objects_have_exactly_octavia_11s_fields(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil)
    for kind, o in all_objects(vigil, ids).items():
        missing = OCTAVIA_FIELDS[kind] - o.keys()
        extra = o.keys() - OCTAVIA_FIELDS[kind] - VIGIL_EXTRAS.get(kind, set())
        assert not missing and not extra, (kind, missing, extra)
    objects = all_objects(vigil, ids)
    lb, listener, pool = objects["loadbalancer"], objects["listener"], objects["pool"]
    assert lb["additional_vips"] == [] and lb["vip_qos_policy_id"] is None
    assert re.match(r"^[0-9a-f-]{36}$", lb["vip_port_id"]) and lb["vip_port_id"] != lb["id"]
    assert listener["client_authentication"] == "NONE"
    assert all(listener[k] is None for k in ("tls_ciphers", "tls_versions", "alpn_protocols",
                                             "client_ca_tls_container_ref",
                                             "client_crl_container_ref"))
    assert pool["tls_enabled"] is False
    assert all(pool[k] is None for k in ("tls_ciphers", "tls_versions", "alpn_protocols",
                                         "tls_container_ref", "ca_tls_container_ref",
                                         "crl_container_ref"))
    assert "description" not in objects["member"] and objects["member"]["tags"] == []
    for collection in ("loadbalancers", "listeners", "pools", "healthmonitors"):
        code, body = raw(vigil, "GET", f"/v2.0/lbaas/{collection}")
        assert body[f"{collection}_links"] == [], collection
    code, body = raw(vigil, "GET", f"/v2.0/lbaas/pools/{ids['pool']['id']}/members")
    assert body["members_links"] == []
    # Unset attributes are left out, as WSME does: a pool without a monitor has no
    # healthmonitor_id. A listener without a pool shows the connect timeout vigil would use.
    bare = build(vigil, with_monitor=False)
    code, body = raw(vigil, "GET", f"/v2/lbaas/pools/{bare['pool']['id']}")
    assert "healthmonitor_id" not in body["pool"]
    lone = create(vigil, "listeners", "listener", {"loadbalancer_id": bare["loadbalancer"]["id"],
                                                   "protocol": "TCP", "protocol_port": free_port()})
    assert lone["timeout_member_connect"] == bare["listener"]["timeout_member_connect"] == 1000


def test_status_tree_has_octavias_shape_and_the_amphoras_rules(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil)
    lb_id = ids["loadbalancer"]["id"]
    # A pool no listener uses, and a listener with no pool.
    spare = create(vigil, "pools", "pool", {"loadbalancer_id": lb_id, "protocol": "TCP",
                                            "lb_algorithm": "ROUND_ROBIN", "name": "spare"})
    bare = create(vigil, "listeners", "listener", {"loadbalancer_id": lb_id, "protocol": "TCP",
                                                   "protocol_port": free_port()})
    t = tree(vigil, lb_id)
    assert set(t) == {"id", "name", "operating_status", "provisioning_status", "listeners"}
    by_id = {l["id"]: l for l in t["listeners"]}
    assert by_id[bare["id"]]["pools"] == [] and by_id[bare["id"]]["operating_status"] == "ONLINE"
    assert "l7policies" not in by_id[bare["id"]]
    assert spare["id"] not in json.dumps(t)  # only pools under their listeners
    pool = by_id[ids["listener"]["id"]]["pools"][0]
    monitor = {"id": ids["healthmonitor"]["id"], "name": "", "type": "TCP",
               "operating_status": "ONLINE", "provisioning_status": "ACTIVE"}
    assert pool["health_monitor"] == monitor and "healthmonitor" not in pool  # as Octavia 11
    # The member's backend does not exist: ERROR, its pool ERROR, the load balancer ERROR.
    wait_for(lambda: tree(vigil, lb_id)["operating_status"] == "ERROR", 20,
             what="the load balancer ERROR")
    code, _, _ = request(vigil, "DELETE", f"/v2.0/lbaas/healthmonitors/{ids['healthmonitor']['id']}")
    assert code == 204
    code, _, _ = request(vigil, "DELETE",
                         f"/v2.0/lbaas/pools/{ids['pool']['id']}/members/{ids['member']['id']}")
    assert code == 204
    t = tree(vigil, lb_id)
    pool = {l["id"]: l for l in t["listeners"]}[ids["listener"]["id"]]["pools"][0]
    assert "health_monitor" not in pool and "healthmonitor" not in pool
    # An empty pool is no failure: ONLINE, and so is everything above it.
    assert pool["members"] == [] and pool["operating_status"] == "ONLINE"
    assert t["operating_status"] == "ONLINE"
    code, body = raw(vigil, "GET", f"/v2/lbaas/pools/{ids['pool']['id']}")
    assert body["pool"]["operating_status"] == "ONLINE"


def test_a_listener_at_its_connection_limit_is_degraded(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "full"})
    port = free_port()
    listener = create(vigil, "listeners", "listener",
                      {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port,
                       "connection_limit": 1})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN"})
    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend.port},
           path=f"/v2/lbaas/pools/{pool['id']}/members")

    def statuses():
        t = tree(vigil, lb["id"])
        return t["operating_status"], t["listeners"][0]["operating_status"]
    assert statuses() == ("ONLINE", "ONLINE")
    held = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        held.sendall(b"x")
        assert held.recv(1) == b"x"  # through to the backend: the session is counted
        wait_for(lambda: statuses() == ("DEGRADED", "DEGRADED"), 10, what="listener FULL")
    finally:
        held.close()
    wait_for(lambda: statuses() == ("ONLINE", "ONLINE"), 10, what="listener open again")


def test_error_messages_are_octavias(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil, with_monitor=False)
    pool_members = f"/v2.0/lbaas/pools/{ids['pool']['id']}/members"
    lb_id = ids["loadbalancer"]["id"]
    cases = [
        ("POST", pool_members, b'{"member": ', 400, "Request is not in valid JSON format"),
        ("POST", pool_members,
         {"member": {"address": "127.0.0.1", "protocol_port": 1, "colour": "red"}}, 400,
         "Unknown attribute for argument member_.member: colour"),
        ("PUT", f"/v2.0/lbaas/listeners/{ids['listener']['id']}",
         {"listener": {"protocol": "UDP", "protocol_port": 1}}, 400,
         "Unknown attributes for argument listener_.listener: protocol, protocol_port"),
        ("POST", "/v2.0/lbaas/loadbalancers", {"loadbalancer": {"name": 5}}, 400,
         "Invalid input for field/attribute name. Value: '5'. Value should be string"),
        ("POST", "/v2.0/lbaas/loadbalancers", {"loadbalancer": {"id": lb_id}}, 409,
         "Already an entity with that specified id."),
        ("POST", "/v2.0/lbaas/listeners",
         {"listener": {"loadbalancer_id": lb_id, "protocol": "TCP",
                       "protocol_port": ids["listener"]["protocol_port"]}}, 409,
         "Another Listener on this Load Balancer is already using protocol TCP and protocol_port "
         f"{ids['listener']['protocol_port']}"),
        ("POST", "/v2.0/lbaas/pools",
         {"pool": {"listener_id": ids["listener"]["id"], "protocol": "UDP",
                   "lb_algorithm": "ROUND_ROBIN"}}, 400,
         "Validation failure: The pool protocol 'UDP' is invalid while the listener protocol is "
         "'TCP'."),
        ("DELETE", f"/v2.0/lbaas/loadbalancers/{lb_id}", None, 400,
         f"Validation failure: Cannot delete Load Balancer {lb_id} - it has children"),
    ]
    for method, path, body, status, message in cases:
        code, headers, answer = request(vigil, method, path, body)
        assert (code, answer["faultstring"]) == (status, message), (method, path)
        assert REQUEST_ID.match(headers["x-openstack-request-id"])
