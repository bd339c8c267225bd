"""Hang: master-01's process is stopped (SIGSTOP) while its kernel still accepts connections
and ACKs what clients send: connects succeed, nothing ever answers. No iptables. After 20 s it is
killed and a new one starts with a 10 s warm-up. vigil runs with the seed's checks (HTTPS /readyz
every 5 s, timeout 2 s, 2 up / 3 down): no client request fails or takes over 1.5 s (a first
flight left unanswered for first_byte_timeout, 1 s, goes to another master), the watch pinned to
master-01 is streaming again within 3 s (the check started when a first flight had waited a tenth
of first_byte_timeout has had no byte either when that flight times out, so vigil closes the
silent member's sessions then, not after the check's own 2 s timeout), kubectl never fails, and
vigil shows master-01 ERROR with its reason, then ONLINE once it is ready.
"""
from testing.harness.netns import SEED_HEALTH_MONITOR
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_hang(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "hang", monitor=SEED_HEALTH_MONITOR)
