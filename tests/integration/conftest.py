import pytest

from testing.harness.paths import APISIM, VIGIL


def pytest_sessionstart(session):
    for binary in (VIGIL, APISIM):
        if not binary.exists():
            raise pytest.UsageError(f"{binary} is missing: build first (bash scripts/build.sh)")

