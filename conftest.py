"""Fixtures every pytest suite here shares (tests/integration and tests/octavia use `cleanup`).
The shared helpers themselves are the package testing/harness; pytest.ini puts the root on the
import path."""
import pytest


@pytest.fixture
def cleanup():
    """Stops whatever a test registers, even when the test fails."""
    things = []
    yield things.append
    for t in reversed(things):
        t.stop()
