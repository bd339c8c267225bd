"""The [vigil] section's nodes, and the comparison of a node's load balancer with Octavia's
(reconcile.drift). Pure: no Octavia, no vigil."""
import types

import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402

from vigil_octavia import fleet, reconcile, repush  # noqa: E402


def conf(endpoints=(), token_files=(), endpoint="http://127.0.0.1:8404",
         token_file="/etc/vigil/token"):
    return types.SimpleNamespace(endpoints=list(endpoints), token_files=list(token_files),
                                 endpoint=endpoint, token_file=token_file)


def test_nodes_default_to_the_single_endpoint_and_take_one_token_each_or_one_for_all():
    assert fleet.nodes(conf()) == [fleet.Node("127.0.0.1:8404", "http://127.0.0.1:8404",
                                              "/etc/vigil/token")]
    pair = fleet.nodes(conf(["http://10.0.0.1:8404", "https://10.0.0.2:8404"],
                            ["/etc/vigil/a", "/etc/vigil/b"]))
    assert [(n.name, n.token_file) for n in pair] == [("10.0.0.1:8404", "/etc/vigil/a"),
                                                      ("10.0.0.2:8404", "/etc/vigil/b")]
    shared = fleet.nodes(conf(["http://10.0.0.1:8404", "http://10.0.0.2:8404"]))
    assert {n.token_file for n in shared} == {"/etc/vigil/token"}


@pytest.mark.parametrize("endpoints, tokens, error", [
    (["http://a:1", "http://b:1", "http://c:1"], ["/t1", "/t2"], "2 entries for 3 endpoints"),
    (["http://a:1", "http://a:1"], [], "names a node twice"),
    (["a:1"], [], "not an http:// or https:// URL"),
])
def test_nodes_that_do_not_add_up_are_refused_with_the_option_at_fault(endpoints, tokens, error):
    with pytest.raises(ValueError, match=error):
        fleet.nodes(conf(endpoints, tokens))


TREE = {"loadbalancer_id": "lb", "listeners": [
    {"listener_id": "ln", "protocol_port": 6443, "default_pool_id": "p"}],
    "pools": [{"pool_id": "p", "healthmonitor": {"healthmonitor_id": "hm", "delay": 5,
                                                  "timeout": 2},
               "members": [{"member_id": "m", "address": "10.0.0.1", "protocol_port": 6443,
                            "weight": 1, "backup": False, "admin_state_up": True}]}]}


def entry(**member):
    return {"listeners": [{"id": "ln", "protocol_port": 6443, "default_pool_id": "p"}],
            "pools": [{"id": "p", "health_monitor": {"id": "hm", "interval_ms": 5000,
                                                     "timeout_ms": 2000},
                       "members": [dict({"id": "m", "address": "10.0.0.1",
                                         "protocol_port": 6443, "weight": 1, "backup": False,
                                         "admin_state_up": True}, **member)]}]}


def test_a_node_holding_octavias_tree_does_not_drift_and_a_missed_change_does():
    tree = repush.Tree(dm.LoadBalancer(**TREE))
    assert reconcile.drift(tree, entry()) is None
    assert "pool p members m" in reconcile.drift(tree, entry(weight=3))
    assert "missing m" in reconcile.drift(tree, {**entry(), "pools": [
        {**entry()["pools"][0], "members": []}]})
    assert "listeners: missing ln" in reconcile.drift(tree, {**entry(), "listeners": []})
    assert "health monitor" in reconcile.drift(tree, {**entry(), "pools": [
        {**entry()["pools"][0], "health_monitor": None}]})
