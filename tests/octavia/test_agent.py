"""The provider agent's poll, with a fake vigil, a fake driver library and a fake Octavia
database: what it writes to Octavia and when, while vigil answers, when it stops, and when it
comes back without a load balancer."""
import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402

from vigil_octavia import agent  # noqa: E402
from vigil_octavia.agent import StatusPoller  # noqa: E402
from vigil_octavia.client import VigilError  # noqa: E402

OURS, FOREIGN, LN = "lb-octavia", "lb-vigil-only", "listener-1"


class FakeVigil:
    def __init__(self):
        self.member_status = "ONLINE"
        self.bytes_in = 10
        self.down = None  # the reason it does not answer
        self.has_ours = True

    def status(self):
        if self.down:
            raise VigilError(None, f"cannot reach vigil at http://vigil: {self.down}")
        def lb(lb_id, source_file=""):
            return {"loadbalancer": {"id": lb_id, "operating_status": "ONLINE",
                                     "source_file": source_file},
                    "listeners": [{"id": f"{lb_id}/{LN}", "operating_status": "ONLINE"}],
                    "pools": [{"id": f"{lb_id}/pool", "operating_status": "ONLINE",
                               "members": [{"id": f"{lb_id}/m", "operating_status":
                                            self.member_status}]}]}
        lbs = [lb("file", "/etc/vigil/vigil.yaml"), lb(FOREIGN)]
        return {"loadbalancers": lbs + ([lb(OURS)] if self.has_ours else [])}

    def listener_stats(self, listener_id):
        return {"active_connections": 0, "total_connections": 3, "bytes_in": self.bytes_in,
                "bytes_out": 20, "request_errors": 0}


class FakeLibrary:
    def __init__(self):
        self.statuses, self.stats = [], []

    def get_loadbalancer(self, lb_id):
        assert lb_id == OURS
        return dm.LoadBalancer(loadbalancer_id=OURS, listeners=[
            {"listener_id": f"{OURS}/{LN}", "admin_state_up": True}], pools=[
            {"pool_id": f"{OURS}/pool", "healthmonitor": {"healthmonitor_id": "hm"},
             "members": [{"member_id": f"{OURS}/m"}]}])

    def update_loadbalancer_status(self, update):
        self.statuses.append(update)

    def update_listener_statistics(self, stats):
        self.stats.append(stats)


class FakeOctavia:
    """Octavia's database: our load balancer, and the locks the agent took."""

    def __init__(self):
        self.provisioning = "ACTIVE"
        self.locked = []

    def loadbalancers(self):
        return {OURS: (self.provisioning, "ONLINE")}

    def lock_for_failover(self, lb_id):
        self.locked.append(lb_id)
        return self.provisioning in ("ACTIVE", "ERROR")


def test_writes_only_octavias_load_balancers_and_only_changes():
    vigil, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(vigil, lib, resync_polls=3, octavia=FakeOctavia())
    poller.poll()
    assert [u["loadbalancers"][0]["id"] for u in lib.statuses] == [OURS]
    assert lib.statuses[0]["members"] == [{"id": f"{OURS}/m", "operating_status": "ONLINE"}]
    assert lib.stats == [{"listeners": [{"id": f"{OURS}/{LN}", "active_connections": 0,
                                         "total_connections": 3, "bytes_in": 10,
                                         "bytes_out": 20, "request_errors": 0}]}]

    poller.poll()  # nothing changed: nothing written
    assert len(lib.statuses) == 1 and len(lib.stats) == 1
    vigil.member_status = "ERROR"
    poller.poll()  # a change, and the third poll is a resync anyway
    assert lib.statuses[-1]["members"] == [{"id": f"{OURS}/m", "operating_status": "ERROR"}]
    poller.poll()
    poller.poll()
    assert len(lib.statuses) == 2
    assert len(lib.stats) == 2  # the third poll's resync
    poller.poll()  # the sixth: a resync writes again, changed or not
    assert len(lib.statuses) == 3 and len(lib.stats) == 3
    vigil.bytes_in = 4096
    poller.poll()  # traffic: the statistics alone
    assert len(lib.statuses) == 3 and lib.stats[-1]["listeners"][0]["bytes_in"] == 4096


UNREACHABLE = {"loadbalancers": [{"id": OURS, "operating_status": "ERROR"}],
               "listeners": [{"id": f"{OURS}/{LN}", "operating_status": "ERROR"}],
               "pools": [{"id": f"{OURS}/pool", "operating_status": "OFFLINE"}],
               "members": [{"id": f"{OURS}/m", "operating_status": "OFFLINE"}]}


def test_a_vigil_that_stops_answering_leaves_no_stale_online():
    vigil, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(vigil, lib, resync_polls=100, octavia=FakeOctavia())
    poller.poll()
    vigil.down = "Connection refused"
    with pytest.raises(VigilError):
        poller.poll()
    assert lib.statuses[-1] == UNREACHABLE  # the health driver's rules for a silent amphora
    with pytest.raises(VigilError):
        poller.poll()
    assert len(lib.statuses) == 2  # once per episode
    vigil.down = None
    poller.poll()  # back with its state: its own statuses again, though they did not change
    assert len(lib.statuses) == 3
    assert lib.statuses[-1]["loadbalancers"] == [{"id": OURS, "operating_status": "ONLINE"}]


def test_a_load_balancer_vigil_lost_is_pushed_again_under_the_failover_lock(monkeypatch):
    vigil, lib, octavia = FakeVigil(), FakeLibrary(), FakeOctavia()
    pushed = []
    monkeypatch.setattr(agent.repush, "failover", lambda lib_, client, lb_id: pushed.append(
        lb_id) or {"loadbalancers": [{"id": lb_id, "provisioning_status": "ACTIVE"}]})
    poller = StatusPoller(vigil, lib, resync_polls=100, octavia=octavia)
    vigil.has_ours = False
    poller.poll()
    assert octavia.locked == [OURS] and pushed == [OURS]
    assert lib.statuses[-1] == {"loadbalancers": [{"id": OURS, "provisioning_status": "ACTIVE"}]}
    octavia.provisioning = "PENDING_UPDATE"  # a change holds it: left to that change
    poller.poll()
    assert pushed == [OURS] and octavia.locked == [OURS]


def test_an_agent_that_starts_while_vigil_is_down_reads_the_tree_from_octavia():
    vigil, lib = FakeVigil(), FakeLibrary()
    vigil.down = "timed out"
    poller = StatusPoller(vigil, lib, resync_polls=100, octavia=FakeOctavia())
    with pytest.raises(VigilError):
        poller.poll()
    assert lib.statuses == [UNREACHABLE]
