"""A load balancer's Octavia `topology` over raw HTTP: SINGLE by default, ACTIVE_STANDBY (a
keepalived pair, docs/ha.md) accepted on create, reported by show and list, kept across a
restart; any other value, or a change by update, is a 400 with a faultstring and changes nothing.
The config file's load balancer reports SINGLE.
"""
import signal

from testing.harness.octavia_api import create, raw, start_vigil
from testing.harness.vigil_process import Vigil, saved_bytes


def test_topology_is_validated_kept_and_reported(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    single = create(vigil, "loadbalancers", "loadbalancer", {"name": "one"})
    pair = create(vigil, "loadbalancers", "loadbalancer", {"name": "pair", "topology": "ACTIVE_STANDBY"})
    assert single["topology"] == "SINGLE"
    assert pair["topology"] == "ACTIVE_STANDBY"

    state = saved_bytes(tmp_path / "state.json")
    code, body = raw(vigil, "POST", "/v2.0/lbaas/loadbalancers",
                     {"loadbalancer": {"name": "bad", "topology": "ACTIVE_ACTIVE"}})
    assert code == 400, body
    assert body["faultstring"] == ("Invalid input for field/attribute topology. Value: 'ACTIVE_ACTIVE'. "
                                   "Value should be one of: SINGLE, ACTIVE_STANDBY"), body
    code, body = raw(vigil, "PUT", f"/v2.0/lbaas/loadbalancers/{pair['id']}",
                     {"loadbalancer": {"topology": "SINGLE"}})
    assert code == 400 and "topology" in body["faultstring"], (code, body)
    assert saved_bytes(tmp_path / "state.json") == state

    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    code, body = raw(again, "GET", f"/v2.0/lbaas/loadbalancers/{pair['id']}")
    assert code == 200 and body["loadbalancer"]["topology"] == "ACTIVE_STANDBY", body
    code, body = raw(again, "GET", "/v2.0/lbaas/loadbalancers")
    topologies = {lb["name"]: lb["topology"] for lb in body["loadbalancers"]}
    # The config file's load balancer (named after the file) is a SINGLE one.
    assert topologies == {"one": "SINGLE", "pair": "ACTIVE_STANDBY", "vigil": "SINGLE"}, topologies
