"""The Octavia API over raw HTTP: bad input gets 400 or 413 with a faultstring and changes
nothing; objects survive `kill -9` with their ids (admin.state_file), also in the middle of a
burst of writes.
"""
import json
import signal
import threading

from testing.harness.octavia_api import create, free_port, post_huge, raw, start_vigil
from testing.harness.vigil_process import EchoServer, Vigil, echo_once, saved_bytes, saved_state
from testing.harness.wait import wait_for


def build(vigil, backend_port):
    """A load balancer with a listener, a pool with a TCP monitor and one member; their ids."""
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s"})
    port = free_port()
    listener = create(vigil, "listeners", "listener",
                      {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN", "name": "masters"})
    member = create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend_port,
                                            "name": "m1"},
                    path=f"/v2/lbaas/pools/{pool['id']}/members")
    monitor = create(vigil, "healthmonitors", "healthmonitor",
                     {"pool_id": pool["id"], "type": "TCP", "delay": 1, "timeout": 1,
                      "max_retries": 1})
    return {"lb": lb["id"], "listener": listener["id"], "pool": pool["id"],
            "member": member["id"], "monitor": monitor["id"], "port": port}


def everything(vigil):
    """Every Octavia list, to compare before and after."""
    out = {}
    for kind in ("loadbalancers", "listeners", "pools", "healthmonitors"):
        code, body = raw(vigil, "GET", f"/v2.0/lbaas/{kind}")
        assert code == 200
        out[kind] = sorted(o["id"] for o in body[kind])
    return out


def test_bad_input_gets_a_faultstring_and_changes_nothing(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil, backend.port)
    before = everything(vigil)
    state = saved_bytes(tmp_path / "state.json")
    pool_members = f"/v2.0/lbaas/pools/{ids['pool']}/members"
    cases = [
        ("POST", "/v2.0/lbaas/healthmonitors",
         {"healthmonitor": {"pool_id": ids["pool"], "type": "PING", "delay": 1, "timeout": 1,
                            "max_retries": 1}}, "PING"),
        ("PUT", f"/v2.0/lbaas/healthmonitors/{ids['monitor']}",
         {"healthmonitor": {"max_retries": 0}}, "max_retries"),
        ("POST", "/v2.0/lbaas/listeners",
         {"listener": {"loadbalancer_id": ids["lb"], "protocol": "TCP", "protocol_port": 70000}},
         "70000"),
        ("POST", pool_members, b'{"member": {"address": ', "Request is not in valid JSON format"),
        ("POST", pool_members, {"member": {"address": "127.0.0.1"}}, "protocol_port"),
        ("POST", pool_members, {"member": {"address": "127.0.0.1", "protocol_port": "x"}},
         "Expected an integer"),
        ("POST", "/v2.0/lbaas/pools", {"pool": {"loadbalancer_id": ids["lb"], "protocol": "UDP",
                                                "lb_algorithm": "ROUND_ROBIN"}}, "UDP"),
    ]
    for method, path, body, words in cases:
        code, answer = raw(vigil, method, path, body)
        assert code == 400, (path, answer)
        assert words in answer["faultstring"], answer
    code, text = post_huge(vigil, pool_members, 10 * 1024 * 1024)
    assert code == 413
    assert "faultstring" in json.loads(text)
    assert everything(vigil) == before
    assert saved_bytes(tmp_path / "state.json") == state
    # The listener still carries traffic.
    wait_for(lambda: echo_once("127.0.0.1", ids["port"], b"ping") == b"ping", 10,
             what="traffic through the API's listener")


def test_objects_survive_kill_9_with_their_ids(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil, backend.port)
    before = everything(vigil)
    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    assert everything(again) == before
    code, body = raw(again, "GET", f"/v2.0/lbaas/pools/{ids['pool']}/members/{ids['member']}")
    assert code == 200 and body["member"]["name"] == "m1"
    wait_for(lambda: echo_once("127.0.0.1", ids["port"], b"again") == b"again", 10,
             what="traffic after the restart")


def test_a_kill_during_a_burst_of_writes_leaves_a_readable_state_file(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "burst"})
    pool = create(vigil, "pools", "pool", {"loadbalancer_id": lb["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN"})
    stop = threading.Event()

    def writer():
        port = 20000
        while not stop.is_set():
            port += 1
            try:
                raw(vigil, "POST", f"/v2/lbaas/pools/{pool['id']}/members",
                    {"member": {"address": "127.0.0.1", "protocol_port": port}})
            except OSError:
                return  # vigil is gone
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    wait_for(lambda: len(saved_state(tmp_path / "state.json")["loadbalancers"][0]
                         ["pools"][0]["members"]) >= 20, 20, what="20 members written")
    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    stop.set()
    t.join(10)
    saved = saved_state(tmp_path / "state.json")  # whole, or a last line cut short left out
    kept = len(saved["loadbalancers"][0]["pools"][0]["members"])
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    code, body = raw(again, "GET", f"/v2/lbaas/pools/{pool['id']}/members")
    assert code == 200 and len(body["members"]) == kept


def test_lists_page_sort_and_keep_only_the_fields_asked_for(tmp_path, cleanup):
    """Octavia's limit, marker, sort and fields, and a client following the `next` links
    (absolute URLs from the Host it asked, as Octavia's)."""
    backend = EchoServer()
    cleanup(backend)
    vigil = start_vigil(tmp_path, cleanup)
    ids = build(vigil, backend.port)
    members = f"/v2/lbaas/pools/{ids['pool']}/members"
    for n, name in enumerate(("m2", "m3", "m4"), start=2):  # other addresses: one member each
        create(vigil, None, "member", {"address": f"127.0.0.{n}", "protocol_port": backend.port,
                                       "name": name}, path=members)

    code, body = raw(vigil, "GET", members + "?fields=name&fields=id")
    assert code == 200 and all(set(m) == {"name", "id"} for m in body["members"]), body
    seen, path = [], members + "?limit=3"
    for _ in range(4):  # two pages: the full first links onwards, the short last does not
        code, body = raw(vigil, "GET", path)
        assert code == 200, body
        seen += [m["name"] for m in body["members"]]
        following = [link["href"] for link in body["members_links"] if link["rel"] == "next"]
        if not following:
            break
        base = f"http://{vigil.admin}/"
        assert following[0].startswith(base), following
        path = following[0][len(base) - 1:]
    # Octavia's order: created_at (to the second), then the random ids.
    assert sorted(seen) == ["m1", "m2", "m3", "m4"], seen

    code, body = raw(vigil, "GET", members + "?sort=name:desc&limit=2")
    assert code == 200 and [m["name"] for m in body["members"]] == ["m4", "m3"], body
    # Octavia reads limit and sort before its API code runs: those errors have webob's shape.
    for query, key, fault in (
            ("limit=two", "description", "Supplied pagination limit 'two' is not valid."),
            ("marker=nope", "faultstring", "Supplied pagination marker 'nope' is not valid."),
            ("sort=name:sideways", "description",
             "Supplied sort direction 'sideways' is not valid.")):
        code, body = raw(vigil, "GET", f"{members}?{query}")
        assert code == 400 and body.get(key) == fault, (query, code, body)
