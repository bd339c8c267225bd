"""vigil nodes that keep their objects in one shared store (admin.store type etcd): how the driver
detects them, writes each change once through the first node that answers, fails over, reads a
create back after a timeout instead of sending it twice, and how the agent leaves a lagging node
to the store instead of pushing to it. Fake nodes over one fake store: no network."""
import logging

import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402

from vigil_octavia import shared_store  # noqa: E402
from vigil_octavia.client import VigilError  # noqa: E402
from vigil_octavia.fleet import Fleet  # noqa: E402

ETCD = "etcd (https://10.0.0.11:2379, https://10.0.0.12:2379)"
LB = "00000000-0000-4000-8000-0000000000c0"


def store_doc(name=ETCD, prefix="/vigil/prod/", type="etcd"):
    return {"store": {"type": type, "name": name, "prefix": prefix, "following": True},
            "loadbalancers": []}


@pytest.mark.parametrize("docs, nodes, expected", [
    ({"a": store_doc(), "b": store_doc()}, 2, True),
    ({"a": store_doc(), "b": store_doc(prefix="/vigil/staging/")}, 2, False),
    ({"a": store_doc(), "b": store_doc(name="etcd (https://10.0.0.99:2379)")}, 2, False),
    ({"a": store_doc(), "b": {"loadbalancers": []}}, 2, False),  # b keeps a state file
    ({"a": store_doc(name="etcd (http://127.0.0.1:2379)"),
      "b": store_doc(name="etcd (http://127.0.0.1:2379)")}, 2, False),  # which etcd each?
    ({"a": store_doc(), "b": dict(store_doc(), store={"type": "etcd", "name": ETCD})}, 2,
     False),  # a vigil that does not show its prefix
    ({"a": store_doc()}, 2, None),  # b did not answer: cannot tell yet
    ({"a": store_doc()}, 1, False),
])
def test_nodes_share_a_store_when_all_name_the_same_etcd_and_prefix(docs, nodes, expected):
    assert shared_store.decide(docs, nodes)[0] is expected


class SharedEtcd:
    """What every node of the fake shares: {(kind, id): fields}."""

    def __init__(self):
        self.objects = {}


class Node:
    """A vigil node on `etcd`. `fault`: how its next writes fail: "refused" (never sent),
    "timeout" (no answer; the write landed, or not with `lands=False`), "503", "400"."""

    def __init__(self, etcd, doc=None):
        self.etcd = etcd
        self.doc = doc or store_doc()
        self.fault = None
        self.lands = True
        self.writes = []  # (method, kind, id) this node was sent
        self.statuses = 0

    def _write(self, method, kind, object_id, apply):
        self.writes.append((method, kind, object_id))
        if self.fault == "refused":
            raise VigilError(None, "cannot reach vigil at http://a: Connection refused")
        if self.fault == "503":
            raise VigilError(503, f"vigil answered 503: The write was not acknowledged: {ETCD} "
                                  "did not commit it (timed out).")
        if self.fault == "400":
            raise VigilError(400, "vigil answered 400: port 80 is taken")
        if self.fault == "timeout":
            if self.lands:
                apply()
            raise VigilError(None, "cannot reach vigil at http://a: timed out",
                             maybe_applied=True)
        return apply()

    def create(self, kind, fields, pool_id=None):
        key = (kind, fields["id"])

        def apply():
            if key in self.etcd.objects:
                raise VigilError(409, f"vigil answered 409: {kind} {fields['id']} exists")
            self.etcd.objects[key] = dict(fields, operating_status="ONLINE")
            return self.etcd.objects[key]
        return self._write("POST", kind, fields["id"], apply)

    def update(self, kind, object_id, fields, pool_id=None):
        def apply():
            self.etcd.objects[(kind, object_id)].update(fields)
            return self.etcd.objects[(kind, object_id)]
        return self._write("PUT", kind, object_id, apply)

    def get(self, kind, object_id, pool_id=None):
        if self.fault in ("refused", "timeout"):
            raise VigilError(None, "cannot reach vigil at http://a: Connection refused")
        return self.etcd.objects.get((kind, object_id))

    def status(self):
        self.statuses += 1
        if self.fault in ("refused", "timeout"):
            raise VigilError(None, "cannot reach vigil at http://a: Connection refused")
        return self.doc


def pair(**kw):
    etcd = SharedEtcd()
    a, b = Node(etcd), Node(etcd)
    clock = [100.0]
    return etcd, a, b, Fleet({"a": a, "b": b}, clock=lambda: clock[0], **kw), clock


def create_lb(client):
    return client.create("loadbalancer", {"id": LB, "name": "k8s"})


def read_back(client):
    return client.get("loadbalancer", LB)


def test_detection_is_asked_once_kept_and_asked_again_after_an_error():
    etcd, a, b, fleet, clock = pair()
    assert fleet.shares_store() and fleet.shares_store()
    assert (a.statuses, b.statuses) == (1, 1)
    a.fault = "refused"
    fleet.apply(create_lb, retry_after=5, landed=read_back)
    clock[0] += 1
    assert fleet.shares_store()  # stale, but a answers no status and b alone cannot tell
    assert fleet.store_stale and b.statuses == 1
    clock[0] += Fleet.DETECT_AGAIN
    a.fault = None
    a.doc = {"loadbalancers": []}  # a was given a state file of its own meanwhile
    assert not fleet.shares_store() and b.statuses == 2


def test_the_option_says_it_without_asking_the_nodes():
    etcd, a, b, fleet, _ = pair(store=shared_store.FALSE)
    assert not fleet.shares_store() and a.statuses == 0
    etcd, a, b, fleet, _ = pair(store=shared_store.TRUE)
    a.doc = b.doc = {"loadbalancers": []}
    assert fleet.shares_store() and a.statuses == 0


def test_a_change_is_written_once_through_the_first_node():
    etcd, a, b, fleet, _ = pair()
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert list(results) == ["a"] and results["a"][1] is None
    assert (a.writes, b.writes) == ([("POST", "loadbalancer", LB)], [])
    assert etcd.objects[("loadbalancer", LB)]["name"] == "k8s"


def test_without_a_shared_store_every_node_still_gets_the_change():
    etcd_a, etcd_b = SharedEtcd(), SharedEtcd()
    a, b = Node(etcd_a, {"loadbalancers": []}), Node(etcd_b, {"loadbalancers": []})
    fleet = Fleet({"a": a, "b": b})
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert [error for _, error in results.values()] == [None, None]
    assert len(a.writes) == len(b.writes) == 1


@pytest.mark.parametrize("fault", ["refused", "503"])
def test_a_node_that_surely_did_not_write_it_fails_over_to_the_next(fault):
    etcd, a, b, fleet, _ = pair()
    fleet.shares_store()
    a.fault = fault
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert results["a"][1] is not None and results["b"] == (etcd.objects[("loadbalancer", LB)],
                                                            None)
    assert len(b.writes) == 1
    assert ("a" in fleet.down_until) is (fault == "refused")


def test_a_refusal_of_vigil_itself_is_not_sent_to_the_next_node():
    etcd, a, b, fleet, _ = pair()
    fleet.shares_store()
    a.fault = "400"
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert list(results) == ["a"] and results["a"][1].status == 400 and b.writes == []


def test_after_a_timeout_a_create_that_landed_is_read_back_not_sent_again():
    etcd, a, b, fleet, _ = pair()
    fleet.shares_store()
    a.fault = "timeout"  # committed, but the answer never came
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert results["b"] == (etcd.objects[("loadbalancer", LB)], None)
    assert b.writes == []  # no second create, no 409


def test_after_a_timeout_a_create_that_did_not_land_is_sent_through_the_next_node():
    etcd, a, b, fleet, _ = pair()
    fleet.shares_store()
    a.fault, a.lands = "timeout", False
    results = fleet.apply(create_lb, retry_after=5, landed=read_back)
    assert results["b"][1] is None and b.writes == [("POST", "loadbalancer", LB)]


def test_a_timed_out_create_that_lands_after_the_read_back_is_taken_as_done():
    """The next node read nothing, then met the first node's write in the store (409)."""
    etcd, a, b, fleet, _ = pair()
    fleet.shares_store()
    a.fault, a.lands = "timeout", False
    reads = []

    def late_read(client):
        reads.append(client)
        if len(reads) == 1:
            found = client.get("loadbalancer", LB)
            etcd.objects[("loadbalancer", LB)] = {"id": LB, "operating_status": "ONLINE"}
            return found
        return client.get("loadbalancer", LB)

    results = fleet.apply(create_lb, retry_after=5, landed=late_read)
    assert results["b"] == ({"id": LB, "operating_status": "ONLINE"}, None)


def test_an_update_that_timed_out_is_sent_again_as_applying_it_twice_changes_nothing():
    etcd, a, b, fleet, _ = pair()
    etcd.objects[("loadbalancer", LB)] = {"id": LB, "name": "k8s"}
    fleet.shares_store()
    a.fault = "timeout"
    results = fleet.apply(lambda c: c.update("loadbalancer", LB, {"name": "k9s"}),
                          retry_after=5)
    assert results["b"][1] is None and etcd.objects[("loadbalancer", LB)]["name"] == "k9s"


def test_the_worker_reports_a_create_active_not_error_detected_or_not():
    """The driver's own path: Change.landed comes from driver._landed."""
    from vigil_octavia import driver
    from vigil_octavia.provisioning import Change, Worker

    class Lib:
        updates = []

        def get_loadbalancer(self, lb_id):
            return dm.LoadBalancer(loadbalancer_id=lb_id)

        get_listener = get_pool = get_member = get_healthmonitor = get_loadbalancer

        def update_loadbalancer_status(self, update):
            self.updates.append(update)

    for detected in (True, False):
        etcd, a, b, fleet, _ = pair()
        if detected:
            fleet.shares_store()
        worker = Worker.__new__(Worker)  # without its thread
        worker.lib, worker.conf = Lib(), type("Conf", (), {"status_interval": 5,
                                                           "commit_timeout": 1})
        a.fault = "timeout"
        Lib.updates = []
        worker.process(Change("loadbalancer", LB, "create", create_lb,
                              landed=driver._landed("loadbalancer", LB)), fleet)
        assert worker.lib.updates == [{"loadbalancers": [
            {"id": LB, "provisioning_status": "ACTIVE", "operating_status": "ONLINE"}]}]
        # Not detected (a did not answer the status either): sent to both, and b's 409 read
        # back as done rather than an error.
        assert b.writes == ([] if detected else [("POST", "loadbalancer", LB)])


def test_a_repush_on_a_shared_store_goes_through_one_node():
    from vigil_octavia import repush
    etcd, a, b, fleet, _ = pair()
    tree = repush.Tree(dm.LoadBalancer(loadbalancer_id=LB, name="k8s", vip_address="10.0.0.5",
                                       listeners=[], pools=[]))
    pushed = []
    a.create = lambda kind, fields, pool_id=None: pushed.append(("a", kind))
    b.create = lambda kind, fields, pool_id=None: pushed.append(("b", kind))
    assert repush.push_to(fleet, tree, absent=["a", "b"]) == {"a": None}
    assert pushed == [("a", "loadbalancer")]


def test_the_agent_leaves_a_lagging_node_to_the_store_and_pushes_once_what_none_serves(
        monkeypatch, caplog):
    import test_agent
    from vigil_octavia import agent

    class StoreVigil(test_agent.FakeVigil):
        def status(self):
            return dict(super().status(), store=store_doc()["store"])

    made = []

    def push_to(fleet, tree, names=None, absent=()):
        made.append((tree.id, sorted(names), fleet.shares_store()))
        return {names[0]: None}

    monkeypatch.setattr(agent.repush, "push_to", push_to)
    caplog.set_level(logging.INFO)
    a, b = StoreVigil(), StoreVigil()
    octavia, poller = test_agent.pair_poller(a, b)
    b.has_ours = False  # b's copy of the store is behind
    poller.poll()
    poller.poll()
    assert made == [] and octavia.locked == []
    assert caplog.text.count("vigil node b lags behind the shared store") == 1
    b.has_ours = True
    poller.poll()
    assert "vigil node b holds what the shared store holds again" in caplog.text
    a.has_ours = b.has_ours = False  # gone from the store itself (etcd restored from a backup)
    poller.poll()
    assert made == [(test_agent.OURS, ["a", "b"], True)] and octavia.locked == [test_agent.OURS]


def test_a_request_that_never_connected_surely_did_not_write_and_one_that_timed_out_may_have():
    import socket

    from vigil_octavia.client import VigilClient

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(VigilError) as refused:
        VigilClient(f"http://127.0.0.1:{port}", "/dev/null", 1).request("POST", "/x")
    assert refused.value.status is None and not refused.value.maybe_applied
    with socket.socket() as silent:  # takes the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        client = VigilClient(f"http://127.0.0.1:{silent.getsockname()[1]}", "/dev/null", 0.2)
        with pytest.raises(VigilError) as timed_out:
            client.request("POST", "/x")
    assert timed_out.value.maybe_applied and "timed out" in timed_out.value.message
