"""The real Octavia 11 API and driver agent (testing/harness/octavia_harness.py) in front of a
keepalived pair of vigil nodes (pair_harness.py): Octavia's `[vigil] endpoints` are both nodes'
admin APIs, and Octavia runs in a namespace of its own on the pair's switch, as a controller on
the management network would. The openstack CLI creates a load balancer on API_VIP (in the
pair's subnet, on neither node until keepalived reads it from `vigil health --vips-file`) with a
TCP listener, a pool with a TCP monitor and two members on each node's vigil-apisim. A client
opens a new TLS connection through API_VIP every PERIOD.

vigil is killed (SIGKILL) on the node that holds the address. Asserted: its track file says 1
within TRACKED_BOUND and API_VIP moves to the other node within MOVE_BOUND; Octavia shows the
load balancer DEGRADED (listener and members ONLINE) within two status intervals; only
connections in flight at the kill or started before the address moved fail, at most FAILED_BOUND,
none started LATE after the kill. vigil restarted there with its state: the load balancer is
ONLINE in Octavia again within two intervals, and no connection fails meanwhile. And while
Octavia builds the load balancer, some node holds the pair's own address throughout (sampled
every 50 ms: at most one sample may miss it).
"""
import threading
import time
from pathlib import Path

import pytest

from testing.harness import project_proxy
from testing.harness.netns import MASTERS, missing_prerequisites
from testing.harness.octavia_harness import Octavia, OctaviaCli, missing
from testing.harness.wait import wait_for
from tests.octavia.provider_cloud import POLL, SLACK, Cloud, figure
from pair_harness import (ADMIN, API_VIP, KEEPALIVED, NODES, PORT, SUBNET_PREFIX, VIP, Client,
                          Pair, measure, wait_holder)
from test_keepalived_pair import MOVE_BOUND, TRACKED_BOUND, move

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(KEEPALIVED).exists(),
                       reason="keepalived is not installed (scripts/setup.sh --tests)"),
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]

CONTROL = "10.99.0.60"   # Octavia's namespace on the switch
UNHELD_BOUND = 0.1       # one 50 ms sample of Unheld, whose `ip addr` may race a VRRP advert
# Each node's admin API on every address of the node: Octavia reaches it on the node's address,
# the tracker and keepalived's vrrp_script on 127.0.0.1 as shipped.
ADMIN_PORT = ADMIN.rsplit(":", 1)[1]
ADMIN_ANY = f"0.0.0.0:{ADMIN_PORT}"
INTERVAL = 2.0           # [vigil] status_interval
STATUS_BOUND = 2 * INTERVAL + SLACK
PERIOD = 0.1             # the client's new connection
# What may fail: a connection the killed vigil had accepted, and one refused in the moment before
# its tracker writes 1 (0.02 s measured), after which keepalived takes the address off the node
# at once; a SYN sent before the other node holds it (0.3 s) is lost and sent again a second
# later, to the new holder: a stall, not a failure (2026-12-05).
FAILED_BOUND = 3
LATE = 1.5               # no connection started this long after the kill fails
SUBNET = {**project_proxy.SUBNET, "name": "pair", "cidr": f"{API_VIP.rsplit('.', 1)[0]}.0/{SUBNET_PREFIX}"}
NEUTRON = {"subnets": SUBNET, "networks": {**project_proxy.NETWORK, "name": "pair"}, "ports": None}


class PairCloud(Cloud):
    """Cloud's reading of Octavia's API (tree, wait_tree, wait_online) over an Octavia that runs
    in the namespace `control`, with both nodes of the pair as its endpoints, and one load
    balancer on API_VIP created through the CLI."""

    def __init__(self, tmp, control, token_file):
        self.dir, self.control, self.things, self.nodes = tmp, control, [], {}
        endpoints = [f"http://{address}:{ADMIN_PORT}" for address in NODES.values()]
        options = (f"status_interval = {INTERVAL:g}\nrequest_timeout = {INTERVAL:g}\n"
                   f"endpoints = {', '.join(endpoints)}\n")
        self.octavia = self.keep(control.call(
            lambda: Octavia(tmp, endpoints[0].removeprefix("http://"), token_file,
                            vigil_options=options, neutron=NEUTRON), timeout=300))
        self.cli = OctaviaCli(self.octavia)
        self.cli.base = control.argv(self.cli.base)
        self.lb_id = self.create("create", "--name", "k8s", "--vip-subnet-id", "pair",
                                 "--vip-address", API_VIP, "--provider", "vigil")
        self.listener_id = self.create("listener", "create", "--name", "api", "--protocol", "TCP",
                                       "--protocol-port", str(PORT), "k8s")
        self.pool_id = self.create("pool", "create", "--name", "masters", "--protocol", "TCP",
                                   "--lb-algorithm", "ROUND_ROBIN", "--listener", "api")
        for name in ("master-01", "master-02"):
            self.create("member", "create", "--name", name, "--address", MASTERS[name],
                        "--protocol-port", str(PORT), "masters")
        self.create("healthmonitor", "create", "--delay", "1", "--timeout", "1",
                    "--max-retries", "1", "--type", "TCP", "masters")

    def create(self, *args):
        """One CLI create; returns the new object's id once the load balancer is ACTIVE again."""
        object_id = self.cli.json(*args)["id"]
        self.wait_provisioning(lb_id=getattr(self, "lb_id", object_id))
        return object_id

    def get(self, path):
        # Octavia's API and the proxy in front of it exist only in the control namespace.
        return self.control.call(super().get, path)


class Unheld:
    """Polls, in a thread, whether some node holds the pair's own address (VIP, the config
    file's); longest() is the longest time none did."""

    def __init__(self, nodes):
        self.nodes, self.samples, self.stop = nodes, [], threading.Event()
        self.thread = threading.Thread(target=self.run, name="pair-unheld", daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.wait(0.05):
            self.samples.append((time.monotonic(), any(n.holds_vip() for n in self.nodes)))

    def longest(self):
        self.stop.set()
        self.thread.join(10)
        longest, since = 0.0, None
        for t, held in self.samples:
            if not held and since is None:
                since = t
            elif held and since is not None:
                longest, since = max(longest, t - since), None
        return longest if since is None else max(longest, self.samples[-1][0] - since)


def test_octavia_pair(tmp_path):
    pair = Pair(tmp_path, admin=ADMIN_ANY)
    cloud = client = unheld = None
    try:
        control = pair.attach("octavia", CONTROL)
        first = pair.start()
        started = time.monotonic()
        unheld = Unheld(pair.nodes)
        cloud = PairCloud(tmp_path, control, first.dir / "token")
        cloud.wait_online()
        # Built in Octavia's order (listener, pool, members, monitor), the load balancer is for a
        # few seconds a listener without a pool, then a pool without members. Before /readyz
        # left such listeners out ("idle"), both nodes were not ready meanwhile and keepalived
        # took every address of the pair away for 4.8-6.4 s (2026-12-05).
        unheld_seconds = figure(f"{VIP} (the config's address) held by no node while Octavia "
                                f"built the load balancer", unheld.longest())
        assert unheld_seconds <= UNHELD_BOUND, \
            f"no node held {VIP} for {unheld_seconds:.2f}s while Octavia built a load balancer"
        active = wait_holder(pair.nodes, 10, "one node holding the address after the create")
        standby = pair.other(active)
        wait_for(lambda: active.holds_vip(API_VIP) and not standby.holds_vip(API_VIP), 10,
                 interval=0.02, what=f"{active.name} alone holding {API_VIP}")
        print(f"\nOctavia up and the load balancer ONLINE on {API_VIP} ({active.name}) after "
              f"{time.monotonic() - started:.1f}s")

        client = Client(pair.client_ns, API_VIP, PERIOD)
        client.thread.start()
        wait_for(lambda: sum(a.ok for a in client.attempts) >= 10, 10, interval=POLL,
                 what=f"the client through {API_VIP}")

        marks = {"track": lambda: active.track_value() == "1",
                 "moved": lambda: standby.holds_vip(API_VIP) and not active.holds_vip(API_VIP)}
        new, killed_at, moved_at = move(pair.nodes, active, lambda: active.vigil.kill(), marks)
        assert new is standby
        _, tree = cloud.wait_tree("DEGRADED", timeout=2 * STATUS_BOUND)
        figure("vigil killed -> track file 1", marks["track"])
        figure(f"vigil killed -> {API_VIP} moved", marks["moved"])
        degraded = figure("vigil killed -> load balancer DEGRADED in Octavia",
                          time.monotonic() - killed_at)

        active.start_vigil()
        online, _ = cloud.wait_tree("ONLINE", timeout=2 * STATUS_BOUND)
        figure("vigil back with its state -> load balancer ONLINE in Octavia", online)
        cloud.wait_online()
        end = time.monotonic()
        client.stop.set()
        client.thread.join(10)
        _, failed, in_flight, during_move = measure(client, f"kill vigil on {active.name}",
                                                    killed_at, moved_at, end)
        print(f"figure: requests failed when the holder's vigil was killed: {len(failed)} of "
              f"{len([a for a in client.attempts if a.end >= killed_at])}")

        problems = []
        if marks["track"] > TRACKED_BOUND:
            problems.append(f"the track file said 1 after {marks['track']:.2f}s (bound {TRACKED_BOUND}s)")
        if marks["moved"] > MOVE_BOUND:
            problems.append(f"{API_VIP} moved after {marks['moved']:.2f}s (bound {MOVE_BOUND}s)")
        if degraded > STATUS_BOUND:
            problems.append(f"DEGRADED {degraded:.2f}s after the kill (bound 2 x {INTERVAL:g}s)")
        if tree["listener"] != "ONLINE" or set(tree["members"].values()) != {"ONLINE"}:
            problems.append(f"while DEGRADED the listener and members not all ONLINE: {tree}")
        if online > STATUS_BOUND:
            problems.append(f"ONLINE {online:.2f}s after vigil was back (bound 2 x {INTERVAL:g}s)")
        late = [f"{a.start - killed_at:+.2f}s {a.error}" for a in failed if a.start - killed_at > LATE]
        unexplained = len(failed) - len(in_flight) - len(during_move)
        if len(failed) > FAILED_BOUND or late or unexplained > 0:
            problems.append(f"{len(failed)} failed connections (bound {FAILED_BOUND}; in flight "
                            f"{len(in_flight)}, started before the move {len(during_move)}; "
                            f"started after {LATE}s: {late})")
        assert not problems, "\n".join(problems)
    except BaseException:
        pair.print_logs()
        if cloud is not None:
            print("--- octavia agent.log (tail)\n" + cloud.octavia.log_text("agent")[-3000:])
        raise
    finally:
        for poller in (client, unheld):
            if poller is not None:
                poller.stop.set()
        if cloud is not None:
            cloud.stop()
        pair.destroy()
