"""Rolling restart: master-01, master-02 and master-03 restarted one after another, as an upgrade
does. Each gets SIGTERM with --shutdown-delay 5s (/readyz fails with [-]shutdown while everything
else is served, then it closes), is restarted with a 3 s warm-up when it exits, and the next one
goes once vigil has it back in rotation. No client request fails (a 401 from a warming-up master
is a failure), kubectl never fails, each draining master keeps its sessions until it closes them
and the watch is back within 5 s each time.
"""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_rolling_restart(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "rolling-restart")
