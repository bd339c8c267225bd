"""The `vigil` provider driver: what Octavia's API calls for every change of a vigil load balancer.

Each method refuses what vigil does not do (UnsupportedOptionError, which Octavia answers before
storing anything), translates the object and queues the change for this process's Worker, which
applies it to vigil and reports the provisioning status (provisioning.py). Octavia creates a new
driver object for each API request, so the driver holds no state of its own. Ids are Octavia's:
vigil creates every object with the id Octavia gave it, so no mapping is kept anywhere.
"""
from octavia_lib.api.drivers import exceptions
from octavia_lib.api.drivers import provider_base

from vigil_octavia import config
from vigil_octavia import fleet
from vigil_octavia import translate
from vigil_octavia.provisioning import ACTIVE, DELETED, ERROR, Change, Worker

value = translate.value


def _ids(**kinds):
    """{"loadbalancers": {id}, ...} from keyword arguments, leaving out unset ids."""
    return {key: {i} for key, i in kinds.items() if i}


def _cascade(lb):
    """Everything a cascade delete of the load balancer takes with it, from Octavia's object."""
    out = {"listeners": set(), "pools": set(), "members": set(), "healthmonitors": set()}
    for ln in value(lb, "listeners") or []:
        out["listeners"].add(ln.listener_id)
    for p in value(lb, "pools") or []:
        out["pools"].add(p.pool_id)
        _pool_children(p, out)
    return out


def _pool_children(p, out):
    for m in value(p, "members") or []:
        out["members"].add(m.member_id)
    hm = value(p, "healthmonitor")
    if hm is not None:
        out["healthmonitors"].add(hm.healthmonitor_id)
    return out


def _landed(kind, object_id, pool_id=None):
    """Reads a create back by Octavia's id (provisioning.Change.landed)."""
    return lambda c: c.get(kind, object_id, pool_id=pool_id)


class VigilProviderDriver(provider_base.ProviderDriver):
    def __init__(self):
        super().__init__()
        self.conf = config.register()

    def _nodes(self):
        """The [vigil] section's nodes; one that does not add up refuses the change before
        Octavia stores it."""
        try:
            return fleet.nodes(self.conf)
        except ValueError as e:
            raise exceptions.DriverError(
                user_fault_string="the vigil provider is misconfigured: ask the cloud's operator",
                operator_fault_string=str(e)) from e

    def _submit(self, change):
        self._nodes()
        Worker.get(self.conf).submit(change)

    # Load balancers

    def loadbalancer_create(self, loadbalancer):
        body = translate.loadbalancer(loadbalancer, shared=len(self._nodes()) > 1)
        lb_id = loadbalancer.loadbalancer_id
        self._submit(Change("loadbalancer", lb_id, "create",
                            lambda c: c.create("loadbalancer", body),
                            landed=_landed("loadbalancer", lb_id)))

    def loadbalancer_update(self, old_loadbalancer, new_loadbalancer):
        body = translate.loadbalancer(new_loadbalancer, updating=True)
        lb_id = old_loadbalancer.loadbalancer_id
        self._submit(Change("loadbalancer", lb_id, "update",
                            lambda c: c.update("loadbalancer", lb_id, body)))

    def loadbalancer_delete(self, loadbalancer, cascade=False):
        lb_id = loadbalancer.loadbalancer_id
        self._submit(Change("loadbalancer", lb_id, "delete",
                            lambda c: c.delete("loadbalancer", lb_id, cascade=cascade),
                            children=_cascade(loadbalancer) if cascade else {}))

    def loadbalancer_failover(self, loadbalancer_id):
        """Octavia's API has set the load balancer PENDING_UPDATE: vigil gets it again, whole,
        from Octavia's database (a vigil that restarted empty serves it again)."""
        self._submit(Change("loadbalancer", loadbalancer_id, "failover", None))

    # Listeners

    def listener_create(self, listener):
        body = translate.listener(listener)
        self._submit(Change("listener", listener.listener_id, "create",
                            lambda c: c.create("listener", body),
                            parents=_ids(loadbalancers=listener.loadbalancer_id,
                                         pools=value(listener, "default_pool_id")),
                            landed=_landed("listener", listener.listener_id)))

    def listener_update(self, old_listener, new_listener):
        body = translate.listener(new_listener, updating=True)
        l_id = old_listener.listener_id
        self._submit(Change("listener", l_id, "update",
                            lambda c: c.update("listener", l_id, body),
                            parents=_ids(loadbalancers=old_listener.loadbalancer_id)))

    def listener_delete(self, listener):
        l_id = listener.listener_id
        self._submit(Change("listener", l_id, "delete", lambda c: c.delete("listener", l_id),
                            parents=_ids(loadbalancers=listener.loadbalancer_id)))

    # Pools

    def pool_create(self, pool):
        """Octavia's API locked the load balancer and the one listener the pool is created for
        (--listener), both named here: nothing more to find (no pool_id)."""
        body = translate.pool(pool)
        self._submit(Change("pool", pool.pool_id, "create", lambda c: c.create("pool", body),
                            parents=_ids(loadbalancers=value(pool, "loadbalancer_id"),
                                         listeners=value(pool, "listener_id")),
                            landed=_landed("pool", pool.pool_id)))

    def pool_update(self, old_pool, new_pool):
        body = translate.pool(new_pool, updating=True)
        p_id = old_pool.pool_id
        self._submit(Change("pool", p_id, "update", lambda c: c.update("pool", p_id, body),
                            parents=_ids(loadbalancers=value(old_pool, "loadbalancer_id"),
                                         listeners=value(old_pool, "listener_id")),
                            pool_id=p_id))

    def pool_delete(self, pool):
        p_id = pool.pool_id
        children = _pool_children(pool, {"members": set(), "healthmonitors": set()})
        self._submit(Change("pool", p_id, "delete", lambda c: c.delete("pool", p_id),
                            parents=_ids(loadbalancers=value(pool, "loadbalancer_id"),
                                         listeners=value(pool, "listener_id")),
                            pool_id=p_id, children=children))

    # Members

    def member_create(self, member):
        body = translate.member(member)
        pool_id = member.pool_id
        self._submit(Change("member", member.member_id, "create",
                            lambda c: c.create("member", body, pool_id=pool_id),
                            pool_id=pool_id,
                            landed=_landed("member", member.member_id, pool_id)))

    def member_update(self, old_member, new_member):
        body = translate.member(new_member, updating=True)
        m_id, pool_id = old_member.member_id, old_member.pool_id
        self._submit(Change("member", m_id, "update",
                            lambda c: c.update("member", m_id, body, pool_id=pool_id),
                            pool_id=pool_id))

    def member_delete(self, member):
        m_id, pool_id = member.member_id, member.pool_id
        self._submit(Change("member", m_id, "delete",
                            lambda c: c.delete("member", m_id, pool_id=pool_id),
                            pool_id=pool_id))

    def member_batch_update(self, pool_id, members):
        """`members` is the pool's whole new member list: vigil gets the difference."""
        wanted = {m.member_id: m for m in members}
        bodies = {i: translate.member(m) for i, m in wanted.items()}
        # What vigil does not get to (it refused one) stays ERROR rather than PENDING_*.
        statuses = {i: ERROR for i in wanted}

        def apply(client):
            current = {m["id"] for m in client.members(pool_id)}
            for m_id in sorted(current - wanted.keys()):
                client.delete("member", m_id, pool_id=pool_id)
                statuses[m_id] = DELETED
            for m_id, body in bodies.items():
                if m_id in current:
                    update = {k: v for k, v in body.items()
                              if k in translate.MEMBER_UPDATE}
                    client.update("member", m_id, update, pool_id=pool_id)
                else:
                    client.create("member", body, pool_id=pool_id)
                statuses[m_id] = ACTIVE
            return None

        # The pool is the Change's own object: Octavia has it PENDING_UPDATE during a batch.
        change = Change("pool", pool_id, "update", apply, pool_id=pool_id,
                        also={"members": statuses})
        self._submit(change)

    # Health monitors

    def health_monitor_create(self, healthmonitor):
        body = translate.healthmonitor(healthmonitor)
        pool_id = healthmonitor.pool_id
        hm_id = healthmonitor.healthmonitor_id
        self._submit(Change("healthmonitor", hm_id, "create",
                            lambda c: c.create("healthmonitor", body), pool_id=pool_id,
                            landed=_landed("healthmonitor", hm_id)))

    def health_monitor_update(self, old_healthmonitor, new_healthmonitor):
        body = translate.healthmonitor(new_healthmonitor, updating=True,
                                       monitor_type=value(old_healthmonitor, "type"))
        hm_id, pool_id = old_healthmonitor.healthmonitor_id, old_healthmonitor.pool_id
        self._submit(Change("healthmonitor", hm_id, "update",
                            lambda c: c.update("healthmonitor", hm_id, body), pool_id=pool_id))

    def health_monitor_delete(self, healthmonitor):
        hm_id, pool_id = healthmonitor.healthmonitor_id, healthmonitor.pool_id
        self._submit(Change("healthmonitor", hm_id, "delete",
                            lambda c: c.delete("healthmonitor", hm_id), pool_id=pool_id))

    # L7 policies and rules: vigil is a TCP load balancer.

    def l7policy_create(self, l7policy):
        translate.refuse(f"{translate.TCP_ONLY}: L7 policies are not supported")

    def l7policy_update(self, old_l7policy, new_l7policy):
        translate.refuse(f"{translate.TCP_ONLY}: L7 policies are not supported")

    def l7rule_create(self, l7rule):
        translate.refuse(f"{translate.TCP_ONLY}: L7 rules are not supported")

    def l7rule_update(self, old_l7rule, new_l7rule):
        translate.refuse(f"{translate.TCP_ONLY}: L7 rules are not supported")

    # Flavors: only the topology. Availability zones: vigil has none; an empty one is fine.

    def get_supported_flavor_metadata(self):
        return dict(translate.FLAVOR_METADATA)

    def validate_flavor(self, flavor_metadata):
        translate.flavor(flavor_metadata)

    def get_supported_availability_zone_metadata(self):
        return {}

    def validate_availability_zone(self, availability_zone_metadata):
        if availability_zone_metadata:
            translate.refuse("vigil takes no availability zone options (got "
                             f"{sorted(availability_zone_metadata)})")
