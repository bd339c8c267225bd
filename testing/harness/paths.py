"""Where the build's binaries are: $VIGIL_BUILD (default build/dev, relative to the repository
root), or $VIGIL_BIN and $VIGIL_APISIM for one binary each (bench/failover runs a release vigil)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / os.environ.get("VIGIL_BUILD", "build/dev")
VIGIL = Path(os.environ.get("VIGIL_BIN", BUILD / "src/daemon/vigil"))
APISIM = Path(os.environ.get("VIGIL_APISIM", BUILD / "testing/apisim/vigil-apisim"))


def _sanitized():
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and "VIGIL_SANITIZE:BOOL=ON" in cache.read_text()


# The build runs under AddressSanitizer + UndefinedBehaviorSanitizer (the asan preset). Their
# runtime needs descriptors of its own: UBSan's vptr check, when its cache misses, tests that the
# vtable is readable by writing it to a pipe (sanitizer_common's IsAccessibleMemoryRange, GCC 12),
# so with every descriptor taken it reports "invalid vptr ... memory cannot be printed" for a
# sound object and stops the process. Tests that exhaust vigil's descriptors on purpose run on the
# other builds only (seen 2026-12-05 in test_fd_flood and test_limits, at asio's signal set and
# Beast's read).
SANITIZED = _sanitized()
