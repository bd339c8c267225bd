import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# The integration tests' harness (vigil, apisim, the openstack CLI) and the driver's sources.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests/integration"))
sys.path.insert(0, str(HERE.parents[1] / "integrations/octavia"))


@pytest.fixture
def cleanup():
    """Stops whatever a test registers, even when the test fails."""
    things = []
    yield things.append
    for t in reversed(things):
        t.stop()
