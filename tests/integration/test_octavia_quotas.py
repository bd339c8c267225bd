"""Octavia's quota writes: PUT /v2/lbaas/quotas/{project_id} sets a project's quotas (only the
fields given), GET shows them (-1 for the rest), DELETE resets them; they survive a kill -9; a
create beyond one is Octavia's 403."""
import signal

from testing.harness.octavia_api import create, free_port, raw, start_vigil
from testing.harness.vigil_process import Vigil

QUOTAS = "/v2/lbaas/quotas"


def test_quotas_are_set_shown_reset_and_kept(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    code, body = raw(vigil, "PUT", f"{QUOTAS}/p1", {"quota": {"load_balancer": 2, "member": 10}})
    assert code == 202, body
    assert body["quota"]["load_balancer"] == 2 and body["quota"]["listener"] == -1, body
    code, body = raw(vigil, "PUT", f"{QUOTAS}/p1", {"quota": {"member": None, "pool": 3}})
    assert code == 202 and body["quota"] == {"load_balancer": 2, "listener": -1, "member": -1,
                                             "pool": 3, "health_monitor": -1, "l7policy": -1,
                                             "l7rule": -1}, body
    code, body = raw(vigil, "PUT", f"{QUOTAS}/p2", {"quota": {"pool": -2}})
    assert code == 400 and "Value should be greater or equal to -1" in body["faultstring"], body
    code, body = raw(vigil, "PUT", f"{QUOTAS}/p1", {"quota": {"pool": 3}}, token=None)
    assert code == 401, body

    code, body = raw(vigil, "GET", QUOTAS)
    assert code == 200 and [q["project_id"] for q in body["quotas"]] == ["p1"], body
    code, body = raw(vigil, "GET", f"{QUOTAS}/p2")
    assert code == 200 and set(body["quota"].values()) == {-1}, body

    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    code, body = raw(again, "GET", f"{QUOTAS}/p1")
    assert code == 200 and body["quota"]["pool"] == 3 and body["quota"]["load_balancer"] == 2, body

    code, body = raw(again, "DELETE", f"{QUOTAS}/p1")
    assert code == 202, body
    code, body = raw(again, "GET", f"{QUOTAS}/p1")
    assert code == 200 and set(body["quota"].values()) == {-1}, body
    code, body = raw(again, "DELETE", f"{QUOTAS}/p1")
    assert code == 404 and body["faultstring"] == "Quotas p1 not found.", body
    code, body = raw(again, "GET", QUOTAS)
    assert code == 200 and body["quotas"] == [], body


def test_a_create_beyond_a_quota_is_forbidden(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    code, body = raw(vigil, "PUT", f"{QUOTAS}/p1", {"quota": {"load_balancer": 1, "listener": 1}})
    assert code == 202, body
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "a", "project_id": "p1"})
    code, body = raw(vigil, "POST", "/v2/lbaas/loadbalancers",
                     {"loadbalancer": {"name": "b", "project_id": "p1"}})
    assert code == 403 and body["faultstring"] == "Quota has been met for resources: Load Balancer", body
    create(vigil, "loadbalancers", "loadbalancer", {"name": "c", "project_id": "p2"})  # no quota

    create(vigil, "listeners", "listener",
           {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": free_port()})
    code, body = raw(vigil, "POST", "/v2/lbaas/listeners", {"listener": {
        "loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": free_port()}})
    assert code == 403 and body["faultstring"] == "Quota has been met for resources: Listener", body
    code, body = raw(vigil, "GET", "/v2/lbaas/loadbalancers?project_id=p1")
    assert code == 200 and [x["name"] for x in body["loadbalancers"]] == ["a"], body

    # Reset: the project is unlimited again.
    code, body = raw(vigil, "DELETE", f"{QUOTAS}/p1")
    assert code == 202, body
    create(vigil, "loadbalancers", "loadbalancer", {"name": "b", "project_id": "p1"})
