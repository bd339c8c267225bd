"""Prints, as JSON, what a re-push would send vigil for each load balancer of an Octavia database,
from the tree Octavia's own driver agent gives (driver_get.process_get, what the driver library's
get_loadbalancer returns) and from the agent's bulk read (octavia_db.OctaviaDatabase.trees), so
that test_octavia_db.py can compare the two. Fills the database first with load balancers that
differ in every field a push sends (populate.py's plain ones, and variants).

Runs on Debian's Octavia interpreter with Octavia's configuration:
    /usr/bin/python3 tree_bodies.py --config-file octavia.conf
"""
import json
import sys
import uuid

from octavia_lib.api.drivers import data_models as dm

from bench.octavia_reconcile import populate
from octavia.api.drivers.driver_agent import driver_get
from octavia.common import config
from octavia.db import api as db_api
from octavia.db import models
from vigil_octavia import repush, translate
from vigil_octavia.octavia_db import OctaviaDatabase


def add_variants(session):
    """A load balancer with a flavor, a listener with allowed CIDRs, a disabled listener without
    a pool, a pool with SOURCE_IP persistence, an HTTP monitor with every field, a member with a
    monitor address, a backup one, and a pool no listener uses."""
    profile, flavor = str(uuid.uuid4()), str(uuid.uuid4())
    session.add(models.FlavorProfile(id=profile, name="ha", provider_name="vigil",
                                     flavor_data='{"loadbalancer_topology": "ACTIVE_STANDBY"}'))
    session.flush()
    session.add(models.Flavor(id=flavor, name="ha", flavor_profile_id=profile, enabled=True))
    lb, pool, spare = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    up = dict(populate.UP)
    session.add(models.LoadBalancer(id=lb, name="variants", description="all of it",
                                    provider="vigil", topology="ACTIVE_STANDBY",
                                    flavor_id=flavor, **up))
    session.add(models.Vip(load_balancer_id=lb, ip_address="192.0.2.7"))
    session.add(models.Pool(id=pool, name="p", description="d", load_balancer_id=lb,
                            protocol="PROXYV2", lb_algorithm="SOURCE_IP", **up))
    session.add(models.Pool(id=spare, name=None, load_balancer_id=lb, protocol="TCP",
                            lb_algorithm="LEAST_CONNECTIONS", **dict(up, enabled=False)))
    api = str(uuid.uuid4())
    session.add(models.Listener(id=api, name="api", load_balancer_id=lb,
                                protocol="TCP", protocol_port=6443, default_pool_id=pool,
                                connection_limit=5000, timeout_client_data=3600000,
                                timeout_member_connect=1000, timeout_member_data=3600000,
                                timeout_tcp_inspect=0, **up))
    session.flush()
    for cidr in ("10.0.0.0/8", "fd00::/8"):
        session.add(models.ListenerCidr(listener_id=api, cidr=cidr))
    session.add(models.SessionPersistence(pool_id=pool, type="SOURCE_IP"))
    session.add(models.Listener(id=str(uuid.uuid4()), name=None, load_balancer_id=lb,
                                protocol="TCP", protocol_port=22623, connection_limit=-1,
                                **dict(up, enabled=False)))
    session.add(models.HealthMonitor(id=str(uuid.uuid4()), pool_id=pool, name="readyz",
                                     type="HTTPS", delay=5, timeout=2, fall_threshold=3,
                                     rise_threshold=2, http_method="GET", url_path="/readyz",
                                     expected_codes="200", http_version=1.1,
                                     domain_name="api.example", **up))
    session.add(models.Member(id=str(uuid.uuid4()), pool_id=pool, name="m1",
                              ip_address="10.0.0.11", protocol_port=6443, weight=3,
                              backup=False, monitor_address="10.1.0.11", monitor_port=6444,
                              subnet_id=str(uuid.uuid4()), **up))
    session.add(models.Member(id=str(uuid.uuid4()), pool_id=pool, name=None,
                              ip_address="10.0.0.12", protocol_port=6443, weight=0,
                              backup=True, **dict(up, enabled=False)))


def bodies(tree):
    """Every body a re-push could send for the tree: creates and updates, in a stable order."""
    out = {"lb": [translate.loadbalancer(tree.lb), translate.loadbalancer(tree.lb, True)]}
    for ln in sorted(tree.listeners, key=lambda x: x.listener_id):
        out[ln.listener_id] = [translate.listener(ln), translate.listener(ln, True)]
    for p in sorted(tree.pools, key=lambda x: x.pool_id):
        out[p.pool_id] = [translate.pool(p), translate.pool(p, True)]
        for m in sorted(tree.members[p.pool_id], key=lambda x: x.member_id):
            out[m.member_id] = [translate.member(m), translate.member(m, True)]
        hm = tree.monitors[p.pool_id]
        if hm is not None:
            out[hm.healthmonitor_id] = [translate.healthmonitor(hm),
                                        translate.healthmonitor(hm, True, hm.type)]
    return out


def main(argv):
    config.init(argv[1:])
    session = db_api.get_session()
    with session.begin():
        for i in range(3):
            populate.add_loadbalancer(session, i)
        add_variants(session)
    ids = [row.id for row in session.query(models.LoadBalancer.id)]
    session.close()
    bulk = OctaviaDatabase().trees(ids)
    result = {}
    for lb_id in ids:
        octavias = dm.LoadBalancer.from_dict(driver_get.process_get(
            {"object": "loadbalancers", "id": lb_id}))
        result[lb_id] = {"octavia": bodies(repush.Tree(octavias)),
                         "agent": bodies(repush.Tree(bulk[lb_id]))}
    json.dump(result, sys.stdout, sort_keys=True, default=str)


if __name__ == "__main__":
    main(sys.argv)
