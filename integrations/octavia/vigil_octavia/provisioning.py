"""Applies Octavia's changes to vigil and reports their provisioning status back.

Octavia's API calls a provider driver inside its database transaction and commits after the
driver returns, so the driver must not report a status before that commit (the driver agent would
update a row nobody can see yet). The driver therefore only queues a Change; one thread per
octavia-api process takes them in order: for a create it first waits until the new object is
visible through the driver agent (committed; never visible means the API rolled back, and vigil
is left alone), then it calls every vigil node at once (fleet.py) and reports the object ACTIVE
(DELETED for a delete) once one node took it, ERROR with each node's reason in the log when every
node refused or could not be reached, and its parents, which
Octavia's API moved to PENDING_UPDATE, ACTIVE again either way, as the amphora driver's revert
tasks do (MemberToErrorOnRevertTask and its kin). The parents are read from Octavia's database,
not from vigil, so that a vigil that does not answer leaves nothing locked.

Each request of the driver agent costs it a forked process and a database session (docs/
octavia.md, "At fleet size"), so a change asks as little as it can: a create's first look waits
until the API has likely committed (wait_committed), and a pool's locked listeners come from one
get_loadbalancer of the pool's load balancer, which Octavia's object names or vigil holds the
pool under (a pool never moves, so vigil's word is enough for which load balancer; which
listeners stays Octavia's word). For a new member or monitor that same answer shows the commit.
When vigil does not know the pool or does not answer, Octavia's get_pool says it, as before.

A failover re-pushes the whole load balancer (repush.py). Octavia itself keeps two changes of
one load balancer from overlapping: it refuses them while the load balancer is PENDING_*.
"""
import dataclasses
import queue
import threading
import time
from typing import Callable, Optional

from octavia_lib.api.drivers import driver_lib
from oslo_config import cfg
from oslo_log import log as logging

from vigil_octavia import repush
from vigil_octavia.client import VigilClient, VigilError
from vigil_octavia.fleet import Fleet
from vigil_octavia.translate import value

LOG = logging.getLogger(__name__)

ACTIVE, DELETED, ERROR = "ACTIVE", "DELETED", "ERROR"
# The driver library's collection of each kind, in the status update Octavia's agent takes.
STATUS_KEYS = {"loadbalancer": "loadbalancers", "listener": "listeners", "pool": "pools",
               "member": "members", "healthmonitor": "healthmonitors"}


@dataclasses.dataclass
class Change:
    kind: str  # "loadbalancer", "listener", "pool", "member", "healthmonitor"
    object_id: str
    action: str  # "create", "update", "delete", "failover"
    # Calls vigil; returns vigil's object (its operating_status is reported) or None. A failover
    # has none: it re-pushes what Octavia holds.
    apply: Optional[Callable[[VigilClient], Optional[dict]]]
    # Parents known from Octavia's objects: {"loadbalancers": {...}, "listeners": ..., "pools": ...}
    parents: dict = dataclasses.field(default_factory=dict)
    # The pool whose listeners Octavia's API locked too, found when the Change runs (for a pool's
    # update or delete, a member and a monitor: octavia_lineage).
    pool_id: Optional[str] = None
    # Objects a delete takes with it (a cascade, a pool's members): reported DELETED too.
    children: dict = dataclasses.field(default_factory=dict)
    # For a batch: the other objects changed, with their final provisioning status.
    also: dict = dataclasses.field(default_factory=dict)
    # For a create on a shared store: vigil's object when it is already there, else None (read
    # back by Octavia's id after a node timed out, rather than created twice).
    landed: Optional[Callable[[VigilClient], Optional[dict]]] = None
    # When the driver queued it (time.monotonic): the API commits right after.
    queued_at: float = dataclasses.field(default_factory=time.monotonic)


def driver_library():
    """The driver agent's client, on the sockets octavia.conf names."""
    agent = cfg.CONF.driver_agent
    return driver_lib.DriverLibrary(status_socket=agent.status_socket_path,
                                    stats_socket=agent.stats_socket_path,
                                    get_socket=agent.get_socket_path)


class CountedLibrary:
    """The driver library, counting the requests made through it: each costs Octavia's driver
    agent a forked process and a database session (docs/octavia.md, "At fleet size"), so the
    worker logs how many each change took."""

    def __init__(self, lib):
        self.lib = lib
        self.requests = []  # the driver library's methods called, in order

    def __getattr__(self, name):
        call = getattr(self.lib, name)

        def counted(*args, **kwargs):
            self.requests.append(name)
            return call(*args, **kwargs)
        return counted


def _getter(lib, kind):
    return {"loadbalancer": lib.get_loadbalancer, "listener": lib.get_listener,
            "pool": lib.get_pool, "member": lib.get_member,
            "healthmonitor": lib.get_healthmonitor}[kind]


# The first look for a new object waits until FIRST_LOOK seconds after the driver queued it: the
# API commits as soon as the driver returns, so a look at once mostly finds nothing and costs
# the driver agent a request for nothing. Each later look waits twice as long as the one before,
# at most LOOK_EVERY seconds.
FIRST_LOOK, LOOK_EVERY = 0.05, 1.0


def wait_committed(lookup, queued_at, timeout, clock=time.monotonic, sleep=time.sleep):
    """lookup()'s first answer other than None, once the API has committed; None after `timeout`
    seconds of looking (the API rolled back)."""
    deadline = clock() + timeout
    wait, at = FIRST_LOOK, queued_at + FIRST_LOOK
    while True:
        ahead = min(at, deadline) - clock()
        if ahead > 0:
            sleep(ahead)
        try:
            found = lookup()
            if found is not None:
                return found
        except Exception as e:  # the agent busy (SQLite locked) or restarting: ask again
            LOG.info("vigil: cannot look up a new object in Octavia yet: %s", e)
        if clock() >= deadline:
            return None
        wait = min(2 * wait, LOOK_EVERY)
        at = clock() + wait


def pool_in(lb, pool_id):
    """The pool's entry in get_loadbalancer's answer, or None."""
    for p in (value(lb, "pools") or []) if lb is not None else []:
        if p.get("pool_id") == pool_id:
            return p
    return None


def _holds(pool, kind, object_id):
    """Whether the pool's entry in a load balancer's tree has the member or the monitor."""
    if kind == "member":
        return any(m.get("member_id") == object_id for m in pool.get("members") or [])
    return (pool.get("healthmonitor") or {}).get("healthmonitor_id") == object_id


def committed_lookup(lib, change, lb_id):
    """wait_committed's lookup for a new object: its load balancer's tree once the tree holds it
    for a member or a monitor (the tree also answers which listeners Octavia locked, one request
    for both), else the object itself: when `lb_id` is not the pool's load balancer, a wrong
    guess costs a request, never the create."""
    get = _getter(lib, change.kind)
    if not lb_id or change.kind not in ("member", "healthmonitor"):
        return lambda: get(change.object_id)

    def lookup():
        lb = lib.get_loadbalancer(lb_id)
        pool = pool_in(lb, change.pool_id)
        if pool is None:
            return get(change.object_id)
        return lb if _holds(pool, change.kind, change.object_id) else None
    return lookup


def octavia_lineage(lib, pool_id, lb_id=None, lb=None):
    """The pool and the listeners and load balancer Octavia's API locked with it (PENDING_UPDATE)
    for a change of the pool, a member or the monitor: read from Octavia, so that they are
    unlocked whether vigil answers or not. Octavia locks the pool's load balancer and every
    listener whose default pool it is (Pool.listeners; vigil has no L7 policies): one
    get_loadbalancer says which, given the pool's load balancer (`lb_id`, or its answer `lb`);
    without it, or when that load balancer has no such pool, get_pool says which it is."""
    if lb is None and lb_id:
        lb = lib.get_loadbalancer(lb_id)
    listeners = set()
    if pool_in(lb, pool_id) is None:
        p = lib.get_pool(pool_id)
        if p is None:
            return {"pools": {pool_id}}
        lb_id = value(p, "loadbalancer_id")
        listeners.add(value(p, "listener_id"))
        lb = lib.get_loadbalancer(lb_id) if lb_id else None
    else:
        lb_id = value(lb, "loadbalancer_id")
    for ln in (value(lb, "listeners") or []) if lb is not None else []:
        if ln.get("default_pool_id") == pool_id:
            listeners.add(ln["listener_id"])
    return {"pools": {pool_id}, "loadbalancers": {lb_id}, "listeners": listeners}


def vigil_pool_loadbalancer(fleet, pool_id, retry_after):
    """The pool's load balancer as vigil holds it, or None: a pool never moves to another load
    balancer, so any node that has the pool knows. Asks the nodes that answered the last change,
    one after the other; a node that does not answer or does not know is passed over. One that
    does not answer is left out of the change too, for `retry_after` seconds, as a change leaves
    it out: a hung node then costs the change one request_timeout, not two."""
    now = fleet.clock()
    for name in fleet.names:
        if fleet.down_until.get(name, 0) > now:
            continue
        try:
            p = fleet.clients[name].get("pool", pool_id)
            lbs = [x["id"] for x in (p or {}).get("loadbalancers", [])]
        except Exception as e:  # VigilError, or an answer not as expected: Octavia says it
            LOG.info("vigil: node %s cannot say pool %s's load balancer: %s", name, pool_id,
                     getattr(e, "message", e))
            if isinstance(e, VigilError):
                fleet.note_answer(name, e, now, retry_after)
            continue
        if len(lbs) == 1:
            return lbs[0]
    return None


def vigil_lineage(client, pool_id):
    """The same as vigil holds it: for when Octavia's driver agent cannot be asked."""
    found = {"pools": {pool_id}}
    try:
        p = client.get("pool", pool_id)
    except VigilError as e:
        LOG.warning("vigil: cannot read pool %s to find its parents: %s", pool_id, e.message)
        return found
    if p is not None:
        found["listeners"] = {x["id"] for x in p.get("listeners", [])}
        found["loadbalancers"] = {x["id"] for x in p.get("loadbalancers", [])}
    return found


def status_update(change, outcome, vigil_object, parents):
    """The driver library's status update for a Change that ended as `outcome`."""
    update = {key: [] for key in STATUS_KEYS.values()}
    own = {"id": change.object_id, "provisioning_status": outcome}
    if outcome != DELETED and vigil_object and vigil_object.get("operating_status"):
        own["operating_status"] = vigil_object["operating_status"]
    update[STATUS_KEYS[change.kind]].append(own)
    for key, ids in change.also.items():
        for object_id, status in ids.items():
            update[key].append({"id": object_id, "provisioning_status": status})
    for key, ids in change.children.items():
        update[key].extend({"id": i, "provisioning_status": DELETED} for i in sorted(ids))
    reported = {(key, item["id"]) for key, items in update.items() for item in items}
    for key, ids in parents.items():
        update[key].extend({"id": i, "provisioning_status": ACTIVE} for i in sorted(ids)
                           if (key, i) not in reported)
    return {key: items for key, items in update.items() if items}


def _merge(*dicts):
    out = {}
    for d in dicts:
        for key, ids in d.items():
            out.setdefault(key, set()).update(i for i in ids if i)
    return out


class Worker:
    """The one thread of this process that runs Changes, in the order they were submitted."""

    _lock = threading.Lock()
    _instance = None

    @classmethod
    def get(cls, conf):
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls(conf)
            return cls._instance

    def __init__(self, conf):
        self.conf = conf
        self.queue = queue.Queue()
        self.lib = None
        self.thread = threading.Thread(target=self._run, name="vigil-provisioning", daemon=True)
        self.thread.start()

    def submit(self, change):
        self.queue.put(change)

    def _run(self):
        fleet = None
        while True:
            change = self.queue.get()
            try:
                if fleet is None:
                    fleet = Fleet.from_conf(self.conf, self.conf.request_timeout)
                if self.lib is None:
                    self.lib = driver_library()
                self.process(change, fleet)
            except Exception:  # the thread must outlive any one change
                LOG.exception("vigil: %s %s %s failed", change.action, change.kind,
                              change.object_id)

    def process(self, change, fleet):
        """Applies the change to every node, or once through one node of a shared store; it
        is done (ACTIVE, DELETED) once one node has it, and ERROR only when none took it. A
        node that missed it is caught up by the agent."""
        lib = CountedLibrary(self.lib)
        try:
            self._process(change, fleet, lib)
        finally:
            LOG.info("vigil: %s %s %s took %d requests of Octavia's driver agent: %s",
                     change.action, change.kind, change.object_id, len(lib.requests),
                     ", ".join(lib.requests))

    def _process(self, change, fleet, lib):
        if change.action == "failover":
            update = repush.failover(lib, fleet, change.object_id)
            if update is not None:
                report(lib, update)
            return
        lb_id = self.pool_loadbalancer(change, fleet) if change.pool_id else None
        tree = None
        if change.action == "create":
            found = wait_committed(committed_lookup(lib, change, lb_id), change.queued_at,
                                   self.conf.commit_timeout)
            if found is None:
                LOG.warning("vigil: %s %s never appeared in Octavia's database (the API rolled "
                            "back?): not created in vigil", change.kind, change.object_id)
                return
            tree = found if pool_in(found, change.pool_id) is not None else None
        # Before the change: a deleted pool is still in Octavia's database until reported.
        lineage = self.lineage(change, fleet, lib, lb_id, tree) if change.pool_id else {}
        results = fleet.apply(change.apply, retry_after=self.conf.status_interval,
                              landed=change.landed)
        done = [obj for obj, error in results.values() if error is None]
        errors = {name: error.message for name, (_, error) in results.items()
                  if error is not None}
        # Logged outside any except: oslo.log would append the exception.
        if not done:
            LOG.error("vigil: %s of %s %s failed on every node, now ERROR: %s", change.action,
                      change.kind, change.object_id, "; ".join(errors.values()))
        shared = fleet.shares_store()
        for name, message in errors.items() if done else ():
            if shared:
                LOG.info("vigil: %s of %s %s not written through node %s, through the next "
                         "node of the shared store instead: %s", change.action, change.kind,
                         change.object_id, name, message)
            else:
                LOG.warning("vigil: %s of %s %s not applied on node %s, which the provider "
                            "agent catches up: %s", change.action, change.kind,
                            change.object_id, name, message)
        outcome = ERROR if not done else DELETED if change.action == "delete" else ACTIVE
        parents = _merge(change.parents, lineage)
        report(lib, status_update(change, outcome, done[0] if done else None, parents))

    def pool_loadbalancer(self, change, fleet):
        """The load balancer of the Change's pool: the one Octavia's object names (a pool's own
        change), else as vigil holds the pool; None when neither says."""
        named = change.parents.get("loadbalancers") or set()
        if len(named) == 1:
            return next(iter(named))
        return vigil_pool_loadbalancer(fleet, change.pool_id, self.conf.status_interval)

    def lineage(self, change, fleet, lib, lb_id, tree):
        try:
            return octavia_lineage(lib, change.pool_id, lb_id, tree)
        except Exception as e:  # the driver agent busy or restarting
            error = str(e)
        LOG.warning("vigil: cannot read pool %s from Octavia to find its parents (%s): asking "
                    "vigil", change.pool_id, error)
        for found, error in fleet.each(lambda c: vigil_lineage(c, change.pool_id)).values():
            if error is None and len(found) > 1:
                return found
        return {"pools": {change.pool_id}}


def report(lib, update, attempts=5):
    """Writes a provisioning status update through the driver agent, trying again a few times
    (SQLite answers "database is locked" while the API commits; the driver agent may restart)."""
    for attempt in range(1, attempts + 1):
        try:
            lib.update_loadbalancer_status(update)
            return True
        except Exception as e:  # UpdateStatusError and socket errors alike
            LOG.warning("vigil: status update %s refused (attempt %d of %d): %s", update,
                        attempt, attempts, e)
            time.sleep(attempt)
    LOG.error("vigil: gave up reporting %s to Octavia", update)
    return False
