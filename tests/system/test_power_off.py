"""Scenario: power-off. See netns_harness.Experiment.power_off and issue 3."""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_power_off(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "power-off")
