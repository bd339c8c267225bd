"""Read, then reset: master-01 reads what a new connection sends first (the ClientHello) and
resets it, sending nothing back (apisim `POST /sim/fault?mode=read-reset`); connections it
accepted before, vigil's kept check connection among them, are still served, so a check that
reuses its connection keeps passing. After 20 s it is killed and a new one starts with a 10 s
warm-up. No client request fails or takes over 1.5 s, the watch is
streaming again within 3 s, kubectl never fails, and vigil shows master-01 ERROR with its reason
and keeps it out of rotation until a check on a new connection passes, then ONLINE once the
restarted master is ready.
"""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_read_reset(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "read-reset")
