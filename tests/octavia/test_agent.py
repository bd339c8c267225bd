"""The provider agent's poll, with a fake vigil and a fake driver library: what it writes to
Octavia and when."""
import pytest

pytest.importorskip("octavia_lib")

from vigil_octavia.agent import StatusPoller  # noqa: E402

OURS, FOREIGN, LN = "lb-octavia", "lb-vigil-only", "listener-1"


class FakeVigil:
    def __init__(self):
        self.member_status = "ONLINE"
        self.bytes_in = 10

    def status(self):
        def lb(lb_id, source_file=""):
            return {"loadbalancer": {"id": lb_id, "operating_status": "ONLINE",
                                     "source_file": source_file},
                    "listeners": [{"id": f"{lb_id}/{LN}", "operating_status": "ONLINE"}],
                    "pools": [{"id": f"{lb_id}/pool", "operating_status": "ONLINE",
                               "members": [{"id": f"{lb_id}/m", "operating_status":
                                            self.member_status}]}]}
        return {"loadbalancers": [lb("file", "/etc/vigil/vigil.yaml"), lb(OURS), lb(FOREIGN)]}

    def listener_stats(self, listener_id):
        return {"active_connections": 0, "total_connections": 3, "bytes_in": self.bytes_in,
                "bytes_out": 20, "request_errors": 0}


class FakeLibrary:
    def __init__(self):
        self.statuses, self.stats, self.lookups = [], [], []

    def get_loadbalancer(self, lb_id):
        self.lookups.append(lb_id)
        return object() if lb_id == OURS else None

    def update_loadbalancer_status(self, update):
        self.statuses.append(update)

    def update_listener_statistics(self, stats):
        self.stats.append(stats)


def test_writes_only_octavias_load_balancers_and_only_changes():
    vigil, lib = FakeVigil(), FakeLibrary()
    poller = StatusPoller(vigil, lib, resync_polls=3)
    poller.poll()
    assert [u["loadbalancers"][0]["id"] for u in lib.statuses] == [OURS]
    assert lib.statuses[0]["members"] == [{"id": f"{OURS}/m", "operating_status": "ONLINE"}]
    assert lib.stats == [{"listeners": [{"id": f"{OURS}/{LN}", "active_connections": 0,
                                         "total_connections": 3, "bytes_in": 10,
                                         "bytes_out": 20, "request_errors": 0}]}]
    assert "file" not in lib.lookups  # the config file's load balancer is never asked about

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
