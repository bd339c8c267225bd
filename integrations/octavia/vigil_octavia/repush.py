"""Re-pushes one load balancer to vigil as Octavia's database holds it: `openstack loadbalancer
failover` (from the driver's worker) and the agent's catch-up for a load balancer vigil lost
(it restarted without its state) both come here.

vigil ends up holding exactly Octavia's tree under Octavia's ids: what it lacks is created, what
it has is updated, and what it has that Octavia does not (a delete vigil never got) is deleted.
The outcome is reported as Octavia's amphora driver reports a failover: the load balancer and
every object under it ACTIVE (MarkLBActiveInDB with mark_subobjects, which also repairs objects
left in ERROR), or the load balancer alone ERROR (LoadBalancerToErrorOnRevertTask).
"""
import functools
import inspect

from octavia_lib.api.drivers import data_models as dm
from oslo_log import log as logging

from vigil_octavia import shared_store
from vigil_octavia import translate
from vigil_octavia.client import VigilError

LOG = logging.getLogger(__name__)

ACTIVE, ERROR = "ACTIVE", "ERROR"


@functools.cache
def _fields_of(cls):
    """The constructor's parameters: asked once per class (inspect is slow, and a resync builds
    thousands of objects)."""
    return frozenset(inspect.signature(cls).parameters)


def _model(cls, d, drop=()):
    """An octavia-lib object from the driver library's dict, with the fields in `drop` unset."""
    if not isinstance(d, dict):
        d = d.to_dict(recurse=True)
    names = _fields_of(cls)
    return cls(**{k: v for k, v in d.items() if k in names and k not in drop})


def _present(body):
    """An update body without Octavia's nulls: vigil keeps its own value for what is unset."""
    return {k: v for k, v in body.items() if v is not None}


class Tree:
    """One load balancer of Octavia as octavia-lib objects: listeners, pools, and each pool's
    members and monitor."""

    def __init__(self, lb):
        value = translate.value
        self.lb = _model(dm.LoadBalancer, lb, ("listeners", "pools"))
        self.listeners = [_model(dm.Listener, d, ("default_pool",))
                          for d in value(lb, "listeners") or []]
        self.pools, self.members, self.monitors = [], {}, {}
        for d in value(lb, "pools") or []:
            d = d if isinstance(d, dict) else d.to_dict(recurse=True)
            p = _model(dm.Pool, d, ("members", "healthmonitor"))
            self.pools.append(p)
            self.members[p.pool_id] = [_model(dm.Member, m) for m in d.get("members") or []]
            hm = d.get("healthmonitor")
            self.monitors[p.pool_id] = _model(dm.HealthMonitor, hm) if hm else None

    @property
    def id(self):
        return self.lb.loadbalancer_id

    def active_update(self):
        """Everything ACTIVE: what a successful re-push reports."""
        def active(ids):
            return [{"id": i, "provisioning_status": ACTIVE} for i in ids]

        update = {
            "loadbalancers": active([self.id]),
            "listeners": active(ln.listener_id for ln in self.listeners),
            "pools": active(p.pool_id for p in self.pools),
            "members": active(m.member_id for ms in self.members.values() for m in ms),
            "healthmonitors": active(hm.healthmonitor_id for hm in self.monitors.values() if hm),
        }
        return {key: items for key, items in update.items() if items}


def _without(body, *keys):
    return {k: v for k, v in body.items() if k not in keys}


def populated(tree, shared=False):
    """The body of one fully-populated create of `tree` (vigil applies it as one change):
    listeners and pools nested in the load balancer, each pool with its members and monitor.
    Nested objects take no relation to their parent; a listener names its pool by
    default_pool_id, as Octavia's pool names may be empty or repeated."""
    body = translate.loadbalancer(tree.lb, shared=shared)
    body["listeners"] = [_without(translate.listener(ln), "loadbalancer_id")
                         for ln in tree.listeners]
    pools = []
    for p in tree.pools:
        pool = _without(translate.pool(p), "loadbalancer_id", "listener_id")
        pool["members"] = [translate.member(m) for m in tree.members[p.pool_id]]
        monitor = tree.monitors[p.pool_id]
        if monitor is not None:
            pool["healthmonitor"] = _without(translate.healthmonitor(monitor), "pool_id")
        pools.append(pool)
    body["pools"] = pools
    return body


def push(client, tree, shared=False, absent=False):
    """Makes vigil hold `tree`; raises VigilError at the first request vigil refuses or does not
    answer (what was done stays done: the next re-push goes on from there). `shared`: as in
    translate.loadbalancer. `absent`: the node's status did not list the load balancer, so it is
    created whole without asking first (one request instead of one per object: 1,000 load
    balancers in seconds rather than minutes)."""
    have = None if absent else client.get("loadbalancer", tree.id)
    if have is None:
        try:
            client.create("loadbalancer", populated(tree, shared))
            return
        except VigilError as e:
            # 409: it was made meanwhile (a failover's push); 400: a vigil from before
            # fully-populated creates, or a refusal that the creates one by one name exactly.
            if e.status not in (400, 409):
                raise
        have = client.get("loadbalancer", tree.id)
    if have is None:
        client.create("loadbalancer", translate.loadbalancer(tree.lb, shared=shared))
        have = {"listeners": [], "pools": []}
    else:  # with the owner tag, which a load balancer pushed by an older driver lacks
        client.update("loadbalancer", tree.id,
                      dict(_present(translate.loadbalancer(tree.lb, updating=True)),
                           tags=[translate.OWNER_TAG]))
    have_listeners = {x["id"] for x in have.get("listeners", [])}
    have_pools = {x["id"] for x in have.get("pools", [])}
    # What vigil has and Octavia does not goes first: a new listener may want its port.
    for gone in sorted(have_listeners - {ln.listener_id for ln in tree.listeners}):
        client.delete("listener", gone)
    for gone in sorted(have_pools - {p.pool_id for p in tree.pools}):
        client.delete("pool", gone)  # with its members and monitor

    for ln in tree.listeners:
        if ln.listener_id in have_listeners:
            body = _present(translate.listener(ln, updating=True))
            body.pop("default_pool_id", None)  # set below, once the pools exist
            client.update("listener", ln.listener_id, body)
        else:
            body = translate.listener(ln)
            body.pop("default_pool_id", None)
            client.create("listener", body)
    for p in tree.pools:
        _push_pool(client, tree, p, p.pool_id in have_pools)
    for ln in tree.listeners:
        if translate.value(ln, "default_pool_id"):
            client.update("listener", ln.listener_id, {"default_pool_id": ln.default_pool_id})


def _push_pool(client, tree, p, exists):
    pool_id = p.pool_id
    members, monitor = tree.members[pool_id], tree.monitors[pool_id]
    have_members, have_monitor = set(), None
    if exists:
        client.update("pool", pool_id, _present(translate.pool(p, updating=True)))
        current = client.get("pool", pool_id) or {}
        have_members = {x["id"] for x in current.get("members", [])}
        have_monitor = current.get("healthmonitor_id")
    else:
        client.create("pool", translate.pool(p))
    for gone in sorted(have_members - {m.member_id for m in members}):
        client.delete("member", gone, pool_id=pool_id)
    for m in members:
        if m.member_id in have_members:
            client.update("member", m.member_id, _present(translate.member(m, updating=True)),
                          pool_id=pool_id)
        else:
            client.create("member", translate.member(m), pool_id=pool_id)
    if have_monitor and (monitor is None or monitor.healthmonitor_id != have_monitor):
        client.delete("healthmonitor", have_monitor)
        have_monitor = None
    if monitor is not None:
        if have_monitor:
            body = translate.healthmonitor(monitor, updating=True, monitor_type=monitor.type)
            client.update("healthmonitor", monitor.healthmonitor_id, _present(body))
        else:
            client.create("healthmonitor", translate.healthmonitor(monitor))


def push_to(fleet, tree, names=None, absent=()):
    """Pushes `tree` to every node of `fleet` (or to `names`) at once; {node: None, or why
    not}. `absent`: the nodes known to lack it (push's `absent`). On a shared store, through
    one node of `names` only (the next when one cannot be reached: a push reads before it
    writes, so it may run again), and only the nodes tried are in the answer."""
    def one(client):
        try:
            push(client, tree, fleet.shared, absent=client in lacking)
        except VigilError:
            raise
        except Exception as e:  # a refusal of translate: the object changed under the driver
            raise VigilError(400, f"cannot translate load balancer {tree.id}: {e}") from e

    lacking = [fleet.clients[name] for name in absent]
    if fleet.shares_store():
        order = [n for n in fleet.names if names is None or n in names]
        results = shared_store.write_once(fleet.clients, order, one)
    else:
        results = fleet.each(one, names)
    return {name: error and error.message for name, (_, error) in results.items()}


def failover(lib, fleet, lb_id):
    """Re-pushes load balancer `lb_id` from Octavia's database (through the driver library
    `lib`) to every node of `fleet`; returns the status update to report (ACTIVE once one node
    has it), or None when Octavia no longer has the load balancer."""
    try:
        lb = lib.get_loadbalancer(lb_id)
    except Exception as e:  # the driver agent busy or restarting
        LOG.error("vigil: failover of load balancer %s: cannot read it from Octavia, now ERROR: "
                  "%s", lb_id, e)
        return {"loadbalancers": [{"id": lb_id, "provisioning_status": ERROR}]}
    if lb is None:
        return None
    tree = Tree(lb)
    errors = push_to(fleet, tree)
    failed = {name: error for name, error in errors.items() if error is not None}
    if len(failed) == len(errors):  # logged outside any except: oslo.log appends exceptions
        LOG.error("vigil: failover of load balancer %s failed on every node, now ERROR: %s",
                  lb_id, "; ".join(f"{n}: {e}" for n, e in failed.items()))
        return {"loadbalancers": [{"id": lb_id, "provisioning_status": ERROR}]}
    for name, error in failed.items():
        LOG.warning("vigil: load balancer %s not pushed to node %s, which the provider agent "
                    "catches up: %s", lb_id, name, error)
    LOG.info("vigil: load balancer %s pushed to vigil node %s (%d listeners, %d pools, "
             "%d members)", lb_id, ", ".join(n for n in errors if n not in failed),
             len(tree.listeners), len(tree.pools), sum(len(ms) for ms in tree.members.values()))
    return tree.active_update()
