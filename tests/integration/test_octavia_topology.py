"""A load balancer's topology over raw HTTP: SINGLE by default, ACTIVE_STANDBY (a keepalived
pair, docs/ha.md) accepted on create as `topology` (the provider driver's spelling) or
`vigil_topology`, reported as `vigil_topology` (vigil's own fields share that prefix; Octavia 11
shows no topology) by show and list, kept across a restart; any other value, or a change by
update, is a 400 with a faultstring and changes nothing. The config file's load balancer reports
SINGLE.
"""
import signal

from testing.harness.octavia_api import create, raw, start_vigil
from testing.harness.vigil_process import Vigil, saved_bytes


def test_topology_is_validated_kept_and_reported(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    single = create(vigil, "loadbalancers", "loadbalancer", {"name": "one"})
    pair = create(vigil, "loadbalancers", "loadbalancer", {"name": "pair", "topology": "ACTIVE_STANDBY"})
    spelt = create(vigil, "loadbalancers", "loadbalancer",
                   {"name": "spelt", "vigil_topology": "ACTIVE_STANDBY"})
    assert single["vigil_topology"] == "SINGLE" and "topology" not in single
    assert pair["vigil_topology"] == "ACTIVE_STANDBY"
    assert spelt["vigil_topology"] == "ACTIVE_STANDBY"

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
    assert code == 200 and body["loadbalancer"]["vigil_topology"] == "ACTIVE_STANDBY", body
    code, body = raw(again, "GET", "/v2.0/lbaas/loadbalancers")
    topologies = {lb["name"]: lb["vigil_topology"] for lb in body["loadbalancers"]}
    # The config file's load balancer (named after the file) is a SINGLE one.
    assert topologies == {"one": "SINGLE", "pair": "ACTIVE_STANDBY", "spelt": "ACTIVE_STANDBY",
                          "vigil": "SINGLE"}, topologies
    # Octavia's filter on its topology column reads it.
    code, body = raw(again, "GET", "/v2.0/lbaas/loadbalancers?topology=SINGLE&fields=name")
    assert code == 200 and sorted(lb["name"] for lb in body["loadbalancers"]) == ["one", "vigil"]
