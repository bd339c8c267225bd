"""Graceful shutdown: master-01 gets SIGTERM, as in a node drain or an apiserver upgrade.

Started with --shutdown-delay 30s: /readyz fails at once with [-]shutdown while everything else
is still served, then after 30 s it closes its listener and every connection and exits; it is
restarted at once with a 10 s warm-up. No client request fails or takes over 5 s; vigil
takes master-01 out of rotation at the first failing /readyz and shows it DRAINING (with the
[-]shutdown check in its status and log) until it stops answering, while established sessions
(the watch) continue until master-01 closes them; then the watch is back within 3 s, and
master-01 goes ERROR with its reason and ONLINE again once it is ready.
"""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_graceful_shutdown(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "graceful")
