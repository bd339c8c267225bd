"""The driver's methods as Changes, without Octavia or vigil: a fake worker collects what would
be queued, and a fake client stands for vigil's API."""
import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402
from octavia_lib.api.drivers import exceptions  # noqa: E402

from vigil_octavia import driver as driver_module  # noqa: E402
from vigil_octavia.provisioning import status_update  # noqa: E402

POOL = "00000000-0000-4000-8000-0000000000a0"
KEEP, ADD, DROP = (f"00000000-0000-4000-8000-0000000000b{i}" for i in range(3))


class FakeVigil:
    def __init__(self, members):
        self.members_now = members
        self.calls = []

    def members(self, pool_id):
        return [{"id": i} for i in self.members_now]

    def create(self, kind, body, pool_id=None):
        self.calls.append(("create", kind, body["id"]))
        return body

    def update(self, kind, object_id, body, pool_id=None):
        self.calls.append(("update", kind, object_id, body))
        return body

    def delete(self, kind, object_id, pool_id=None, cascade=False):
        self.calls.append(("delete", kind, object_id))


@pytest.fixture
def queued(monkeypatch):
    changes = []

    class Collector:
        def submit(self, change):
            changes.append(change)

    monkeypatch.setattr(driver_module.Worker, "get", classmethod(lambda cls, conf: Collector()))
    return changes


def test_a_batch_update_applies_the_difference(queued):
    members = [dm.Member(member_id=KEEP, pool_id=POOL, address="10.0.0.1", protocol_port=6443,
                         weight=0),
               dm.Member(member_id=ADD, pool_id=POOL, address="10.0.0.2", protocol_port=6443)]
    driver_module.VigilProviderDriver().member_batch_update(POOL, members)
    (change,) = queued
    vigil = FakeVigil([KEEP, DROP])
    change.apply(vigil)
    assert vigil.calls == [("delete", "member", DROP),
                           ("update", "member", KEEP, {"weight": 0}),
                           ("create", "member", ADD)]
    update = status_update(change, "ACTIVE", None, {"loadbalancers": {"lb"}})
    assert update["pools"] == [{"id": POOL, "provisioning_status": "ACTIVE"}]
    assert sorted((m["id"], m["provisioning_status"]) for m in update["members"]) == [
        (KEEP, "ACTIVE"), (ADD, "ACTIVE"), (DROP, "DELETED")]


def test_refusals_happen_before_anything_is_queued(queued):
    d = driver_module.VigilProviderDriver()
    with pytest.raises(exceptions.UnsupportedOptionError):
        d.l7policy_create(dm.L7Policy(l7policy_id="p"))
    with pytest.raises(exceptions.UnsupportedOptionError):
        d.pool_create(dm.Pool(pool_id=POOL, protocol="HTTP", loadbalancer_id="lb"))
    assert queued == []
    d.validate_flavor({})  # an empty flavor is fine, and the topology
    d.validate_flavor({"loadbalancer_topology": "ACTIVE_STANDBY"})
    with pytest.raises(exceptions.UnsupportedOptionError):
        d.validate_flavor({"compute_flavor": "m1.small"})
    with pytest.raises(exceptions.UnsupportedOptionError):
        d.validate_flavor({"loadbalancer_topology": "ACTIVE_ACTIVE"})


def test_a_batch_vigil_refuses_leaves_what_it_did_not_get_to_in_error(queued):
    from vigil_octavia.client import VigilError

    class Refusing(FakeVigil):
        def create(self, kind, body, pool_id=None):
            raise VigilError(400, "vigil answered 400: Invalid input for field/attribute address")

    members = [dm.Member(member_id=KEEP, pool_id=POOL, address="10.0.0.1", protocol_port=6443),
               dm.Member(member_id=ADD, pool_id=POOL, address="bad", protocol_port=6443)]
    driver_module.VigilProviderDriver().member_batch_update(POOL, members)
    (change,) = queued
    with pytest.raises(VigilError):
        change.apply(Refusing([KEEP]))
    update = status_update(change, "ERROR", None, {})
    assert update["pools"] == [{"id": POOL, "provisioning_status": "ERROR"}]
    assert sorted((m["id"], m["provisioning_status"]) for m in update["members"]) == [
        (KEEP, "ACTIVE"), (ADD, "ERROR")]
