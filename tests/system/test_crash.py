"""Crash: master-01 is killed with SIGKILL (connects are refused, its sessions get a FIN/RST) and
restarted 10 s later with a 10 s warm-up. No client request fails or takes over 5 s, the watch is
back within 3 s, and vigil shows master-01 ERROR with its reason, then ONLINE once it is ready
(never during its warm-up: a warming-up apiserver answers 401).
"""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_crash(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "crash")
