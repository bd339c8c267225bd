"""A BGP fleet whose vigils are peers (fleet_harness.py, docs/ha.md "The fleet"): one node of
three dies while watches without TCP keepalive stream through the fleet, three on each node, and
a client opens new connections. Twice:

  (a) node2 powered off: its eth0 drops everything in and out and every process in it is
      stopped (SIGSTOP), not resumed before the measurement ends. Its kernel says nothing, so its
      clients' sessions would wait for their own timers (client-go: 30 s + 15 s); the survivors
      lose it as a peer after 1 s of silence and tickle its sessions from the service address,
      which every node holds. The client's challenge ACK goes through the router, where BFD has
      withdrawn node2's route by then, to a survivor, whose kernel resets it; the watch
      reconnects at once.
  (b) vigil killed (SIGKILL) on node3: its kernel closes the sessions itself; the check is that
      nothing regresses with the peers' tickles on top.

The sessions go to 192.0.2.101, whose route is a resilient nexthop group that follows BIRD's
route (RouteMirror): a router with resilient hashing. With the plain multipath route BIRD
installs, removing a next hop rehashes sessions of the surviving nodes (test_bgp_fleet.py shows
how many), and no sync can save those.

Asserted for each fault: every watch that was on the dead node streams again, through a
survivor, within 3 s of the fault; no watch on a surviving node ends, or goes without an event
for longer than 1 s (events every 200 ms); new connections fail only when in flight to the dead
node at the instant of the power-off or the kill (at most one), or, vigil killed, refused by
its kernel before the route was withdrawn (as without peers); the route goes within 1.5 s (BFD) or 2 s
(the health loop). Then the node comes back (processes resumed and network back; vigil
restarted): it is announced again, new connections reach it, and none fails nor any watch ends
meanwhile. Printed: when the route moved, the survivors' vigil_peer_lost_total,
vigil_peer_sessions_tickled_total, tickles sent and resets, and each watch's back-time. About 35 s.
"""
import collections
import time
from pathlib import Path

import pytest

from testing.harness.netns import NetNS, load_average, missing_prerequisites, sleep_until
from testing.harness.wait import wait_for
from fleet_harness import BIRD, CLIENT, CLIENT_GW, NODES, RESILIENT_SERVICE, SERVICE, WATCH_INTERVAL, Node, \
    Prober, RouteMirror, Router, Watch, metric, print_logs, veth, wait_nexthops

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(BIRD).exists(), reason="BIRD 2 is not installed (scripts/setup.sh --tests)"),
]

PEERS = True               # the fleet as every node's peers (docs/ha.md)
WATCHES_PER_NODE = 3
BACK_BOUND = 3.0           # the dead node's watches streaming again through a survivor
GAP_BOUND = 1.0            # a surviving node's watch: events every 200 ms, never a gap past this
BFD_BOUND = 1.5            # powered off -> BIRD's route without it
WITHDRAW_BOUND = 2.0       # vigil killed -> its health loop withdraws the route
RETURN_BOUND = 15.0        # vigil restarted -> announced again, and serving new connections
# A node that BFD dropped is accepted by the router's BIRD again only after its `error wait time`
# (from the failure) and, when its own BIRD resumes and finds its hold timer expired, after its
# own (from the resume): deploy/bird/*.conf set 5 s (BIRD's default is 60 s), less up to a
# quarter at random, so the node is back within 5 s of the resume plus a BGP and BFD start.
RESUME_BOUND = 12.0        # powered on (processes resumed) -> announced again, serving
OBSERVE = 6.0              # each fault is watched this long (the scenario's own timeline)
IDLE_TIMER = 1             # s: the group gives a returning node buckets idle this long


def open_watches(client_ns):
    """WATCHES_PER_NODE watches on each node: watches are opened until each node has its share
    (the router's hash decides where each goes); the extra ones are closed."""
    kept, per_node = [], collections.Counter()
    for i in range(20 * WATCHES_PER_NODE * len(NODES)):
        w = Watch(client_ns, RESILIENT_SERVICE, str(i))
        w.thread.start()
        stream = wait_for(lambda: w.streams[0] if w.streams else None, 10, what=f"watch {i} streaming")
        if per_node[stream["node"]] < WATCHES_PER_NODE:
            kept.append(w)
            per_node[stream["node"]] += 1
        else:
            w.interrupt()
        if len(kept) == WATCHES_PER_NODE * len(NODES):
            return kept
    raise AssertionError(f"{i + 1} watches gave {dict(per_node)}, not {WATCHES_PER_NODE} per node")


def node_at(watch, t):
    s = watch.stream_at(t)
    return s["node"] if s else None


def peer_figures(node, victim):
    """(times lost, its sessions tickled, tickles sent, resets its kernel sent) as `node` counts
    them for `victim`."""
    text = node.metrics()
    return (int(metric(text, "vigil_peer_lost_total", peer=victim) or 0),
            int(metric(text, "vigil_peer_sessions_tickled_total", peer=victim) or 0),
            int(metric(text, "vigil_takeover_tickles_total", result="sent") or 0),
            node.tcp_resets_sent())


def fault_report(kind, victim, t0, t_end, watches, prober, mirror, before, after, route_bound):
    """Prints what the clients and the routers saw of one fault, and returns the broken promises."""
    problems = []

    def broke(what):
        problems.append(f"{kind} {victim}: {what} (load average {load_average()})")

    lost_route = mirror.first(t0, lambda h: victim not in h)
    followed = mirror.applied_after(t0, lambda h: victim not in h)
    route_s = lost_route[0] - t0 if lost_route else None
    print(f"\n{kind} {victim}: BIRD's route without it after "
          f"{'never' if route_s is None else f'{route_s:.2f}s'}; the resilient group followed after "
          f"{'never' if followed is None else f'{followed[0] - t0:.2f}s'}")
    if route_s is None or route_s > route_bound:
        broke(f"route withdrawn after {route_s}s (bound {route_bound}s)")
    for name in after:
        lost, tickled, sent, resets = (a - b for a, b in zip(after[name], before[name]))
        print(f"  {name}: vigil_peer_lost_total{{peer={victim}}} +{lost}, "
              f"vigil_peer_sessions_tickled_total{{peer={victim}}} +{tickled}, vigil_takeover_tickles_total sent "
              f"+{sent}, resets its kernel sent +{resets}")

    on_victim = [w for w in watches if node_at(w, t0) == victim]
    others = [w for w in watches if w not in on_victim]
    for w in on_victim:
        old = w.stream_at(t0)
        back = w.back_after(t0)
        ended = f"{old['ended'] - t0:.2f}s ({old['why']})" if old["ended"] else "never"
        if back is None:
            print(f"  watch {w.label} on {victim}: not back after {t_end - t0:.2f}s; its stream ended {ended}")
            broke(f"watch {w.label} not streaming again {t_end - t0:.2f}s after the fault (bound {BACK_BOUND}s)")
            continue
        t, stream = back
        print(f"  watch {w.label} on {victim}: back after {t - t0:.2f}s through {stream['node']}; its stream "
              f"ended {ended}; failed connects {len([f for f in w.failed if f[0] > t0])}")
        if t - t0 > BACK_BOUND:
            broke(f"watch {w.label} back after {t - t0:.2f}s (bound {BACK_BOUND}s)")
        if stream["node"] == victim:
            broke(f"watch {w.label} came back through {victim} itself")
    worst = 0.0
    for w in others:
        s = w.stream_at(t0)
        if s is None:
            broke(f"watch {w.label} had no stream at the fault")
            continue
        if s["ended"] is not None and s["ended"] < t_end:
            broke(f"watch {w.label} on surviving {s['node']} ended {s['ended'] - t0:+.2f}s after the fault: "
                  f"{s['why']}")
            continue
        gap = w.longest_silence(s, t0, t_end)
        worst = max(worst, gap)
        if gap > GAP_BOUND:
            broke(f"watch {w.label} on surviving {s['node']} had no event for {gap:.2f}s (bound {GAP_BOUND}s)")
    print(f"  {len(others)} watches on the surviving nodes: "
          f"{sum(1 for w in others if (w.stream_at(t0) or {}).get('ended', 0) is None)} still streaming, "
          f"longest gap {worst:.2f}s (events every {WATCH_INTERVAL}s)")

    during = [r for r in prober.results if r[3] > t0 and r[0] < t_end]
    failed = [r for r in during if r[1] is None]
    slow = max((r[3] - r[0] for r in during), default=0)
    print(f"  new connections: {len(during)}, slowest {slow:.2f}s, failed {len(failed)}: "
          + "; ".join(f"started {r[0] - t0:+.2f}s, {r[2]}" for r in failed))
    if kind == "powered off":
        in_flight = [r for r in failed if r[0] < t0]
        if len(in_flight) > 1 or len(failed) > len(in_flight):
            broke(f"{len(failed)} new connections failed, {len(in_flight)} of them in flight at the fault "
                  f"(bound: only that one)")
        late = [f for w in watches for f in w.failed if f[0] > t0]
        if late:
            broke(f"{len(late)} watch reconnects failed: {late[:3]}")
    else:
        # The kernel of the killed vigil closes what it held: a request in flight at the kill
        # (started before it) ends without an answer, as in the power-off (at most that one).
        cutoff = followed[0] if followed else t_end
        in_flight = [r for r in failed if r[0] < t0]
        bad = [r for r in failed if r not in in_flight[:1] and (
            r[0] > cutoff or "refused" not in r[2].lower() and "reset" not in r[2].lower())]
        if bad:
            broke(f"new connections failed other than refused before the withdrawal, or the one in "
                  f"flight at the kill: {bad[:3]}")
    return problems


def return_report(what, victim, t1, watches, prober, mirror, nodes, bound):
    """The node back: announced again, serving new connections; nothing fails meanwhile."""
    problems = []
    announced = wait_for(lambda: mirror.applied_after(t1, lambda h: victim in h), bound,
                         what=f"{victim}'s route announced again after {what}")
    served = wait_for(lambda: next((r for r in prober.results if r[0] > announced[0] and r[1] == victim), None),
                      bound, what=f"a new connection served by {victim} after it came back")
    t_end = served[3] + 2.0
    sleep_until(t_end)
    failed = [r for r in prober.results if r[0] > t1 and r[0] < t_end and r[1] is None]
    ended = [(w.label, s["node"], f"{s['ended'] - t1:+.2f}s", s["why"]) for w in watches for s in w.streams
             if s["ended"] is not None and t1 < s["ended"] < t_end]
    lost = {p: int(nodes[victim].metric("vigil_peer_lost_total", peer=p) or 0) for p in NODES if p != victim}
    print(f"{victim} back ({what}): announced after {announced[0] - t1:.2f}s, first new connection there "
          f"{served[0] - t1:.2f}s; new connections failed since {len(failed)}; watch streams ended since "
          f"{len(ended)}; {victim}'s vigil_peer_lost_total {lost}")
    if failed:
        problems.append(f"{victim} back ({what}): {len(failed)} new connections failed: {failed[:3]}")
    if ended:
        problems.append(f"{victim} back ({what}): watch streams ended: {ended}")
    return problems


def test_a_dead_node_sessions_come_back_through_the_survivors(tmp_path):
    router = Router(tmp_path)
    spaces = [router.ns]
    nodes, watches = {}, []
    prober = mirror = None
    try:
        client_ns = NetNS(prefix="vigil-fleet-client")
        spaces.append(client_ns)
        veth(router.ns, "client0", client_ns, f"{CLIENT}/24", bridge=None)
        router.ns.run(["ip", "addr", "add", f"{CLIENT_GW}/24", "dev", "client0"])
        client_ns.run(["ip", "route", "add", "default", "via", CLIENT_GW])
        for name in NODES:
            nodes[name] = Node(name, router.ns, tmp_path, peers=PEERS)
            spaces.append(nodes[name].ns)
        for n in nodes.values():
            n.start_vigil()
        router.start_bird()
        for n in nodes.values():
            n.start_routing()
        wait_nexthops(router, SERVICE, NODES.values(), 30, "the router's ECMP route over all three nodes")
        resilient, why = router.route_resilient_service(idle_timer=IDLE_TIMER)
        if not resilient:
            pytest.skip(f"the kernel has no resilient nexthop groups ({why}): surviving sessions would be rehashed")
        mirror = RouteMirror(router)
        if PEERS:
            wait_for(lambda: all(n.metric("vigil_peer_up", peer=p, direction=d) == 1
                                 for n in nodes.values() for p in NODES if p != n.name for d in ("send", "receive")),
                     15, what="every node streaming to and from every other")

        watches = open_watches(client_ns)
        on = collections.Counter(w.streams[0]["node"] for w in watches)
        if PEERS:
            wait_for(lambda: all(n.metric("vigil_peer_sessions", peer=p) == on[p]
                                 for n in nodes.values() for p in NODES if p != n.name),
                     5, what="every node knowing the others' watches")
        prober = Prober(client_ns, RESILIENT_SERVICE, timeout=3.0, period=0.1)
        prober.thread.start()
        wait_for(lambda: len(prober.results) >= 5, 10, what="the prober running")
        print(f"\nwatches without keepalive through {RESILIENT_SERVICE}: {dict(on)}; peers "
              f"{'on' if PEERS else 'OFF'}")

        problems = []
        # (a) Powered off.
        victim = "node2"
        survivors = [n for n in NODES if n != victim]
        before = {n: peer_figures(nodes[n], victim) for n in survivors}
        t0 = time.monotonic()
        nodes[victim].power_off()
        deadline = t0 + OBSERVE
        sleep_until(deadline)
        after = {n: peer_figures(nodes[n], victim) for n in survivors}
        problems += fault_report("powered off", victim, t0, deadline, watches, prober, mirror, before, after,
                                 BFD_BOUND)
        t1 = time.monotonic()
        nodes[victim].power_on()
        problems += return_report("powered on", victim, t1, watches, prober, mirror, nodes, RESUME_BOUND)

        # (b) vigil killed.
        victim = "node3"
        survivors = [n for n in NODES if n != victim]
        before = {n: peer_figures(nodes[n], victim) for n in survivors}
        t0 = time.monotonic()
        nodes[victim].vigil.kill()
        nodes[victim].vigil.wait(timeout=10)
        deadline = t0 + OBSERVE
        sleep_until(deadline)
        after = {n: peer_figures(nodes[n], victim) for n in survivors}
        problems += fault_report("vigil killed on", victim, t0, deadline, watches, prober, mirror, before, after,
                                 WITHDRAW_BOUND)
        t1 = time.monotonic()
        nodes[victim].start_vigil()
        problems += return_report("vigil restarted", victim, t1, watches, prober, mirror, nodes, RETURN_BOUND)
        if mirror.errors:
            problems.append(f"the route mirror failed: {mirror.errors[:3]}")
        assert not problems, "\n".join(problems)
    except BaseException:
        print_logs(nodes, router)
        raise
    finally:
        if prober is not None:
            prober.stop.set()
        for w in watches:
            w.interrupt()
        if mirror is not None:
            mirror.close()
        for ns in reversed(spaces):
            ns.destroy()
