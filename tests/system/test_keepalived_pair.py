"""A keepalived pair of vigil nodes (pair_harness.py): the virtual address moves to the standby
(a) when vigil on the active node is killed (its vrrp_script, `vigil health --exit-code`, fails
twice) and (b) when keepalived on the active node stops gracefully, while a client opens a new TLS
connection through the address every 200 ms and two watches stream through it (one with TCP
keepalive on its socket, one without). The target: the address moves within 2 s;
asserted: within 3 s (the vrrp_script's fall 2 costs a second), no failed connection but those in
flight at the fault or started while the address moved, and the keepalive watch streaming again
within 5 s. The watch without keepalive must come back after (a) (vigil's death resets its
sessions) and, within 3 s of the fault, after (b): the node that gave the address away still
runs vigil, which hears the address go (netlink), resets its sessions on it and tickles each
client from the address (a bare ACK, numbers 0); the client's challenge ACK reaches the new
holder, whose reset ends the stuck session at once (docs/ha.md, "What a client sees").
"""
import time
from pathlib import Path

import pytest

from netns_harness import missing_prerequisites, sleep_until, wait_for
from netns_harness import ROOT
from pair_harness import KEEPALIVED, Client, Pair, VipWatch, documented_keepalived_conf, measure

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(KEEPALIVED).exists(),
                       reason="keepalived is not installed (scripts/setup.sh --tests)"),
]

MOVE_BOUND = 3.0      # seconds; the target is 2 s
WATCH_BOUND = 5.0     # the target for the watch with TCP keepalive
TICKLED_BOUND = 3.0   # the watch without keepalive after the address left a live vigil
AFTER_MOVE = 4.0      # the clients run on this long after the address moved


def move(nodes, old, action):
    """Runs the fault and returns (fault time, time the other node alone held the address)."""
    new = next(n for n in nodes if n is not old)
    fault_at = time.monotonic()
    action()
    wait_for(lambda: new.holds_vip() and not old.holds_vip(), 10, interval=0.02,
             what=f"{new.name} alone holding the address")
    return new, fault_at, time.monotonic()


def test_docs_show_the_keepalived_conf_the_test_runs():
    assert documented_keepalived_conf() in (ROOT / "docs/ha.md").read_text()
    assert documented_keepalived_conf() in (ROOT / "deploy/keepalived/keepalived.conf").read_text()


def test_keepalived_pair(tmp_path):
    pair = Pair(tmp_path)
    client = None
    watches = {}
    try:
        nodes = pair.nodes
        active = pair.start()
        print(f"\n{active.name} holds the address; vigil health there: {active.health()[1]}")

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

        # (a) vigil killed on the active node: its vrrp_script fails twice, keepalived goes FAULT.
        new, fault_at, moved_at = move(nodes, active, lambda: active.vigil.kill())
        sleep_until(moved_at + AFTER_MOVE)
        results.append(measure(client, f"kill vigil on {active.name}", fault_at, moved_at, time.monotonic()))
        gaps.append(watch_gaps(fault_at))

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
        for (moved, failed, in_flight, during_move), g, label in zip(results, gaps, ("kill vigil", "stop keepalived")):
            if moved > MOVE_BOUND:
                problems.append(f"{label}: the address moved after {moved:.2f}s (bound {MOVE_BOUND}s)")
            if len(failed) > len(in_flight) + len(during_move):
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
