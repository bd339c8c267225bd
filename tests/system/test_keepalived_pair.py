"""A keepalived pair of vigil nodes (pair_harness.py): the virtual address moves to the standby
(a) when vigil on the active node is killed (its vrrp_script, `vigil health --exit-code`, fails
twice) and (b) when keepalived on the active node stops gracefully, while a client opens a new TLS
connection through the address every 200 ms. The issue's target: the address moves within 2 s;
asserted: within 3 s, and no failed connection but those in flight at the fault or started while
the address moved.
"""
import time
from pathlib import Path

import pytest

from netns_harness import NetNS, missing_prerequisites, sleep_until, wait_for
from pair_harness import CLIENT, KEEPALIVED, NODES, SUBNET_PREFIX, Client, Node, make_switch, measure, plug, \
    stop, wait_holder

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(KEEPALIVED).exists(),
                       reason="keepalived is not installed (scripts/setup.sh --tests)"),
]

MOVE_BOUND = 3.0      # seconds; the target is 2 s
AFTER_MOVE = 2.0      # the client runs on this long after the address moved


def move(nodes, old, action):
    """Runs the fault and returns (fault time, time the other node alone held the address)."""
    new = next(n for n in nodes if n is not old)
    fault_at = time.monotonic()
    action()
    wait_for(lambda: new.holds_vip() and not old.holds_vip(), 10, interval=0.02,
             what=f"{new.name} alone holding the address")
    return new, fault_at, time.monotonic()


def test_keepalived_pair(tmp_path):
    switch = make_switch()
    spaces = [switch]
    nodes, client = [], None
    try:
        for name in NODES:
            nodes.append(Node(name, switch, tmp_path))
            spaces.append(nodes[-1].ns)
        client_ns = NetNS(prefix="vigil-pair-client")
        spaces.append(client_ns)
        plug(switch, client_ns, "sw-client", f"{CLIENT}/{SUBNET_PREFIX}")
        for n in nodes:
            n.start_vigil()
        for n in nodes:
            wait_for(lambda: n.health()[0] == 0, 15, what=f"{n.name}: vigil health ready")
        for n in nodes:
            n.start_keepalived()
        active = wait_holder(nodes, 20, "one node holding the address")
        print(f"\n{active.name} holds the address; vigil health there: {active.health()[1]}")

        client = Client(client_ns)
        client.thread.start()
        wait_for(lambda: sum(a.ok for a in client.attempts) >= 3, 10, what="the client through the VIP")

        results = []
        # (a) vigil killed on the active node: its vrrp_script fails twice, keepalived goes FAULT.
        new, fault_at, moved_at = move(nodes, active, lambda: active.vigil.kill())
        sleep_until(moved_at + AFTER_MOVE)
        results.append(measure(client, f"kill vigil on {active.name}", fault_at, moved_at, time.monotonic()))

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
        client.stop.set()
        client.thread.join(10)

        problems = []
        for (moved, failed, in_flight, during_move), label in zip(results, ("kill vigil", "stop keepalived")):
            if moved > MOVE_BOUND:
                problems.append(f"{label}: the address moved after {moved:.2f}s (bound {MOVE_BOUND}s)")
            if len(failed) > len(in_flight) + len(during_move):
                problems.append(f"{label}: {len(failed)} failed connections, more than the "
                                f"{len(in_flight)} in flight and {len(during_move)} started during the move")
        assert not problems, "\n".join(problems)
        assert client.attempts[-1].ok, client.attempts[-1]
    except BaseException:
        for n in nodes:
            for what in ("keepalived", "vigil"):
                try:
                    print(f"--- {n.name} {what}.log (tail)\n" + "".join(n.log(what).splitlines(True)[-25:]))
                except FileNotFoundError:
                    pass
        raise
    finally:
        if client is not None:
            client.stop.set()
        for n in nodes:
            stop(n.keepalived)
        for ns in reversed(spaces):
            ns.destroy()
