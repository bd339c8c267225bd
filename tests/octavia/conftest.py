import pytest

# The shared harness (testing.harness) and the driver's sources (integrations/octavia) are on
# sys.path through pytest.ini's pythonpath.


@pytest.fixture
def cleanup():
    """Stops whatever a test registers, even when the test fails."""
    things = []
    yield things.append
    for t in reversed(things):
        t.stop()
