"""A keepalived pair (pair_harness.py) whose active node freezes: every process on it stopped,
no frame in or out of its eth0, as a hung or paused machine. Then it resumes. Run twice: the
frozen node has the higher VRRP priority (on resume it takes the address back) or the lower one
(the new holder keeps it). A client opens a
new TLS connection through the address every 200 ms; two watches stream through it, one with TCP
keepalive (1 s) on its socket and one without. The nodes are peers (`peers:`): each streams its
client sessions to the other.

Asserted: the standby holds the address within MOVE_BOUND; no connection fails but those in
flight at the fault or started before the address moved; the keepalive watch streams again within
WATCH_BOUND; the watch without keepalive streams again within TAKEOVER_BOUND, through the new
holder, which tickled the frozen node's sessions when the address came to it; after the resume exactly one node holds the address, the client's ARP entry names
that node's MAC address within CONVERGE_BOUND, every connection after that succeeds, and the
watch without keepalive (stuck on the frozen node until then) streams again within CONVERGE_BOUND
in both cases: when the resumed node took the address back (VRRP: it has the higher priority) its
session there is valid again; when the other node kept it, the resumed node's keepalived removes
the address, its vigil hears that (netlink), resets its sessions on it and tickles their clients,
and the client's challenge ACK draws a reset from the holder, which has never heard of the session.

Also the real client of a cluster: `kubectl get nodes --watch` through the address, over HTTP/2
with client-go's health check at its defaults (a PING after 30 s without a frame, 15 s for the
answer). Frozen, its node sends nothing, so without the takeover kubectl stays silent until that
PING meets the new holder's reset, about 30 s (measured by hand in docs/ha.md). Asserted: it
prints again within TAKEOVER_BOUND of the freeze (its connection tickled, kubectl started again
as it exits, as a person's would be).
"""
import time
import warnings
from pathlib import Path

import pytest

from testing.harness.netns import find_kubectl, missing_prerequisites, sleep_until
from testing.harness.process import stop
from testing.harness.wait import wait_for
from pair_harness import KEEPALIVED, PRIORITY, Client, kubectl_watch, Pair, VipWatch, client_neighbor, longest_stall, \
    measure

pytestmark = [
    pytest.mark.skipif(missing_prerequisites() is not None, reason=missing_prerequisites() or ""),
    pytest.mark.skipif(not Path(KEEPALIVED).exists(),
                       reason="keepalived is not installed (scripts/setup.sh --tests)"),
]

MOVE_BOUND = 2.0       # seconds: the target for the address
WATCH_BOUND = 5.0      # the target for a client that detects a dead peer itself
# The watch without keepalive, back through the new holder: it knew the frozen node's sessions
# from the peer sync and tickled their clients when the address came to it (docs/ha.md).
TAKEOVER_BOUND = 3.0
CONVERGE_BOUND = 3.0   # after the resume: one holder, the client's ARP entry on it
FROZEN = 6.0           # the node stays frozen this long
AFTER = 4.0            # the clients run on this long after the resume


def make_holder(pair, active, want):
    """Moves the address to `want` (keepalived restarted on the holder; nopreempt keeps it)."""
    if active is want:
        return
    backups = active.log("keepalived").count("Entering BACKUP STATE")
    stop(active.keepalived)
    wait_for(lambda: want.holds_vip() and not active.holds_vip(), 10, what=f"{want.name} holding the address")
    active.start_keepalived()
    wait_for(lambda: active.log("keepalived").count("Entering BACKUP STATE") > backups, 15,
             what=f"{active.name} back to BACKUP")


def peer_lines(node):
    """What the node's vigil logged of its peer sync and takeover."""
    return [line.strip() for line in node.log("vigil").splitlines() if "peer sync" in line][-6:]


@pytest.mark.parametrize("priority", ["higher", "lower"])
def test_keepalived_freeze(tmp_path, priority):
    """`priority`: the frozen node's, against the other's. On resume the node with the higher
    priority keeps the address: the frozen one takes it back, or the new holder keeps it."""
    pair = Pair(tmp_path)
    client = watches = kubectl = None
    try:
        active = pair.start()
        want = max(pair.nodes, key=lambda n: PRIORITY[n.name] * (1 if priority == "higher" else -1))
        make_holder(pair, active, want)
        active, standby = want, pair.other(want)
        print(f"\n{active.name} holds the address; vigil health there: {active.health()[1]}")
        client = Client(pair.client_ns)
        watches = {"keepalive 1s": VipWatch(pair.client_ns, keepalive=True),
                   "no keepalive": VipWatch(pair.client_ns, keepalive=False)}
        if (kubectl_binary := find_kubectl()) is not None:
            kubectl = kubectl_watch(pair.client_ns, kubectl_binary, tmp_path)
        else:
            warnings.warn("kubectl is not installed: the freeze test runs without its kubectl watch")
        client.thread.start()
        for w in watches.values():
            w.thread.start()
        wait_for(lambda: sum(a.ok for a in client.attempts) >= 3 and all(len(w.events) >= 2 for w in watches.values()),
                 15, what="the client and both watches through the VIP")
        if kubectl is not None:
            kubectl.thread.start()
            # The table's header, three nodes listed, three ADDED, then the MODIFIED events.
            wait_for(lambda: len(kubectl.lines) >= 9, 30, what="kubectl get nodes --watch printing events")
            http2 = kubectl.transport_lines()
            print(f"kubectl watch: {http2[0].split('] ')[-1] if http2 else 'no HTTP/2 connection logged'}")
            assert http2, f"kubectl did not speak HTTP/2 (no transport line in {kubectl.log_path})"

        fault_at = time.monotonic()
        active.freeze()
        wait_for(standby.holds_vip, 10, interval=0.02, what=f"{standby.name} holding the address")
        moved_at = time.monotonic()
        sleep_until(fault_at + FROZEN)
        frozen = measure(client, f"freeze {active.name}", fault_at, moved_at, time.monotonic())
        watch_gap = {k: w.longest_silence(fault_at - 1.0, time.monotonic()) for k, w in watches.items()}
        print("    watch gap while frozen: " + ", ".join(f"{k} {v:.2f}s" for k, v in watch_gap.items()))
        print(f"    {standby.name}'s peer sync: " + " | ".join(peer_lines(standby)))
        if kubectl is not None:
            back = kubectl.back_after(fault_at, time.monotonic())
            kubectl_back = back - fault_at if back is not None else float("inf")
            exits = [f"{t - fault_at:+.2f}s exit {code}" for t, code in kubectl.exits if t > fault_at - 1.0]
            print(f"    kubectl watch (HTTP/2) printing again {kubectl_back:.2f}s after the freeze; kubectl "
                  f"{', '.join(exits) or 'did not exit'}")

        resumed_at = time.monotonic()
        active.resume()
        macs = {n.name: n.mac() for n in pair.nodes}

        def converged():
            holders = [n for n in pair.nodes if n.holds_vip()]
            if len(holders) == 1 and client_neighbor(pair.client_ns) == macs[holders[0].name]:
                return holders[0]
            return None
        holder = wait_for(converged, 10, interval=0.02, what="one holder and the client's ARP entry on it")
        converged_at = time.monotonic()
        sleep_until(converged_at + AFTER)
        end = time.monotonic()
        client.stop.set()
        for w in watches.values():
            w.interrupt()
        if kubectl is not None:
            kubectl.interrupt()
        after = [a for a in client.attempts if a.start >= resumed_at and a.end <= end]
        failed_after = [a for a in after if not a.ok]
        stuck_back = watches["no keepalive"].first_event_after(resumed_at)
        print(f"resume {active.name}: {holder.name} holds the address, the client's ARP entry on it after "
              f"{converged_at - resumed_at:.2f}s; connections after the resume {len(after)}, failed "
              f"{len(failed_after)}, longest stall {longest_stall(client, resumed_at, end):.2f}s; watch without "
              f"keepalive streaming again {(stuck_back - resumed_at) if stuck_back else float('nan'):.2f}s "
              f"after the resume")
        for a in failed_after[:3]:
            print(f"    failed at {a.start - resumed_at:+.2f}s after the resume: {a.error}")

        problems = []
        moved, failed, in_flight, during_move = frozen
        if moved > MOVE_BOUND:
            problems.append(f"freeze: the address moved after {moved:.2f}s (bound {MOVE_BOUND}s)")
        if len(failed) > len(in_flight) + len(during_move):
            problems.append(f"freeze: {len(failed)} failed connections, more than the {len(in_flight)} in "
                            f"flight and {len(during_move)} started during the move")
        if watch_gap["no keepalive"] > TAKEOVER_BOUND:
            problems.append(f"freeze: the watch without keepalive was silent {watch_gap['no keepalive']:.2f}s "
                            f"(bound {TAKEOVER_BOUND}s): {standby.name} did not take its session over; "
                            f"its peer sync said: {peer_lines(standby)!r}")
        if kubectl is not None and kubectl_back > TAKEOVER_BOUND:
            problems.append(f"freeze: kubectl get nodes --watch (HTTP/2) printed nothing for {kubectl_back:.2f}s "
                            f"after the freeze (bound {TAKEOVER_BOUND}s): {standby.name} did not take its "
                            f"session over; its exits: {kubectl.exits!r}; its transport: "
                            f"{kubectl.transport_lines()[-3:]!r}")
        if watch_gap["keepalive 1s"] > WATCH_BOUND:
            problems.append(f"freeze: the keepalive watch was silent {watch_gap['keepalive 1s']:.2f}s "
                            f"(bound {WATCH_BOUND}s)")
        if converged_at - resumed_at > CONVERGE_BOUND:
            problems.append(f"resume: one holder and the client's ARP entry on it after "
                            f"{converged_at - resumed_at:.2f}s (bound {CONVERGE_BOUND}s)")
        if [a for a in failed_after if a.start >= converged_at]:
            problems.append("resume: connections failed after the client's ARP entry was on the holder")
        # The watch without keepalive: when the resumed node took the address back, its session
        # there is valid again and streams at once. When the other node kept it, the resumed
        # node's vigil tickles it, and the holder's reset makes it reconnect there.
        if stuck_back is None or stuck_back - resumed_at > CONVERGE_BOUND:
            how = "took the address back" if holder is active else "gave the address up"
            problems.append("resume: the watch without keepalive did not stream again within "
                            f"{CONVERGE_BOUND}s after {active.name} {how}; {active.name}'s vigil log: "
                            f"{active.log('vigil')[-600:]!r}")
        assert not problems, "\n".join(problems)
    except BaseException:
        pair.print_logs()
        raise
    finally:
        if client is not None:
            client.stop.set()
        for w in (watches or {}).values():
            w.interrupt()
        if kubectl is not None:
            kubectl.interrupt()
        pair.destroy()
