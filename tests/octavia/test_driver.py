"""The driver's methods as Changes, without Octavia or vigil: a fake worker collects what would
be queued, and a fake client stands for vigil's API."""
import types

import pytest

pytest.importorskip("octavia_lib")

from octavia_lib.api.drivers import data_models as dm  # noqa: E402
from octavia_lib.api.drivers import exceptions  # noqa: E402

from vigil_octavia import driver as driver_module  # noqa: E402
from vigil_octavia.client import VigilError  # noqa: E402
from vigil_octavia.fleet import Fleet  # noqa: E402
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


LB, LN, HM, M2 = ("00000000-0000-4000-8000-0000000000c0", "00000000-0000-4000-8000-0000000000d0",
                  "00000000-0000-4000-8000-0000000000e0", "00000000-0000-4000-8000-0000000000b9")


class FakeLibrary:
    """Octavia's database through the driver agent: one load balancer, listener, pool with a
    member and a monitor; status updates collected."""

    def __init__(self):
        self.updates = []

    def get_pool(self, pool_id):
        return dm.Pool(pool_id=POOL, loadbalancer_id=LB, listener_id=LN)

    def get_loadbalancer(self, lb_id):
        return dm.LoadBalancer(
            loadbalancer_id=LB, name="k8s", vip_address="127.0.0.1", project_id="p", flavor={},
            listeners=[{"listener_id": LN, "loadbalancer_id": LB, "protocol": "TCP",
                        "protocol_port": 6443, "default_pool_id": POOL, "default_pool": None,
                        "l7policies": [], "name": None}],
            pools=[{"pool_id": POOL, "loadbalancer_id": LB, "listener_id": LN,
                    "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                    "members": [{"member_id": KEEP, "pool_id": POOL, "address": "10.0.0.1",
                                 "protocol_port": 6443, "weight": 1}],
                    "healthmonitor": {"healthmonitor_id": HM, "pool_id": POOL, "type": "TCP",
                                      "delay": 5, "timeout": 2, "max_retries": 2}}])

    def update_loadbalancer_status(self, update):
        self.updates.append(update)


def bare_worker():
    from vigil_octavia.provisioning import Worker
    worker = Worker.__new__(Worker)  # without its thread
    worker.lib = FakeLibrary()
    worker.conf = types.SimpleNamespace(status_interval=5, commit_timeout=1)
    return worker


class Unreachable(FakeVigil):
    def __init__(self):
        super().__init__([])

    def update(self, kind, object_id, body=None, pool_id=None):
        from vigil_octavia.client import VigilError
        raise VigilError(None, "cannot reach vigil at http://vigil: Connection refused")

    get = create = update


def test_a_change_vigil_does_not_get_unlocks_its_parents(queued):
    """The amphora driver's MemberToErrorOnRevertTask: the member ERROR, its pool, listeners and
    load balancer ACTIVE, read from Octavia since vigil does not answer."""
    driver_module.VigilProviderDriver().member_update(
        dm.Member(member_id=KEEP, pool_id=POOL), dm.Member(member_id=KEEP, weight=5))
    (change,) = queued
    worker = bare_worker()
    worker.process(change, Fleet({"a": Unreachable()}))
    (update,) = worker.lib.updates
    assert update == {"members": [{"id": KEEP, "provisioning_status": "ERROR"}],
                      "pools": [{"id": POOL, "provisioning_status": "ACTIVE"}],
                      "listeners": [{"id": LN, "provisioning_status": "ACTIVE"}],
                      "loadbalancers": [{"id": LB, "provisioning_status": "ACTIVE"}]}


class Holding(FakeVigil):
    """vigil holding what `get` answers."""

    def __init__(self, objects):
        super().__init__([])
        self.objects = objects

    def get(self, kind, object_id, pool_id=None):
        return self.objects.get(object_id)

    def create(self, kind, body, pool_id=None):
        self.bodies = getattr(self, "bodies", []) + [body]
        return super().create(kind, body, pool_id)


class Old(Holding):
    """An empty vigil from before fully-populated creates: it refuses nested objects."""

    def create(self, kind, body, pool_id=None):
        if kind == "loadbalancer" and "listeners" in body:
            raise VigilError(400, "vigil answered 400: listeners is not supported")
        return super().create(kind, body, pool_id)


def test_a_failover_to_a_vigil_without_populated_creates_pushes_object_by_object():
    from vigil_octavia import repush
    vigil = Old({})
    assert repush.failover(FakeLibrary(), Fleet({"a": vigil}), LB)["loadbalancers"] == [
        {"id": LB, "provisioning_status": "ACTIVE"}]
    assert vigil.calls == [("create", "loadbalancer", LB), ("create", "listener", LN),
                           ("create", "pool", POOL), ("create", "member", KEEP),
                           ("create", "healthmonitor", HM),
                           ("update", "listener", LN, {"default_pool_id": POOL})]


def test_a_failover_pushes_the_whole_tree_to_an_empty_vigil(queued):
    driver_module.VigilProviderDriver().loadbalancer_failover(LB)
    (change,) = queued
    worker, vigil = bare_worker(), Holding({})
    worker.process(change, Fleet({"a": vigil}))
    # One fully-populated create: vigil applies the whole tree as one change.
    assert vigil.calls == [("create", "loadbalancer", LB)]
    (body,) = vigil.bodies
    assert [(ln["id"], ln["default_pool_id"]) for ln in body["listeners"]] == [(LN, POOL)]
    (pool,) = body["pools"]
    assert (pool["id"], [m["id"] for m in pool["members"]], pool["healthmonitor"]["id"]) == (
        POOL, [KEEP], HM)
    assert not {"loadbalancer_id", "listener_id"} & (set(pool) | set(body["listeners"][0]))
    assert "pool_id" not in pool["healthmonitor"]
    (update,) = worker.lib.updates  # as MarkLBActiveInDB(mark_subobjects=True)
    assert {key: [x["id"] for x in items] for key, items in update.items()} == {
        "loadbalancers": [LB], "listeners": [LN], "pools": [POOL], "members": [KEEP],
        "healthmonitors": [HM]}
    assert {x["provisioning_status"] for items in update.values() for x in items} == {"ACTIVE"}


def test_a_failover_removes_what_octavia_no_longer_has_and_fails_whole():
    from vigil_octavia import repush
    lib = FakeLibrary()
    vigil = Holding({LB: {"listeners": [{"id": "old-listener"}, {"id": LN}],
                          "pools": [{"id": POOL}]},
                     POOL: {"members": [{"id": KEEP}, {"id": M2}], "healthmonitor_id": "old"}})
    assert repush.failover(lib, Fleet({"a": vigil}), LB)["loadbalancers"][0]["provisioning_status"] == "ACTIVE"
    deleted = [c[1:] for c in vigil.calls if c[0] == "delete"]
    assert deleted == [("listener", "old-listener"), ("member", M2), ("healthmonitor", "old")]
    # What vigil has is updated with Octavia's values; a null leaves vigil's own.
    assert ("update", "member", KEEP, {"weight": 1}) in vigil.calls
    # vigil not answering: the load balancer alone ERROR (LoadBalancerToErrorOnRevertTask).
    assert repush.failover(lib, Fleet({"a": Unreachable()}), LB) == {
        "loadbalancers": [{"id": LB, "provisioning_status": "ERROR"}]}


def test_a_change_one_node_took_is_active_and_the_other_is_left_out_for_a_while(queued):
    """A pair: the node that answers takes the change, which is ACTIVE; the dead one is caught
    up by the agent, and is not tried again by the next change within status_interval."""
    clock = [100.0]
    fleet = Fleet({"a": Unreachable(), "b": Holding({})}, clock=lambda: clock[0])
    driver = driver_module.VigilProviderDriver()
    driver.member_update(dm.Member(member_id=KEEP, pool_id=POOL),
                         dm.Member(member_id=KEEP, weight=5))
    driver.member_update(dm.Member(member_id=KEEP, pool_id=POOL),
                         dm.Member(member_id=KEEP, weight=6))
    worker = bare_worker()
    worker.process(queued[0], fleet)
    assert worker.lib.updates[0]["members"] == [{"id": KEEP, "provisioning_status": "ACTIVE"}]
    assert fleet.down_until == {"a": 105.0}
    tried = []
    fleet.clients["a"].update = lambda *args, **kw: tried.append(args)
    fleet.clients["a"].get = lambda *args, **kw: None  # answers again, without the pool
    worker.process(queued[1], fleet)
    assert tried == [] and len(fleet.clients["b"].calls) == 2
    assert worker.lib.updates[1]["members"] == [{"id": KEEP, "provisioning_status": "ACTIVE"}]
    clock[0] = 105.0  # tried again after the interval
    worker.process(queued[1], fleet)
    assert len(tried) == 1 and fleet.down_until == {}


def test_a_change_no_node_took_is_error_and_every_node_is_tried_when_all_are_out(queued):
    fleet = Fleet({"a": Unreachable(), "b": Unreachable()}, clock=lambda: 0.0)
    driver_module.VigilProviderDriver().member_update(
        dm.Member(member_id=KEEP, pool_id=POOL), dm.Member(member_id=KEEP, weight=5))
    worker = bare_worker()
    for _ in range(2):  # the second time both are out: both are tried anyway
        worker.process(queued[0], fleet)
        assert worker.lib.updates[-1]["members"] == [{"id": KEEP,
                                                      "provisioning_status": "ERROR"}]
    assert set(fleet.down_until) == {"a", "b"}


def test_a_failover_pushes_to_every_node_and_is_active_when_one_has_it():
    from vigil_octavia import repush
    empty_a, empty_b = Holding({}), Holding({})
    update = repush.failover(FakeLibrary(), Fleet({"a": empty_a, "b": empty_b}), LB)
    assert update["loadbalancers"] == [{"id": LB, "provisioning_status": "ACTIVE"}]
    assert empty_a.calls == empty_b.calls == [("create", "loadbalancer", LB)]
    update = repush.failover(FakeLibrary(), Fleet({"a": Unreachable(), "b": Holding({})}), LB)
    assert update["loadbalancers"] == [{"id": LB, "provisioning_status": "ACTIVE"}]


def test_a_misconfigured_section_refuses_the_change_before_octavia_stores_it(monkeypatch):
    driver = driver_module.VigilProviderDriver()
    monkeypatch.setattr(driver, "conf", types.SimpleNamespace(
        endpoints=["http://10.0.0.1:8404", "http://10.0.0.2:8404"], token_files=["/a", "/b", "/c"],
        endpoint="", token_file=""))
    with pytest.raises(exceptions.DriverError) as refused:
        driver.member_delete(dm.Member(member_id=KEEP, pool_id=POOL))
    assert "3 entries for 2 endpoints" in refused.value.operator_fault_string


# Requests of Octavia's driver agent: each costs it a forked process (docs/octavia.md, "At fleet
# size"), so how many a write takes is part of the driver's behaviour.

LN2, NEW_LB, NEW_LN, NEW_POOL, NEW_M, NEW_HM = (
    f"00000000-0000-4000-8000-0000000000f{i}" for i in range(6))
NEW = {NEW_LB, NEW_LN, NEW_POOL, NEW_M, NEW_HM}  # created by the test: visible once committed


class Agent(FakeLibrary):
    """FakeLibrary counting requests: the objects in NEW are invisible for the first
    `hidden_for` gets (the API has not committed yet); `listeners` have POOL as default pool;
    a new member or monitor belongs to POOL."""

    def __init__(self, hidden_for=0, listeners=(LN,)):
        super().__init__()
        self.requests = []
        self.hidden_for = hidden_for
        self.listeners = listeners

    def _ask(self, what, object_id):
        visible = object_id not in NEW or len(self.requests) >= self.hidden_for
        self.requests.append(what)
        return visible

    def get_loadbalancer(self, lb_id):
        visible = self._ask("get_loadbalancer", lb_id)
        if lb_id != LB:  # a new load balancer, or another one: without POOL
            return dm.LoadBalancer(loadbalancer_id=lb_id, listeners=[], pools=[]) if (
                visible) else None
        committed = len(self.requests) > self.hidden_for
        members = [{"member_id": KEEP, "pool_id": POOL}]
        members += [{"member_id": NEW_M, "pool_id": POOL}] if committed else []
        monitor = {"healthmonitor_id": NEW_HM if committed else HM, "pool_id": POOL}
        return dm.LoadBalancer(
            loadbalancer_id=LB,
            listeners=[{"listener_id": i, "default_pool_id": POOL} for i in self.listeners]
            + [{"listener_id": "other", "default_pool_id": None}],
            pools=[{"pool_id": POOL, "loadbalancer_id": LB, "members": members,
                    "healthmonitor": monitor}])

    def get_pool(self, pool_id):
        if self._ask("get_pool", pool_id):
            return dm.Pool(pool_id=pool_id, loadbalancer_id=LB, listener_id=self.listeners[0])
        return None

    def get_listener(self, listener_id):
        return dm.Listener(listener_id=listener_id) if self._ask("get_listener",
                                                                  listener_id) else None

    def get_member(self, member_id):
        return dm.Member(member_id=member_id) if self._ask("get_member", member_id) else None

    def get_healthmonitor(self, hm_id):
        return dm.HealthMonitor(healthmonitor_id=hm_id) if self._ask("get_healthmonitor",
                                                                     hm_id) else None

    def update_loadbalancer_status(self, update):
        self.requests.append("update_loadbalancer_status")
        super().update_loadbalancer_status(update)


# vigil holding POOL under LB, with one listener (vigil's view of listeners is not used).
KNOWS_POOL = {POOL: {"id": POOL, "loadbalancers": [{"id": LB}], "listeners": [{"id": LN}]}}

WRITES = {  # a write of each kind, as the driver queues it
    "loadbalancer": lambda d: d.loadbalancer_create(dm.LoadBalancer(
        loadbalancer_id=NEW_LB, vip_address="192.0.2.9")),
    "listener": lambda d: d.listener_create(dm.Listener(
        listener_id=NEW_LN, loadbalancer_id=LB, protocol="TCP", protocol_port=6443)),
    "pool": lambda d: d.pool_create(dm.Pool(
        pool_id=NEW_POOL, loadbalancer_id=LB, listener_id=LN, protocol="TCP",
        lb_algorithm="ROUND_ROBIN")),
    "member": lambda d: d.member_create(dm.Member(
        member_id=NEW_M, pool_id=POOL, address="10.0.0.9", protocol_port=6443)),
    "healthmonitor": lambda d: d.health_monitor_create(dm.HealthMonitor(
        healthmonitor_id=NEW_HM, pool_id=POOL, type="TCP", delay=5, timeout=2, max_retries=2)),
    "member update": lambda d: d.member_update(dm.Member(member_id=KEEP, pool_id=POOL),
                                               dm.Member(member_id=KEEP, weight=5)),
    "pool update": lambda d: d.pool_update(
        dm.Pool(pool_id=POOL, loadbalancer_id=LB, listener_id=LN), dm.Pool(pool_id=POOL,
                                                                           name="x")),
    "batch": lambda d: d.member_batch_update(POOL, [dm.Member(
        member_id=KEEP, pool_id=POOL, address="10.0.0.1", protocol_port=6443)]),
}


def run(queued, write, lib, vigil, queued_at=0.0):
    """The write's change run by a bare worker on `lib` and vigil; queued long ago (the API has
    committed) unless `queued_at` says otherwise."""
    WRITES[write](driver_module.VigilProviderDriver())
    change = queued.pop()
    change.queued_at = queued_at
    worker = bare_worker()
    worker.lib = lib
    worker.process(change, Fleet({"a": vigil}))
    (update,) = lib.updates
    return {key: {x["id"]: x["provisioning_status"] for x in items}
            for key, items in update.items()}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_write_asks_the_driver_agent_once_and_reports_once(queued, write):
    """A create: one get (it committed), which for a member or monitor is the load balancer's
    tree, answering the locked listeners too; a pool's change: that one get_loadbalancer."""
    lib = Agent()
    run(queued, write, lib, Holding(dict(KNOWS_POOL)))
    assert len(lib.requests) == 2, lib.requests
    assert lib.requests[-1] == "update_loadbalancer_status"


@pytest.mark.parametrize("write", ["member", "healthmonitor", "member update", "batch"])
def test_the_listeners_unlocked_are_octavias_not_vigils(queued, write):
    """vigil says the pool has LN; Octavia locked LN and LN2 (both default to the pool): both
    are ACTIVE again, and the load balancer and pool with them."""
    update = run(queued, write, Agent(listeners=(LN, LN2)), Holding(dict(KNOWS_POOL)))
    assert update["listeners"] == {LN: "ACTIVE", LN2: "ACTIVE"}
    assert update["loadbalancers"] == {LB: "ACTIVE"}
    assert update["pools"][POOL] == "ACTIVE"


@pytest.mark.parametrize("vigil", [Holding({}), Unreachable(),
                                   Holding({POOL: {"loadbalancers": [{"id": "elsewhere"}]}})],
                         ids=["does not know the pool", "does not answer", "names another lb"])
@pytest.mark.parametrize("write", ["member", "member update"])
def test_without_vigils_word_for_the_pool_octavia_is_asked_for_it(queued, vigil, write):
    """The member still created (when vigil answers) and its parents unlocked."""
    lib = Agent(listeners=(LN, LN2))
    update = run(queued, write, lib, vigil)
    assert "get_pool" in lib.requests
    assert update["listeners"] == {LN: "ACTIVE", LN2: "ACTIVE"}
    assert update["loadbalancers"] == {LB: "ACTIVE"}
    assert update["members"] == {KEEP if write == "member update" else NEW_M:
                                 "ERROR" if isinstance(vigil, Unreachable) else "ACTIVE"}


@pytest.mark.parametrize("write", ["member", "member update"])
def test_a_node_that_does_not_answer_the_pools_lookup_is_left_out_of_the_change(queued, write):
    """A pair with node a hung: the lookup of the pool's load balancer waits for a once, b
    answers it, and the change goes to b alone, so a costs it one request_timeout, not two."""
    class Counting(Unreachable):
        def __init__(self):
            super().__init__()
            self.asked = 0

        def update(self, *args, **kw):
            self.asked += 1
            super().update(*args, **kw)

        get = create = update

    hung, b = Counting(), Holding(dict(KNOWS_POOL))
    WRITES[write](driver_module.VigilProviderDriver())
    change = queued.pop()
    change.queued_at = 0.0
    worker = bare_worker()
    worker.lib = Agent()
    fleet = Fleet({"a": hung, "b": b}, clock=lambda: 100.0)
    worker.process(change, fleet)
    assert hung.asked == 1
    assert fleet.down_until == {"a": 105.0}  # status_interval 5
    assert [c[:2] for c in b.calls] == [("create" if write == "member" else "update", "member")]
    (update,) = worker.lib.updates
    assert {x["id"]: x["provisioning_status"] for x in update["members"]} == {
        NEW_M if write == "member" else KEEP: "ACTIVE"}


def test_a_member_create_is_looked_for_until_the_api_commits(queued):
    """Not in the load balancer's tree at the first look: looked for again, then created."""
    lib, vigil = Agent(hidden_for=1), Holding(dict(KNOWS_POOL))
    update = run(queued, "member", lib, vigil)
    assert lib.requests == ["get_loadbalancer", "get_loadbalancer", "update_loadbalancer_status"]
    assert ("create", "member", NEW_M) in vigil.calls
    assert update["members"] == {NEW_M: "ACTIVE"}


def test_a_create_the_api_rolled_back_is_not_applied(queued, monkeypatch):
    """Never in Octavia's database: looked for until commit_timeout (on a clock of the test's),
    not created in vigil, nothing reported."""
    from vigil_octavia import provisioning
    clock = [0.0]
    real_wait = provisioning.wait_committed
    monkeypatch.setattr(provisioning, "wait_committed", lambda *args: real_wait(
        *args, clock=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s)))
    lib, vigil = Agent(hidden_for=10 ** 6), Holding(dict(KNOWS_POOL))
    WRITES["member"](driver_module.VigilProviderDriver())
    change = queued.pop()
    change.queued_at = 0.0
    worker = bare_worker()  # commit_timeout 1
    worker.lib = lib
    worker.process(change, Fleet({"a": vigil}))
    assert vigil.calls == [] and lib.updates == []
    assert 1.0 <= clock[0] < 1.1
    assert lib.requests == ["get_loadbalancer"] * 5  # at 0.05, 0.15, 0.35, 0.75 and 1.0


def test_looks_for_a_new_object_start_late_and_back_off():
    """The first look FIRST_LOOK after the driver queued the change, then twice as long each
    time up to LOOK_EVERY; a change queued long ago is looked for at once."""
    from vigil_octavia.provisioning import FIRST_LOOK, LOOK_EVERY, wait_committed
    clock, looks = [10.0], []

    def lookup():
        looks.append(round(clock[0] - 10.0, 3))
        return "found" if len(looks) == 7 else None

    def sleep(s):
        clock[0] += s

    assert wait_committed(lookup, 10.0, 60, clock=lambda: clock[0], sleep=sleep) == "found"
    gaps = [round(b - a, 3) for a, b in zip(looks, looks[1:])]
    assert looks[0] == FIRST_LOOK
    assert gaps == [0.1, 0.2, 0.4, 0.8, LOOK_EVERY, LOOK_EVERY]
    slept = []
    assert wait_committed(lambda: "found", 0.0, 60, clock=lambda: 100.0,
                          sleep=slept.append) == "found"
    assert slept == []
