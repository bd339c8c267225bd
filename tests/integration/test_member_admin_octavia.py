"""`openstack loadbalancer member set --weight 0 / --disable / --enable` on a member of the config
file: once a 409 ("edit the file and reload"), now the member's runtime override, as
`vigil member weight|maint|ready` sets it. Other fields of a file member stay read-only.
"""
import pytest

from testing.harness.octavia_api import OPENSTACK, OpenStack, raw
from testing.harness.vigil_process import EchoServer, Vigil, pool_config

pytestmark = pytest.mark.skipif(
    OPENSTACK is None,
    reason="the openstack CLI is missing (Debian: python3-openstackclient python3-octaviaclient)")

MONITOR = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"


def test_member_set_on_a_file_member_is_a_runtime_override(tmp_path, cleanup):
    b1, b2 = EchoServer(), EchoServer()
    cleanup(b1)
    cleanup(b2)
    text = pool_config(MONITOR, [("master-01", b1.port), ("master-02", b2.port)]).replace(
        "  token_file: @TOKEN_FILE@\n",
        f"  token_file: @TOKEN_FILE@\n  state_file: {tmp_path / 'state.json'}\n")
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    lb = OpenStack(vigil)
    lb.wait_members("masters", "ONLINE")

    lb.run("member", "set", "--weight", "0", "masters", "master-01")
    shown = lb.json("member", "show", "masters", "master-01")
    assert shown["weight"] == 0 and shown["operating_status"] == "DRAINING"
    assert vigil.members()["master-01"]["admin_override"]["by"] == "Octavia API"

    lb.run("member", "set", "--disable", "masters", "master-02")
    shown = lb.json("member", "show", "masters", "master-02")
    assert shown["operating_status"] == "OFFLINE" and shown["admin_state_up"] is False
    assert vigil.members()["master-02"]["admin_override"]["state"] == "maint"

    lb.run("member", "set", "--enable", "masters", "master-02")
    lb.run("member", "set", "--enable", "masters", "master-01")
    lb.wait_members("masters", "ONLINE")
    assert vigil.members()["master-01"]["admin_override"] is None
    assert lb.json("member", "show", "masters", "master-01")["weight"] == 1

    # The 409 is gone for weight and admin_state_up, and stays for the rest.
    pool_id = vigil.status()["pools"][0]["id"]
    member_id = vigil.members()["master-01"]["id"]
    path = f"/v2/lbaas/pools/{pool_id}/members/{member_id}"
    code, body = raw(vigil, "PUT", path, {"member": {"weight": 3}})
    assert code == 200 and body["member"]["weight"] == 3, body
    code, body = raw(vigil, "PUT", path, {"member": {"name": "renamed"}})
    assert code == 409 and "read-only" in body["faultstring"], body
    assert raw(vigil, "DELETE", path)[0] == 409
    assert lb.run("member", "set", "--name", "x", "masters", "master-01", check=False).returncode != 0
    assert vigil.members()["master-01"]["admin_override"]["weight"] == 3


def test_member_set_weight_agrees_with_the_admin_route(tmp_path, cleanup):
    """Octavia's `member set --weight N` and PUT .../admin {"weight": N} leave the same override:
    a weight beside a drain keeps the drain, and the file's own weight (ready) clears it."""
    b1 = EchoServer()
    cleanup(b1)
    text = pool_config(MONITOR, [("master-01", b1.port)]).replace(
        "  token_file: @TOKEN_FILE@\n",
        f"  token_file: @TOKEN_FILE@\n  state_file: {tmp_path / 'state.json'}\n").replace(
        f"port: {b1.port}}}", f"port: {b1.port}, weight: 4}}")
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    lb = OpenStack(vigil)
    lb.wait_members("masters", "ONLINE")
    pool_id = vigil.status()["pools"][0]["id"]
    member_id = vigil.members()["master-01"]["id"]
    octavia = f"/v2/lbaas/pools/{pool_id}/members/{member_id}"
    admin = "/v1/pools/masters/members/master-01/admin"

    def override():
        o = vigil.members()["master-01"]["admin_override"]
        return o and {"state": o["state"], "weight": o["weight"]}

    for set_weight in (
            lambda n: lb.run("member", "set", "--weight", str(n), "masters", "master-01"),
            lambda n: raw(vigil, "PUT", admin, {"weight": n})):
        assert raw(vigil, "PUT", admin, {"state": "drain"})[0] == 200
        set_weight(2)
        assert override() == {"state": "drain", "weight": 2}
        assert lb.json("member", "show", "masters", "master-01")["weight"] == 2
        assert raw(vigil, "PUT", admin, {"state": "ready"})[0] == 200
        set_weight(0)
        assert override() == {"state": "ready", "weight": 0}
        assert lb.json("member", "show", "masters", "master-01")["operating_status"] == "DRAINING"
        set_weight(4)  # the file's weight: nothing left to override
        assert override() is None
        assert raw(vigil, "GET", octavia)[1]["member"]["weight"] == 4
        lb.wait_members("masters", "ONLINE")
    assert "ready (override cleared) by Octavia API" in vigil.log_text()
