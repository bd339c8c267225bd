"""Where the build's binaries are: $VIGIL_BUILD (default build/dev, relative to the repository
root), or $VIGIL_BIN and $VIGIL_APISIM for one binary each (bench/failover runs a release vigil)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / os.environ.get("VIGIL_BUILD", "build/dev")
VIGIL = Path(os.environ.get("VIGIL_BIN", BUILD / "src/daemon/vigil"))
APISIM = Path(os.environ.get("VIGIL_APISIM", BUILD / "testing/apisim/vigil-apisim"))
