"""Fills Octavia's database with N load balancers of the vigil provider, all ACTIVE, as the API
and the driver would have left them: each a VIP on 127.0.0.1, a TCP listener on port 20000 + i,
a ROUND_ROBIN pool with a TCP monitor (delay 5 s, timeout 2 s) and three members on 127.1.X.Y
where nothing listens. Writing the rows directly takes seconds; creating them through the API
takes hours: bench/octavia_fleet builds 6-7 a minute on 2 cores, every write a serial round trip
through the vigil driver and Octavia's driver agent, not SQLite's fsync (docs/octavia.md, "At
fleet size").

Runs on the interpreter Debian's Octavia runs on, with Octavia's configuration:
    /usr/bin/python3 populate.py --config-file octavia.conf --lbs 1000
"""
import argparse
import sys
import uuid

from octavia.common import config
from octavia.db import api as db_api
from octavia.db import models

PROJECT = "9a8b7c6d5e4f40318e2d1c0b0a090807"
UP = {"provisioning_status": "ACTIVE", "operating_status": "ONLINE", "enabled": True,
      "project_id": PROJECT}


def new_id():
    return str(uuid.uuid4())


def add_loadbalancer(session, i):
    lb_id, listener_id, pool_id = new_id(), new_id(), new_id()
    session.add(models.LoadBalancer(id=lb_id, name=f"lb-{i}", provider="vigil",
                                    topology="SINGLE", **UP))
    session.add(models.Vip(load_balancer_id=lb_id, ip_address="127.0.0.1"))
    session.add(models.Pool(id=pool_id, name=f"pool-{i}", load_balancer_id=lb_id,
                            protocol="TCP", lb_algorithm="ROUND_ROBIN", **UP))
    session.add(models.Listener(id=listener_id, name=f"listener-{i}", load_balancer_id=lb_id,
                                protocol="TCP", protocol_port=20000 + i,
                                default_pool_id=pool_id, connection_limit=-1,
                                timeout_client_data=50000, timeout_member_connect=5000,
                                timeout_member_data=50000, timeout_tcp_inspect=0, **UP))
    session.add(models.HealthMonitor(id=new_id(), pool_id=pool_id, type="TCP", delay=5,
                                     timeout=2, fall_threshold=3, rise_threshold=2, **UP))
    for k in range(3):
        j = 3 * i + k  # distinct addresses for up to 62,500 members
        session.add(models.Member(id=new_id(), pool_id=pool_id, name=f"m{k}",
                                  ip_address=f"127.1.{j // 250}.{j % 250 + 1}",
                                  protocol_port=6443, weight=1, backup=False, **UP))


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lbs", type=int, required=True)
    args, rest = parser.parse_known_args(argv[1:])
    config.init(rest)
    session = db_api.get_session()
    with session.begin():
        for i in range(args.lbs):
            add_loadbalancer(session, i)
    print(f"{args.lbs} load balancers written")


if __name__ == "__main__":
    main(sys.argv)
