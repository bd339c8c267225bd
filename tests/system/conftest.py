import pytest

from testing.harness.netns import NetNS, missing_prerequisites
from testing.harness.paths import APISIM, VIGIL


@pytest.fixture
def netns():
    """A fresh network namespace (vigil-sys-<random>) with lo up; afterwards every process in it
    is killed and it is deleted, whatever the test did."""
    if (reason := missing_prerequisites()) is not None:
        pytest.skip(reason)
    for binary in (VIGIL, APISIM):
        if not binary.exists():
            pytest.fail(f"{binary} is missing: build first (cmake --build --preset dev)")
    ns = NetNS()
    try:
        yield ns
    finally:
        ns.destroy()
