"""A keepalived pair of vigil nodes (pair_harness.py) running deploy/keepalived/ as shipped:
keepalived.conf, and vigil-keepalived-track.service's command (`vigil health --track-file`)
beside it. A client opens a new TLS connection through the address every 200 ms and two watches
stream through it (one with TCP keepalive on its socket, one without), while:

(0) vigil's admin API on the active node gets no new connection for UNANSWERED: one check of the
    tracker fails (no answer within its second) and must not move the address: no flapping;
(a) vigil on the active node is killed (SIGKILL): the tracker's connection to it closes, nothing
    listens any more, the tracker writes 1 and keepalived gives the address away at once;
(b) keepalived on the active node stops gracefully.

Asserted: the address moves within MOVE_BOUND (the target) after (a) and (b); in (a) the track
file says 1 within TRACKED_BOUND of the kill, and a client
fails at most once (the connection or stream in flight when vigil died, or one that reached the
node before it let the address go); in (b) no connection fails but those in flight or started
while the address moved; the keepalive watch streams again within 5 s. The watch without
keepalive must come back after (a) (vigil's death resets its sessions) and, within 3 s of the
fault, after (b): the node that gave the address away still runs vigil, which hears the address
go (netlink), resets its sessions on it and tickles each client from the address (a bare ACK,
numbers 0); the client's challenge ACK reaches the new holder, whose reset ends the stuck
session at once (docs/ha.md, "What a client sees").
"""
import time
from pathlib import Path

import pytest

from testing.harness.netns import missing_prerequisites, sleep_until
from testing.harness.wait import wait_for
from testing.harness.paths import ROOT
from pair_harness import (ADMIN, API_VIP, DEPLOY, KEEPALIVED, Client, Pair, VipWatch, measure,
                          tls_get_via_vip)

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(KEEPALIVED).exists(),
                       reason="keepalived is not installed (scripts/setup.sh --tests)"),
]

MOVE_BOUND = 1.5      # seconds: the target
# vigil killed: the track file says 1 within this. The vrrp_script alone, which the config keeps,
# moves the address 1.3-2.4 s after the kill, within MOVE_BOUND in some runs; this bound (and
# each client's single failure) fails whenever the tracker does not do its job.
TRACKED_BOUND = 0.3
# (0): longer than the tracker's 0.5 s between checks, so one check surely gets no answer within
# its second; shorter than that second and the 0.1 s retry, so the next one is answered.
UNANSWERED = 0.9
WATCH_BOUND = 5.0     # the target for the watch with TCP keepalive
TICKLED_BOUND = 3.0   # the watch without keepalive after the address left a live vigil
AFTER_MOVE = 4.0      # the clients run on this long after the address moved


def move(nodes, old, action, marks=None):
    """Runs the fault and returns (fault time, time the other node alone held the address).
    `marks`: {name: condition}; each name's value becomes the time its condition first held,
    polled with the address."""
    new = next(n for n in nodes if n is not old)
    pending = dict(marks or {})
    fault_at = time.monotonic()
    action()

    def moved():
        for name, condition in list(pending.items()):
            if condition():
                marks[name] = time.monotonic() - fault_at
                del pending[name]
        return not pending and new.holds_vip() and not old.holds_vip()
    wait_for(moved, 10, interval=0.01, what=f"{new.name} alone holding the address ({sorted(pending)})")
    return new, fault_at, time.monotonic()


@pytest.mark.parametrize("name", ["keepalived.conf", "vigil-keepalived-track.service"])
def test_docs_show_the_deploy_files_as_they_are(name):
    assert (DEPLOY / name).read_text() in (ROOT / "docs/ha.md").read_text()


def unanswered(node, seconds, watch_until):
    """For `seconds`, nothing on `node` connects to vigil's admin API (its SYNs are dropped, as
    under a load that leaves a check unanswered); returns the times (from the start, polled every
    20 ms until `watch_until`) at which `node` did not hold the address alone."""
    lost = []
    start = time.monotonic()
    rule = ["INPUT", "-p", "tcp", "--dport", ADMIN.rsplit(":", 1)[1], "--syn", "-j", "DROP"]
    node.ns.iptables("-I", *rule)
    try:
        while time.monotonic() < start + seconds:
            if not node.holds_vip():
                lost.append(time.monotonic() - start)
            time.sleep(0.02)
    finally:
        node.ns.iptables("-D", *rule)
    while time.monotonic() < start + watch_until:
        if not node.holds_vip():
            lost.append(time.monotonic() - start)
        time.sleep(0.02)
    return lost


def test_keepalived_pair(tmp_path):
    pair = Pair(tmp_path)
    client = None
    watches = {}
    try:
        nodes = pair.nodes
        active = pair.start()
        print(f"\n{active.name} holds the address; vigil health there: {active.health()[1]}")

        # A load balancer created through both nodes' APIs, as Octavia's provider driver does: its
        # address comes to the holder by `vigil health --vips-file` and a keepalived reload.
        created = time.monotonic()
        for n in nodes:
            n.create_api_load_balancer()
        standby = pair.other(active)
        wait_for(lambda: active.holds_vip(API_VIP) and not standby.holds_vip(API_VIP), 10,
                 interval=0.02, what=f"{active.name} alone holding {API_VIP}")
        print(f"load balancer created through the API on both nodes: {active.name} holds {API_VIP} "
              f"after {time.monotonic() - created:.2f}s")
        served = pair.client_ns.call(tls_get_via_vip, 2.0, API_VIP)
        assert served.ok, served
        assert active.holds_vip() and not standby.holds_vip()

        client = Client(pair.client_ns)
        watches = {"keepalive 1s": VipWatch(pair.client_ns, keepalive=True),
                   "no keepalive": VipWatch(pair.client_ns, keepalive=False)}
        client.thread.start()
        for w in watches.values():
            w.thread.start()
        wait_for(lambda: sum(a.ok for a in client.attempts) >= 3 and all(len(w.events) >= 2 for w in watches.values()),
                 15, what="the client and both watches through the VIP")

        results, gaps = [], []

        def watch_gaps(fault_at):
            g = {k: w.longest_silence(fault_at - 1.0, time.monotonic()) for k, w in watches.items()}
            print("    watch gap: " + ", ".join(f"{k} {v:.2f}s" for k, v in g.items()))
            return g

        # (0) one check unanswered: one failed check, the address stays.
        checks_failed = active.log("tracker").count("check failed")
        faults = active.log("keepalived").count("Entering FAULT STATE")
        lost = unanswered(active, UNANSWERED, UNANSWERED + 2.0)
        failed_checks = active.log("tracker").count("check failed") - checks_failed
        print(f"admin API of {active.name} unanswered {UNANSWERED}s: failed checks of the tracker "
              f"{failed_checks}, address lost {len(lost)} times, track file {active.track_value()}")
        assert failed_checks == 1, f"{failed_checks} failed checks, not one\n{active.log('tracker')[-600:]}"
        assert not lost, f"{active.name} lost the address after one failed check, at {lost[:3]}"
        assert active.log("keepalived").count("Entering FAULT STATE") == faults
        assert active.track_value() == "0"

        # (a) vigil killed on the active node: the tracker writes 1, keepalived goes FAULT.
        tracked = {"1": lambda: active.track_value() == "1",
                   API_VIP: lambda: standby.holds_vip(API_VIP) and not active.holds_vip(API_VIP)}
        new, fault_at, moved_at = move(nodes, active, lambda: active.vigil.kill(), tracked)
        killed_at = fault_at
        sleep_until(moved_at + AFTER_MOVE)
        results.append(measure(client, f"kill vigil on {active.name}", fault_at, moved_at, time.monotonic()))
        gaps.append(watch_gaps(fault_at))
        watch_failures = {k: [why for t, why in w.ends if t >= fault_at] for k, w in watches.items()}
        print("    watch failures: " + ", ".join(f"{k} {len(v)} {v[:3]}" for k, v in watch_failures.items()))
        print(f"    track file 1 after {tracked['1']:.3f}s; tracker: "
              + " | ".join(active.log("tracker").strip().splitlines()[-2:]))
        served = pair.client_ns.call(tls_get_via_vip, 2.0, API_VIP)
        print(f"    {API_VIP} moved after {tracked[API_VIP]:.2f}s; served through {new.name}: "
              f"{served.ok} ({served.served_by or served.error})")
        assert served.ok, served

        # Back in service as the standby (nopreempt: the address stays on the new node).
        backups = active.log("keepalived").count("Entering BACKUP STATE")
        active.start_vigil()
        wait_for(lambda: active.log("keepalived").count("Entering BACKUP STATE") > backups, 15,
                 what=f"{active.name} back to BACKUP")
        assert new.holds_vip() and not active.holds_vip()

        # (b) keepalived stopped gracefully on the active node: it sends priority 0 and lets go.
        old = new
        new, fault_at, moved_at = move(nodes, old, lambda: old.keepalived.terminate())
        sleep_until(moved_at + AFTER_MOVE)
        results.append(measure(client, f"stop keepalived on {old.name}", fault_at, moved_at, time.monotonic()))
        gaps.append(watch_gaps(fault_at))
        client.stop.set()
        client.thread.join(10)

        problems = []
        if tracked[API_VIP] > MOVE_BOUND:
            problems.append(f"kill vigil: {API_VIP} moved after {tracked[API_VIP]:.2f}s (bound {MOVE_BOUND}s)")
        if tracked["1"] > TRACKED_BOUND:
            problems.append(f"kill vigil: the track file said 1 after {tracked['1']:.3f}s (bound {TRACKED_BOUND}s)")
        killed_failed = results[0][1]
        if len(killed_failed) > 1:
            problems.append(f"kill vigil: {len(killed_failed)} failed connections, more than one: "
                            + "; ".join(f"{a.start - killed_at:+.2f}s {a.error}" for a in killed_failed[:3]))
        for k, v in watch_failures.items():
            if len(v) > 1:
                problems.append(f"kill vigil: the watch ({k}) failed {len(v)} times, more than once: {v[:3]}")
        for (moved, failed, in_flight, during_move), g, label in zip(results, gaps, ("kill vigil", "stop keepalived")):
            if moved > MOVE_BOUND:
                problems.append(f"{label}: the address moved after {moved:.2f}s (bound {MOVE_BOUND}s)")
            if label != "kill vigil" and len(failed) > len(in_flight) + len(during_move):
                problems.append(f"{label}: {len(failed)} failed connections, more than the "
                                f"{len(in_flight)} in flight and {len(during_move)} started during the move")
            if g["keepalive 1s"] > WATCH_BOUND:
                problems.append(f"{label}: the keepalive watch was silent {g['keepalive 1s']:.2f}s "
                                f"(bound {WATCH_BOUND}s)")
        # vigil's death closes its sessions (the kernel resets them): every watch reconnects.
        if gaps[0]["no keepalive"] > WATCH_BOUND:
            problems.append(f"kill vigil: the watch without keepalive was silent {gaps[0]['no keepalive']:.2f}s")
        # The address left a live vigil: it tickles its clients, the new holder resets them.
        if gaps[1]["no keepalive"] > TICKLED_BOUND:
            problems.append(f"stop keepalived: the watch without keepalive was silent "
                            f"{gaps[1]['no keepalive']:.2f}s (bound {TICKLED_BOUND}s); "
                            f"{old.name}'s vigil log: {old.log('vigil')[-600:]!r}")
        assert not problems, "\n".join(problems)
        assert client.attempts[-1].ok, client.attempts[-1]
    except BaseException:
        pair.print_logs()
        raise
    finally:
        if client is not None:
            client.stop.set()
        for w in watches.values():
            w.interrupt()
        pair.destroy()
