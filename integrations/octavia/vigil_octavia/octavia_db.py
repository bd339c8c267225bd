"""What the provider agent reads and locks in Octavia's database directly, as Octavia's own health
manager does: the driver library can look an object up by id but cannot list the load balancers
of a provider, nor test-and-set one for a failover.

Only for the agent, which runs in octavia-driver-agent with Octavia's configuration loaded.
"""
from octavia.db import api as db_api
from octavia.db import models
from octavia.db import repositories

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

    def lock_for_failover(self, lb_id):
        """Sets the load balancer PENDING_UPDATE if it is ACTIVE or ERROR, as the health manager
        does before it fails one over; False when a change holds it (nothing is done then)."""
        with db_api.get_lock_session() as session:
            return repositories.LoadBalancerRepository().set_status_for_failover(
                session, lb_id, "PENDING_UPDATE")
