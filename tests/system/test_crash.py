"""Scenario: crash. See netns_harness.Experiment.crash and issue 3."""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_crash(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "crash")
