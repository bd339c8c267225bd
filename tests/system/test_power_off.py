"""Power-off: master-01 loses power while clients keep working through vigil.

iptables DROP of 127.0.0.11 in and out inside the test's namespace and the apisim frozen with
SIGSTOP, so nothing answers and no RST comes (connects to it hang; its sessions go silent).
After 20 s the rules go, the frozen process is killed and a new one starts with a 10 s warm-up
(/readyz fails with [-]informer-sync, /api answers 401). vigil runs with the seed's checks
(HTTPS /readyz every 5 s, timeout 2 s, 2 up / 3 down): no client request fails or takes over 5 s,
the watch that was on master-01 is streaming again within 3 s (the hedged connect's silence and a
check without a byte until connect_timeout runs out close master-01's sessions a second after the
connect, not after the check's 2 s timeout), and vigil shows master-01 ERROR with its reason,
then ONLINE once it is ready (never during its warm-up).
"""
from testing.harness.netns import SEED_HEALTH_MONITOR
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_power_off(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "power-off", monitor=SEED_HEALTH_MONITOR)
