"""A pair of vigil nodes on one real etcd (admin.store type etcd) behind the real Octavia 11 API
and driver agent ([vigil] endpoints lists both): the seed's load balancer, created through
`openstack loadbalancer`, is written once, through the first node, and served by both with no
ERROR; with that node killed, the other serves and Octavia's API still changes members (through
the node that answers), and the node back catches up from the store, not from the agent.

The etcd is on loopback, which the driver does not take as shared by itself (each node's
127.0.0.1:2379 could be an etcd of its own): [vigil] shared_store = true says it.
"""
import os
import time

import pytest

from provider_cloud import INTERVAL, POLL, SLACK, Cloud, Traffic, figure
from testing.harness.etcd import ETCD, EtcdCluster
from testing.harness.octavia_api import raw
from testing.harness.octavia_harness import missing
from testing.harness.wait import wait_for

pytestmark = [pytest.mark.skipif(missing() is not None, reason=str(missing())),
              pytest.mark.skipif(not os.path.exists(ETCD),
                                 reason=f"{ETCD} is not installed")]

# A status within two polls; a node back follows etcd within a poll of the agent, plus slack.
BOUND = 3 * INTERVAL + SLACK


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shared")
    etcd = EtcdCluster(tmp / "etcd", members=1)
    try:
        etcd.wait_ready(30)
        c = Cloud(tmp, names=("a", "b"), etcd=etcd, vigil_options="shared_store = true\n")
    except BaseException:
        etcd.stop_all()
        raise
    yield c
    c.stop()
    etcd.stop_all()


def store(node):
    return raw(node, "GET", "/v1/status")[1]["store"]


def test_the_seeds_load_balancer_is_written_once_and_served_by_both_nodes(cloud):
    cloud.wait_online()
    a, b = cloud.nodes["a"], cloud.nodes["b"]
    for node in (a, b):
        assert raw(node, "GET", f"/v2/lbaas/loadbalancers/{cloud.lb_id}")[0] == 200
        assert store(node)["following"] and store(node)["conflicts"] == 0
    assert cloud.weights("a") == cloud.weights("b") == {"master-01": 1, "master-02": 1}
    # Six creates (load balancer, listener, pool, two members, monitor), all through node a.
    assert store(a)["writes"] >= 6 and store(b)["writes"] == 0, (store(a), store(b))
    api_log = cloud.octavia.log_text("api")
    assert "not applied on node" not in api_log and "now ERROR" not in api_log
    cloud.assert_parents_unlocked("after the seed")
    agent_log = cloud.octavia.log_text("agent")
    assert "pushing it" not in agent_log and "not pushed to vigil" not in agent_log


def test_a_killed_node_leaves_the_other_serving_and_changes_going_through_it(cloud):
    traffic = Traffic(cloud.port)
    try:
        wait_for(lambda: traffic.ok >= 10, 10, interval=POLL, what="traffic through the pair")
        cloud.kill_vigil("a")
        cloud.wait_tree("DEGRADED", timeout=2 * BOUND)
        start = time.monotonic()
        cloud.cli.run("member", "set", "--weight", "5", "masters", "master-01")
        seconds = figure("member change with the first node killed -> ACTIVE",
                         cloud.wait_member("master-01", "ACTIVE", timeout=2 * BOUND))
        served = traffic.ok
        wait_for(lambda: traffic.ok >= served + 10, 10, interval=POLL,
                 what="traffic served by node b")
    finally:
        traffic.stop()
    assert cloud.weights("b")["master-01"] == 5
    assert store(cloud.nodes["b"])["writes"] == 1
    assert seconds < 2 * BOUND, f"ACTIVE {time.monotonic() - start:.2f}s after the change"
    cloud.assert_parents_unlocked("after a change with node a down")

    cloud.start_vigil("state.json", "a")
    # Node a follows the store again and holds the change it missed, with nothing pushed.
    wait_for(lambda: cloud.weights("a") == {"master-01": 5, "master-02": 1}, 2 * BOUND,
             interval=POLL, what="node a holding the change from the store")
    cloud.wait_online()
    agent_log = cloud.octavia.log_text("agent")
    assert "pushing it" not in agent_log, agent_log[-3000:]
