"""A BGP fleet (fleet_harness.py): three vigil nodes announce 192.0.2.100/32 through BIRD to a
router that spreads new connections over them (ECMP, L4 hash). Shown and asserted: new
connections reach every node (counted by each vigil's /metrics); vigil killed on one node takes
its route away within 2 s (its health loop, `vigil health --exit-code`) and new connections
succeed through the others; restarted, it is announced again; a node whose network goes silent
is dropped by BFD within 1.5 s. Printed: what the route changes (a node going, and coming back)
do to established sessions on the other nodes, with BIRD's plain multipath route and with a
resilient nexthop group (asserted: the group keeps them all).
"""
import collections
import time
from pathlib import Path

import pytest

from testing.harness.netns import NetNS, missing_prerequisites
from testing.harness.paths import ROOT
from testing.harness.wait import wait_for
from fleet_harness import API_SERVICE, BIRD, DEPLOY, CLIENT, CLIENT_GW, NODES, RESILIENT_SERVICE, SERVICE, Node, Router, \
    Prober, Session, new_connection, print_logs, veth, wait_nexthops

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(BIRD).exists(), reason="BIRD 2 is not installed (scripts/setup.sh --tests)"),
]

WITHDRAW_BOUND = 2.0     # vigil killed -> route gone (health loop: 2 failures 200 ms apart)
BFD_BOUND = 1.5          # a silent node -> route gone (BFD: 3 x 100 ms, and BIRD's reaction)
SPREAD = 60              # new connections to show the spread
SESSIONS = 30            # established sessions per service address


def spread(client_ns, n):
    got = collections.Counter()
    for _ in range(n):
        node, err = client_ns.call(new_connection, SERVICE)
        got[node or f"failed: {err}"] += 1
    return got


def survivors_report(sessions, dead):
    """(sessions on the other nodes, how many of them broke, those that still work)."""
    kept = [s for s in sessions if s.node not in dead]
    working = [s for s in kept if s.still_works()]
    return len(kept), len(kept) - len(working), working


@pytest.mark.parametrize("name", ["vigil-node.conf", "router.conf", "vigil-bgp-health"])
def test_docs_show_the_deploy_files_as_they_are(name):
    assert (DEPLOY / name).read_text() in (ROOT / "docs/ha.md").read_text()


def test_bgp_fleet(tmp_path):
    router = Router(tmp_path)
    spaces = [router.ns]
    nodes = {}
    prober = None
    try:
        client_ns = NetNS(prefix="vigil-fleet-client")
        spaces.append(client_ns)
        veth(router.ns, "client0", client_ns, f"{CLIENT}/24", bridge=None)
        router.ns.run(["ip", "addr", "add", f"{CLIENT_GW}/24", "dev", "client0"])
        client_ns.run(["ip", "route", "add", "default", "via", CLIENT_GW])
        for name in NODES:
            nodes[name] = Node(name, router.ns, tmp_path)
            spaces.append(nodes[name].ns)
        for n in nodes.values():
            n.start_vigil()
        router.start_bird()
        for n in nodes.values():
            n.start_routing()
        wait_nexthops(router, SERVICE, NODES.values(), 30, "the router's ECMP route over all three nodes")

        # A load balancer created through every node's API (as Octavia's provider driver does):
        # BIRD announces it from `vigil health --vips-file`, and connections to it are served.
        def service_since():  # each node's vigil_service: (state, ms of the day it last changed)
            out = {}
            for name, n in nodes.items():
                fields = n.bird.show("protocols", "vigil_service").splitlines()[-1].split()
                h, m, sec = fields[-1].split(":")
                out[name] = (fields[3], round((int(h) * 3600 + int(m) * 60 + float(sec)) * 1000))
            return out
        since = service_since()
        created = time.monotonic()
        for n in nodes.values():
            n.create_api_load_balancer()
        wait_nexthops(router, API_SERVICE, NODES.values(), 15, "the router's route to the API's address")
        served, err = client_ns.call(new_connection, API_SERVICE)
        print(f"\nload balancer created through the API on every node: {API_SERVICE} announced by all "
              f"after {time.monotonic() - created:.2f}s; a new connection served by {served or err}")
        assert served, err
        # `birdc configure` added the route in place: the service route was never withdrawn. A
        # restart would show as a change seconds later; BIRD's own figure for one start may move
        # by a millisecond between two reads (2026-12-05, once in a 10-run series: .325, then .326).
        after = service_since()
        assert all(after[n][0] == "up" and abs(after[n][1] - since[n][1]) <= 50 for n in nodes), \
            (since, after)
        resilient, why = router.route_resilient_service()
        print(f"\nrouter: {SERVICE} via {sorted(router.nexthops(SERVICE))} (BIRD, multipath); "
              f"{RESILIENT_SERVICE} via a {'resilient' if resilient else 'plain (' + why + ')'} nexthop group")

        # New connections spread across the nodes; each vigil counts what it accepted.
        before = {name: n.accepted().get("api", 0) for name, n in nodes.items()}
        got = spread(client_ns, SPREAD)
        # The counters reach /metrics a moment after the sessions end: poll until all are there.
        def counted_all():
            c = {name: n.accepted().get("api", 0) - before[name] for name, n in nodes.items()}
            return c if sum(c.values()) >= SPREAD else None
        counted = wait_for(counted_all, 10, what=f"{SPREAD} connections counted in the vigils' /metrics")
        print(f"{SPREAD} new connections: served by {dict(got)}; accepted per vigil /metrics {counted}")
        assert set(got) == set(NODES), got
        assert counted == {name: got[name] for name in NODES}, (counted, got)

        sessions = client_ns.call(lambda: [Session(SERVICE) for _ in range(SESSIONS)])
        resilient_sessions = client_ns.call(lambda: [Session(RESILIENT_SERVICE) for _ in range(SESSIONS)])
        print(f"established: {dict(collections.Counter(s.node for s in sessions))} to {SERVICE}, "
              f"{dict(collections.Counter(s.node for s in resilient_sessions))} to {RESILIENT_SERVICE}")

        prober = Prober(client_ns)
        prober.thread.start()
        wait_for(lambda: len(prober.results) >= 5, 10, what="the prober running")

        # Fault 1: vigil killed on the node of the first next hop: with Linux's hash-threshold
        # multipath, removing the first (or last) range moves the boundaries of the others, so
        # this is the case that can break sessions on surviving nodes (the middle one's cannot).
        by_address = {a: k for k, a in NODES.items()}
        order = [by_address[a] for a in router.nexthop_order(SERVICE)]
        victim, silent, survivor = order[0], order[-1], order[1]
        killed_at = time.monotonic()
        nodes[victim].vigil.kill()
        wait_nexthops(router, SERVICE, [NODES[silent], NODES[survivor]], 10, f"{victim}'s route withdrawn")
        withdrawn = time.monotonic() - killed_at
        router.drop_node_from_group(victim)
        during = prober.between(killed_at, killed_at + withdrawn)
        failed = [r for r in during if r[1] is None]
        print(f"next hops in the kernel's order: {order}")
        print(f"vigil killed on {victim}: route withdrawn after {withdrawn:.2f}s; new connections meanwhile "
              f"{len(during)}, failed {len(failed)} ({failed[0][2] if failed else '-'})")
        after = spread(client_ns, 30)
        print(f"30 new connections after the withdrawal: {dict(after)}")
        assert set(after) <= {silent, survivor}, after

        kept, broken, working = client_ns.call(survivors_report, sessions, {victim})
        kept_r, broken_r, working_r = client_ns.call(survivors_report, resilient_sessions, {victim})
        print(f"established sessions on {survivor}/{silent} after the route change: BIRD multipath "
              f"{broken} of {kept} broken (rehashed to another node, which resets them); "
              f"{'resilient group' if resilient else 'plain group'} {broken_r} of {kept_r} broken")

        # The victim's vigil back: the health loop announces again, the next hop returns.
        back_at = time.monotonic()
        nodes[victim].start_vigil()
        wait_nexthops(router, SERVICE, NODES.values(), 15, f"{victim}'s route announced again")
        announced = time.monotonic() - back_at
        router.add_node_to_group(victim)
        _, broken_back, _ = client_ns.call(survivors_report, working, set())
        _, broken_back_r, _ = client_ns.call(survivors_report, working_r, set())
        print(f"vigil back on {victim}: announced {announced:.2f}s after its start; the sessions still "
              f"working broken by the route change: BIRD multipath {broken_back} of {len(working)}; "
              f"{'resilient group' if resilient else 'plain group'} {broken_back_r} of {len(working_r)}")

        # Fault 2: another node's network goes silent (power lost): BFD drops it.
        silent_at = time.monotonic()
        nodes[silent].ns.iptables("-I", "INPUT", "-i", "eth0", "-j", "DROP")
        nodes[silent].ns.iptables("-I", "OUTPUT", "-o", "eth0", "-j", "DROP")
        wait_nexthops(router, SERVICE, [NODES[victim], NODES[survivor]], 10, f"{silent}'s route dropped by BFD")
        bfd = time.monotonic() - silent_at
        print(f"{silent} silent: route dropped after {bfd:.2f}s (BFD)")
        last = spread(client_ns, 20)
        print(f"20 new connections after: {dict(last)}")
        prober.stop.set()
        prober.thread.join(5)

        problems = []
        if withdrawn > WITHDRAW_BOUND:
            problems.append(f"vigil killed: route withdrawn after {withdrawn:.2f}s (bound {WITHDRAW_BOUND}s)")
        if bfd > BFD_BOUND:
            problems.append(f"silent node: route dropped after {bfd:.2f}s (bound {BFD_BOUND}s)")
        if resilient and broken_r:
            problems.append(f"resilient group: {broken_r} of {kept_r} sessions on surviving nodes broke")
        if resilient and broken_back_r:
            problems.append(f"resilient group: {broken_back_r} of {len(working_r)} sessions broke when "
                            f"{victim} came back")
        if set(last) != {victim, survivor}:
            problems.append(f"after both faults new connections went to {dict(last)}")
        assert not problems, "\n".join(problems)
    except BaseException:
        print_logs(nodes, router)
        raise
    finally:
        if prober is not None:
            prober.stop.set()
        for ns in reversed(spaces):
            ns.destroy()
