"""What the provider agent reads, locks and marks in Octavia's database directly, as Octavia's own
health manager does: the driver library can look an object up by id but cannot list the load
balancers of a provider, nor test-and-set one for a failover; and one of its lookups costs about
50 ms of Octavia's CPU (its data-model conversion) and as much again in the library's polling,
where a reconcile of 1,000 load balancers needs their trees in a second (`trees`).

Only for the agent, which runs in octavia-driver-agent with Octavia's configuration loaded.
"""
import collections
import time

from octavia_lib.api.drivers import data_models

from octavia.common import data_models as octavia_models
from octavia.db import api as db_api
from octavia.db import models
from octavia.db import repositories
from octavia.statistics import stats_base

PROVIDER = "vigil"  # the driver's name in [api_settings] enabled_provider_drivers


class OctaviaDatabase:
    def loadbalancers(self):
        """{id: (provisioning_status, operating_status)} of every vigil load balancer."""
        session = db_api.get_session()
        try:
            lb = models.LoadBalancer
            rows = (session.query(lb.id, lb.provisioning_status, lb.operating_status)
                    .filter(lb.provider == PROVIDER, lb.provisioning_status != "DELETED").all())
            return {r.id: (r.provisioning_status, r.operating_status) for r in rows}
        finally:
            session.close()

    def with_error_objects(self):
        """The ids of the vigil load balancers with a listener, pool, member or monitor in
        provisioning ERROR (a change no node took): a node that holds Octavia's tree repairs
        them, as a failover marks every object ACTIVE."""
        session = db_api.get_session()
        try:
            lb, ln, pool = models.LoadBalancer, models.Listener, models.Pool
            member, hm = models.Member, models.HealthMonitor
            mine = session.query(lb.id).filter(lb.provider == PROVIDER)
            found = set()
            for query in (
                    session.query(ln.load_balancer_id).filter(ln.provisioning_status == "ERROR"),
                    session.query(pool.load_balancer_id).filter(
                        pool.provisioning_status == "ERROR"),
                    session.query(pool.load_balancer_id).join(
                        member, member.pool_id == pool.id).filter(
                        member.provisioning_status == "ERROR"),
                    session.query(pool.load_balancer_id).join(
                        hm, hm.pool_id == pool.id).filter(hm.provisioning_status == "ERROR")):
                found.update(row[0] for row in query.all())
            return found & {row.id for row in mine.all()}
        finally:
            session.close()

    def trees(self, lb_ids):
        """{id: the load balancer as the driver library's get_loadbalancer gives it (an
        octavia-lib LoadBalancer with its listeners, and its pools with their members and
        monitor)} for those of `lb_ids` Octavia still has, read in six queries, whatever their
        number."""
        ids = sorted(set(lb_ids))
        if not ids:
            return {}
        session = db_api.get_session()
        try:  # as the driver library makes them of the driver agent's answer
            return {lb_id: data_models.LoadBalancer.from_dict(d)
                    for lb_id, d in _trees(session, ids).items()}
        finally:
            session.close()

    def mark(self, updates):
        """Writes provisioning statuses ({"loadbalancers": [{"id", "provisioning_status"}],
        "listeners": ...}, the driver library's shape) in one transaction, as the health manager
        marks a failed-over load balancer and its objects ACTIVE."""
        _write_column(updates, "provisioning_status")

    def write_operating(self, updates):
        """Writes operating statuses (the driver library's shape) in one transaction, a
        statement per table and status, as the health manager writes what amphorae report: a
        poll of 1,000 load balancers costs milliseconds, where the driver library takes a
        transaction per object."""
        _write_column(updates, "operating_status")

    def write_statistics(self, listeners):
        """[{"id": listener id, "bytes_in": ...}]: through Octavia's statistics drivers
        ([controller_worker] statistics_drivers), as the driver agent would pass them."""
        objects = [octavia_models.ListenerStatistics(
            listener_id=s["id"], bytes_in=s["bytes_in"], bytes_out=s["bytes_out"],
            active_connections=s["active_connections"],
            total_connections=s["total_connections"], request_errors=s["request_errors"],
            received_time=time.time()) for s in listeners]
        if objects:
            stats_base.update_stats_via_driver(objects)

    def lock_for_failover(self, lb_ids):
        """Sets each load balancer PENDING_UPDATE if it is ACTIVE or ERROR, as the health manager
        does before it fails one over, in one transaction; returns those it set (a change holds
        the others, and nothing is done to them)."""
        repo = repositories.LoadBalancerRepository()
        with db_api.get_lock_session() as session:
            return {lb_id for lb_id in lb_ids
                    if repo.set_status_for_failover(session, lb_id, "PENDING_UPDATE")}

TABLES = {"loadbalancers": models.LoadBalancer, "listeners": models.Listener,
          "pools": models.Pool, "members": models.Member, "healthmonitors": models.HealthMonitor}


def _write_column(updates, column):
    """One transaction: for each table and value of `column`, one UPDATE of every id."""
    by_value = collections.defaultdict(set)
    for key, items in updates.items():
        for item in items:
            if column in item:
                by_value[(key, item[column])].add(item["id"])
    if not by_value:
        return
    with db_api.get_lock_session() as session:
        for (key, value), ids in sorted(by_value.items()):
            model = TABLES[key]
            session.query(model).filter(model.id.in_(sorted(ids))).update(
                {column: value}, synchronize_session=False)


def _trees(session, ids):
    lb_m, vip_m, ln_m, pool_m = models.LoadBalancer, models.Vip, models.Listener, models.Pool
    member_m, hm_m, sp_m = models.Member, models.HealthMonitor, models.SessionPersistence
    flavors = {}
    out = {}
    for lb, vip in (session.query(lb_m, vip_m).outerjoin(vip_m, vip_m.load_balancer_id == lb_m.id)
                    .filter(lb_m.id.in_(ids), lb_m.provisioning_status != "DELETED")):
        if lb.flavor_id and lb.flavor_id not in flavors:
            flavors[lb.flavor_id] = repositories.FlavorRepository().get_flavor_metadata_dict(
                session, lb.flavor_id)
        out[lb.id] = {
            "loadbalancer_id": lb.id, "name": lb.name, "description": lb.description,
            "admin_state_up": lb.enabled, "project_id": lb.project_id,
            "vip_address": vip.ip_address if vip else None,
            "vip_qos_policy_id": vip.qos_policy_id if vip else None,
            "availability_zone": lb.availability_zone,
            "flavor": flavors.get(lb.flavor_id, {}) if lb.flavor_id else {},
            "listeners": [], "pools": []}
    pools = {}
    for p in session.query(pool_m).filter(pool_m.load_balancer_id.in_(list(out))):
        pools[p.id] = {
            "pool_id": p.id, "loadbalancer_id": p.load_balancer_id, "listener_id": None,
            "name": p.name, "description": p.description, "admin_state_up": p.enabled,
            "protocol": p.protocol, "lb_algorithm": p.lb_algorithm, "project_id": p.project_id,
            "tls_enabled": p.tls_enabled, "session_persistence": None, "members": [],
            "healthmonitor": None}
        out[p.load_balancer_id]["pools"].append(pools[p.id])
    for ln in (session.query(ln_m).filter(ln_m.load_balancer_id.in_(list(out)))
               .order_by(ln_m.created_at, ln_m.id)):
        out[ln.load_balancer_id]["listeners"].append({
            "listener_id": ln.id, "loadbalancer_id": ln.load_balancer_id, "name": ln.name,
            "description": ln.description, "admin_state_up": ln.enabled,
            "protocol": ln.protocol, "protocol_port": ln.protocol_port,
            "connection_limit": ln.connection_limit, "default_pool_id": ln.default_pool_id,
            "timeout_client_data": ln.timeout_client_data,
            "timeout_member_connect": ln.timeout_member_connect,
            "timeout_member_data": ln.timeout_member_data,
            "timeout_tcp_inspect": ln.timeout_tcp_inspect, "project_id": ln.project_id,
            "insert_headers": ln.insert_headers or None,
            "allowed_cidrs": [c.cidr for c in ln.allowed_cidrs],
            "default_tls_container_ref": ln.tls_certificate_id,
            "client_ca_tls_container_ref": ln.client_ca_tls_certificate_id})
        # The pool's listener, as Octavia's conversion names it: the first that uses it.
        pool = pools.get(ln.default_pool_id)
        if pool is not None and pool["listener_id"] is None:
            pool["listener_id"] = ln.id
    if pools:
        for m in session.query(member_m).filter(member_m.pool_id.in_(list(pools))):
            pools[m.pool_id]["members"].append({
                "member_id": m.id, "pool_id": m.pool_id, "name": m.name,
                "address": m.ip_address, "protocol_port": m.protocol_port, "weight": m.weight,
                "backup": m.backup, "admin_state_up": m.enabled,
                "monitor_address": m.monitor_address, "monitor_port": m.monitor_port,
                "subnet_id": m.subnet_id, "project_id": m.project_id})
        for hm in session.query(hm_m).filter(hm_m.pool_id.in_(list(pools))):
            pools[hm.pool_id]["healthmonitor"] = {
                "healthmonitor_id": hm.id, "pool_id": hm.pool_id, "name": hm.name,
                "type": hm.type, "delay": hm.delay, "timeout": hm.timeout,
                "max_retries": hm.rise_threshold, "max_retries_down": hm.fall_threshold,
                "http_method": hm.http_method, "url_path": hm.url_path,
                "expected_codes": hm.expected_codes, "http_version": hm.http_version,
                "domain_name": hm.domain_name, "admin_state_up": hm.enabled,
                "project_id": hm.project_id}
        for sp in session.query(sp_m).filter(sp_m.pool_id.in_(list(pools))):
            pools[sp.pool_id]["session_persistence"] = {
                "type": sp.type, "cookie_name": sp.cookie_name,
                "persistence_timeout": sp.persistence_timeout,
                "persistence_granularity": sp.persistence_granularity}
    return out
