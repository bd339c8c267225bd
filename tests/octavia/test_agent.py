"""The provider agent's poll, with fake vigil nodes, a fake driver library and a fake Octavia
database: what it writes to Octavia and when, while the nodes answer, when one or all stop, and
how it brings a node that lacks a load balancer, missed a change or kept a deleted one back to
what Octavia holds."""
import shutil
import subprocess

import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402

from vigil_octavia import agent  # noqa: E402
from vigil_octavia import translate  # noqa: E402
from vigil_octavia.agent import StatusPoller  # noqa: E402
from vigil_octavia.client import VigilError  # noqa: E402
from vigil_octavia.fleet import Fleet  # noqa: E402

OURS, FOREIGN, LN = "lb-octavia", "lb-vigil-only", "listener-1"
POOL, MEMBER, HM = f"{OURS}/pool", f"{OURS}/m", "hm"


class FakeVigil:
    """A vigil node holding the config file's load balancer, one of its own API's, and ours."""

    def __init__(self):
        self.member_status = "ONLINE"
        self.weight = 1  # our member's, as this node holds it
        self.bytes_in = 10
        self.down = None  # the reason it does not answer
        self.has_ours = True
        self.started_at = "2026-12-05T02:00:00Z"  # when its process started
        self.deleted_in_octavia = []  # load balancers it holds with the owner tag
        self.deletes = []

    def _lb(self, lb_id, source_file=""):
        return {"loadbalancer": {"id": lb_id, "operating_status": "ONLINE",
                                 "source_file": source_file, "started_at": self.started_at},
                "listeners": [{"id": f"{lb_id}/{LN}", "operating_status": "ONLINE",
                               "protocol_port": 6443, "default_pool_id": f"{lb_id}/pool",
                               "active_connections": 0, "total_connections": 3,
                               "bytes_in": self.bytes_in, "bytes_out": 20,
                               "request_errors": 0}],
                "pools": [{"id": f"{lb_id}/pool", "operating_status": "ONLINE",
                           "health_monitor": {"id": HM, "interval_ms": 5000,
                                              "timeout_ms": 2000},
                           "members": [{"id": f"{lb_id}/m", "operating_status":
                                        self.member_status, "address": "10.0.0.1",
                                        "protocol_port": 6443, "weight": self.weight,
                                        "backup": False, "admin_state_up": True}]}]}

    def _answer(self):
        if self.down:
            raise VigilError(None, f"cannot reach vigil at http://vigil: {self.down}")

    def status(self):
        self._answer()
        lbs = [self._lb("file", "/etc/vigil/vigil.yaml"), self._lb(FOREIGN)]
        lbs += [self._lb(i) for i in self.deleted_in_octavia]
        return {"loadbalancers": lbs + ([self._lb(OURS)] if self.has_ours else [])}

    def request(self, method, path):
        self._answer()
        assert (method, path) == ("GET", "/v2/lbaas/loadbalancers?limit=infinite")
        return {"loadbalancers": [{"id": FOREIGN, "tags": []}, {"id": "file"}] +
                [{"id": i, "tags": [translate.OWNER_TAG]} for i in self.deleted_in_octavia]}

    def delete(self, kind, object_id, pool_id=None, cascade=False):
        self.deletes.append((kind, object_id, cascade))


class FakeLibrary:
    def get_loadbalancer(self, lb_id):
        assert lb_id == OURS
        return dm.LoadBalancer(
            loadbalancer_id=OURS, listeners=[
                {"listener_id": f"{OURS}/{LN}", "admin_state_up": True, "protocol_port": 6443,
                 "default_pool_id": POOL}],
            pools=[{"pool_id": POOL,
                    "healthmonitor": {"healthmonitor_id": HM, "delay": 5, "timeout": 2},
                    "members": [{"member_id": MEMBER, "address": "10.0.0.1",
                                 "protocol_port": 6443, "weight": 1, "backup": False,
                                 "admin_state_up": True}]}])


class FakeOctavia:
    """Octavia's database: our load balancer, and the locks the agent took."""

    def __init__(self):
        self.provisioning = "ACTIVE"
        self.member_error = False  # a change no node took
        self.locked = []
        self.marks = []  # the provisioning statuses the agent wrote
        self.statuses, self.stats = [], []  # the operating statuses and statistics

    def loadbalancers(self):
        return {OURS: (self.provisioning, "ONLINE")}

    def with_error_objects(self):
        return {OURS} if self.member_error else set()

    def trees(self, lb_ids):
        return {OURS: FakeLibrary().get_loadbalancer(OURS)} if OURS in lb_ids else {}

    def lock_for_failover(self, lb_ids):
        self.locked += lb_ids
        return set(lb_ids) if self.provisioning in ("ACTIVE", "ERROR") else set()

    def mark(self, updates):
        self.marks.append(updates)

    def write_operating(self, updates):
        self.statuses.append(updates)

    def write_statistics(self, listeners):
        if listeners:
            self.stats.append({"listeners": listeners})


@pytest.fixture
def pushes(monkeypatch):
    """The re-pushes the agent makes: (load balancer, nodes); each succeeds."""
    made = []

    def push_to(fleet, tree, names=None, absent=()):
        made.append((tree.id, sorted(names)))
        return {name: None for name in names}

    monkeypatch.setattr(agent.repush, "push_to", push_to)
    return made


def pair_poller(a, b, resync_polls=100):
    """A fresh FakeOctavia and the agent's poller of nodes `a` and `b`."""
    octavia = FakeOctavia()
    return octavia, StatusPoller(Fleet({"a": a, "b": b}), FakeLibrary(), resync_polls, octavia)


def lb_statuses(octavia):
    return [u["loadbalancers"] for u in octavia.statuses]


def test_writes_only_octavias_load_balancers_and_only_changes(pushes):
    octavia = FakeOctavia()
    vigil, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(Fleet({"a": vigil}), lib, resync_polls=3, octavia=octavia)
    poller.poll()
    assert [u["loadbalancers"][0]["id"] for u in octavia.statuses] == [OURS]
    assert octavia.statuses[0]["members"] == [{"id": MEMBER, "operating_status": "ONLINE"}]
    assert octavia.stats == [{"listeners": [{"id": f"{OURS}/{LN}", "active_connections": 0,
                                         "total_connections": 3, "bytes_in": 10,
                                         "bytes_out": 20, "request_errors": 0}]}]

    poller.poll()  # nothing changed: nothing written
    assert len(octavia.statuses) == 1 and len(octavia.stats) == 1
    vigil.member_status = "ERROR"
    poller.poll()  # a change, and the third poll is a resync anyway
    assert octavia.statuses[-1]["members"] == [{"id": MEMBER, "operating_status": "ERROR"}]
    poller.poll()
    poller.poll()
    assert len(octavia.statuses) == 2
    assert len(octavia.stats) == 1  # statistics only when they change, resyncs included
    poller.poll()  # the sixth: a resync writes the operating statuses again, changed or not
    assert len(octavia.statuses) == 3 and len(octavia.stats) == 1
    vigil.bytes_in = 4096
    poller.poll()  # traffic: the statistics alone
    assert len(octavia.statuses) == 3 and octavia.stats[-1]["listeners"][0]["bytes_in"] == 4096
    assert len(octavia.stats) == 2
    assert pushes == []  # the node held Octavia's tree at the start and at every resync


UNREACHABLE = {"loadbalancers": [{"id": OURS, "operating_status": "ERROR"}],
               "listeners": [{"id": f"{OURS}/{LN}", "operating_status": "ERROR"}],
               "pools": [{"id": POOL, "operating_status": "OFFLINE"}],
               "members": [{"id": MEMBER, "operating_status": "OFFLINE"}]}


def test_a_vigil_that_stops_answering_leaves_no_stale_online(pushes):
    octavia = FakeOctavia()
    vigil, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(Fleet({"a": vigil}), lib, resync_polls=100, octavia=octavia)
    poller.poll()
    vigil.down = "Connection refused"
    poller.poll()
    assert octavia.statuses[-1] == UNREACHABLE  # the health driver's rules for a silent amphora
    poller.poll()
    assert len(octavia.statuses) == 2  # once per episode
    vigil.down = None
    poller.poll()  # back with its state: its own statuses again, though they did not change
    assert len(octavia.statuses) == 3
    assert octavia.statuses[-1]["loadbalancers"] == [{"id": OURS, "operating_status": "ONLINE"}]


def test_a_node_of_a_pair_that_stops_answering_makes_it_degraded_not_error(pushes):
    a, b = FakeVigil(), FakeVigil()
    octavia, poller = pair_poller(a, b)
    poller.poll()
    assert lb_statuses(octavia) == [[{"id": OURS, "operating_status": "ONLINE"}]]
    assert octavia.stats[-1]["listeners"][0]["total_connections"] == 6  # both nodes' clients
    a.down = "timed out"
    poller.poll()
    assert lb_statuses(octavia)[-1] == [{"id": OURS, "operating_status": "DEGRADED"}]
    assert octavia.statuses[-1]["members"] == [{"id": MEMBER, "operating_status": "ONLINE"}]
    b.down = "Connection refused"
    poller.poll()
    assert octavia.statuses[-1] == UNREACHABLE  # nothing serves it
    a.down = b.down = None
    poller.poll()
    assert lb_statuses(octavia)[-1] == [{"id": OURS, "operating_status": "ONLINE"}]


def test_a_node_that_lacks_a_load_balancer_gets_it_under_the_failover_lock(pushes):
    a, b, lib, octavia = FakeVigil(), FakeVigil(), FakeLibrary(), FakeOctavia()
    poller = StatusPoller(Fleet({"a": a, "b": b}), lib, resync_polls=100, octavia=octavia)
    b.has_ours = False  # restarted without its state, or replaced
    poller.poll()
    assert lb_statuses(octavia)[0] == [{"id": OURS, "operating_status": "DEGRADED"}]
    assert octavia.locked == [OURS] and pushes == [(OURS, ["b"])]
    assert {x["provisioning_status"] for items in octavia.marks[-1].values()
            for x in items} == {"ACTIVE"}  # the whole tree, as a failover marks it
    assert len(octavia.marks[-1]["members"]) == 1
    octavia.provisioning = "PENDING_UPDATE"  # a change holds it: left to that change
    poller.poll()
    assert pushes == [(OURS, ["b"])] and octavia.locked == [OURS]


def test_a_node_back_from_an_outage_is_compared_in_full_and_pushed_where_it_differs(pushes):
    a, b = FakeVigil(), FakeVigil()
    octavia, poller = pair_poller(a, b)
    poller.poll()
    b.down = "timed out"
    poller.poll()
    b.down, b.weight = None, 7  # it missed the change back to weight 1
    a.weight = 1
    poller.poll()
    assert pushes == [(OURS, ["b"])]
    poller.poll()  # not back any more: compared again only at the next resync
    assert pushes == [(OURS, ["b"])]


def test_a_difference_the_node_never_went_away_for_is_found_at_the_resync(pushes):
    octavia = FakeOctavia()
    a, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(Fleet({"a": a}), lib, resync_polls=3, octavia=octavia)
    poller.poll()
    a.weight = 9  # changed behind Octavia's back, through the node's own API
    poller.poll()
    assert pushes == []
    poller.poll()  # the resync
    assert pushes == [(OURS, ["a"])]


def test_a_load_balancer_octavia_deleted_is_deleted_only_where_it_carries_the_owner_tag(pushes):
    octavia = FakeOctavia()
    a, lib = FakeVigil(), FakeLibrary()
    a.deleted_in_octavia = ["lb-deleted-while-down"]
    poller = StatusPoller(Fleet({"a": a}), lib, resync_polls=100, octavia=octavia)
    poller.poll()  # the agent's start compares every node in full
    assert a.deletes == [("loadbalancer", "lb-deleted-while-down", True)]  # not FOREIGN


def test_an_agent_that_starts_while_vigil_is_down_reads_the_tree_from_octavia(pushes):
    octavia = FakeOctavia()
    vigil, lib = FakeVigil(), FakeLibrary()
    vigil.down = "timed out"
    poller = StatusPoller(Fleet({"a": vigil}), lib, resync_polls=100, octavia=octavia)
    poller.poll()
    assert octavia.statuses == [UNREACHABLE]


def test_objects_in_error_are_repaired_when_a_node_that_holds_the_tree_is_compared(pushes):
    """A frozen node applies a change after it resumes, behind Octavia's ERROR: the node holds
    Octavia's tree, and the push marks the objects ACTIVE again."""
    a, lib, octavia = FakeVigil(), FakeLibrary(), FakeOctavia()
    poller = StatusPoller(Fleet({"a": a}), lib, resync_polls=100, octavia=octavia)
    poller.poll()
    a.down = "timed out"
    poller.poll()
    octavia.member_error = True
    a.down = None
    poller.poll()
    assert pushes == [(OURS, ["a"])]
    assert {"id": MEMBER, "provisioning_status": "ACTIVE"} in octavia.marks[-1]["members"]


def test_a_node_restarted_between_two_polls_is_compared_in_full(pushes):
    octavia = FakeOctavia()
    a, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(Fleet({"a": a}), lib, resync_polls=100, octavia=octavia)
    poller.poll()
    a.weight = 2  # restarted with a state older than Octavia's last change
    poller.poll()
    assert pushes == []  # the same process: compared at the next resync
    a.started_at = "2026-12-05T02:00:07Z"
    poller.poll()
    assert pushes == [(OURS, ["a"])]


def test_a_push_that_fails_leaves_the_load_balancer_as_it_was_or_error_when_nothing_serves(
        monkeypatch):
    monkeypatch.setattr(agent.repush, "push_to", lambda fleet, tree, names=None, absent=(): {
        name: "vigil answered 409: port taken" for name in names})
    a, b, octavia = FakeVigil(), FakeVigil(), FakeOctavia()
    poller = StatusPoller(Fleet({"a": a, "b": b}), FakeLibrary(), resync_polls=100,
                          octavia=octavia)
    b.has_ours = False
    poller.poll()  # a still serves it: unlocked as it was, and tried again at the next poll
    assert octavia.marks == [{"loadbalancers": [{"id": OURS, "provisioning_status": "ACTIVE"}]}]
    a.has_ours = False
    poller.poll()  # nothing serves it and nothing took it
    assert octavia.marks[-1] == {"loadbalancers": [{"id": OURS, "provisioning_status": "ERROR"}]}
    assert octavia.locked == [OURS, OURS]


def test_many_load_balancers_are_locked_pushed_and_marked_a_chunk_at_a_time(pushes):
    class ManyOctavia(FakeOctavia):
        def loadbalancers(self):
            return {f"lb-{i:03}": ("ACTIVE", "ONLINE") for i in range(120)}

        def trees(self, lb_ids):
            return {i: dm.LoadBalancer(loadbalancer_id=i, listeners=[], pools=[])
                    for i in lb_ids}

    octavia = ManyOctavia()
    poller = StatusPoller(Fleet({"a": FakeVigil()}), FakeLibrary(), resync_polls=100,
                          octavia=octavia)
    poller.poll()
    assert len(pushes) == 120
    assert [len(m["loadbalancers"]) for m in octavia.marks] == [50, 50, 20]


def samples(path):
    """{(metric, labels as a sorted tuple): value} of a Prometheus text file."""
    from prometheus_client.parser import text_string_to_metric_families
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(path.read_text())
            for s in family.samples}


def test_the_metrics_file_shows_each_nodes_state(pushes, tmp_path):
    from vigil_octavia import node_metrics
    a, b = FakeVigil(), FakeVigil()
    octavia, poller = pair_poller(a, b)
    b.has_ours = False
    poller.poll()  # b lacks our load balancer: pushed there
    path = tmp_path / "vigil_octavia.prom"
    node_metrics.write(path, poller.records)
    got = samples(path)
    assert got[("vigil_octavia_node_up", (("node", "a"),))] == 1
    assert got[("vigil_octavia_node_loadbalancers", (("node", "a"),))] == 1
    assert got[("vigil_octavia_node_loadbalancers_lacking", (("node", "b"),))] == 1
    assert got[("vigil_octavia_node_pushes_total", (("node", "b"), ("result", "ok")))] == 1
    assert got[("vigil_octavia_node_pushes_total", (("node", "a"), ("result", "ok")))] == 0
    assert got[("vigil_octavia_loadbalancers", (("operating_status", "DEGRADED"),))] == 1
    assert got[("vigil_octavia_polls_total", ())] == 1
    promtool = shutil.which("promtool")  # Debian's prometheus, which scripts/setup.sh installs
    if promtool:
        lint = subprocess.run([promtool, "check", "metrics"], input=path.read_text(),
                              capture_output=True, text=True, timeout=30)
        assert lint.returncode == 0, lint.stdout + lint.stderr

    b.has_ours, a.down = True, "Connection refused"
    a.started_at = b.started_at = "2026-12-05T03:00:00Z"  # b restarted, with its state
    poller.poll()
    node_metrics.write(path, poller.records)
    got = samples(path)
    assert got[("vigil_octavia_node_up", (("node", "a"),))] == 0
    assert got[("vigil_octavia_node_up", (("node", "b"),))] == 1
    assert got[("vigil_octavia_node_loadbalancers_lacking", (("node", "b"),))] == 0
    assert got[("vigil_octavia_node_restarts_total", (("node", "b"),))] == 1
    assert got[("vigil_octavia_node_last_answer_timestamp_seconds", (("node", "a"),))] > 0
    assert got[("vigil_octavia_loadbalancers", (("operating_status", "DEGRADED"),))] == 1

    b.down = "timed out"  # nothing serves it: written as an amphora that stopped reporting
    poller.poll()
    node_metrics.write(path, poller.records)
    assert samples(path)[("vigil_octavia_loadbalancers", (("operating_status", "ERROR"),))] == 1


def test_a_metrics_file_that_cannot_be_written_is_logged_once_and_retried(tmp_path):
    from vigil_octavia import node_metrics
    records = node_metrics.NodeRecords(["a"])
    path = str(tmp_path / "missing-dir" / "vigil_octavia.prom")
    error = agent._write_metrics(path, records, None)
    assert error.startswith(f"cannot write [vigil] metrics_file {path}")
    assert agent._write_metrics(path, records, error) == error
    (tmp_path / "missing-dir").mkdir()
    assert agent._write_metrics(path, records, error) is None
    assert "vigil_octavia_node_up" in open(path).read()
