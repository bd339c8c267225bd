"""The container tests' fixtures: a podman of their own (testing/harness/podman.py), the image that
scripts/image.sh builds from $VIGIL_DEB once per session (and keepalived's, of
scripts/keepalived_image.sh, when a test asks for it), and a network namespace per test with
three simulated kube-apiservers in it. Everything is removed at the end, also after a failure.

Needs root, podman, runc, catatonit, mmdebstrap, buildah (scripts/setup.sh --tests), $VIGIL_DEB
(scripts/package.sh; scripts/test.sh passes it) and the dev build's vigil-apisim."""
import dataclasses
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from testing.harness.netns import NetNS
from testing.harness.paths import APISIM, ROOT
from testing.harness.podman import Podman, missing_prerequisites
from testing.harness.vigil_process import read_ready_file
from tests.container.container_harness import DEB, MASTERS


@dataclasses.dataclass
class Image:
    name: str  # localhost/vigil:VERSION
    rootfs: Path  # the tar the image was made from


@pytest.fixture(scope="session")
def podman():
    if why := missing_prerequisites():
        pytest.skip(why)
    if not DEB:
        pytest.skip("needs $VIGIL_DEB, the package of scripts/package.sh (scripts/test.sh passes it)")
    if not APISIM.exists():
        pytest.skip(f"{APISIM} is not built (cmake --build --preset dev)")
    p = Podman(tempfile.mkdtemp(prefix="vigil-podman-"))
    yield p
    p.remove()


@pytest.fixture(scope="session")
def image(podman, tmp_path_factory):
    out = tmp_path_factory.mktemp("image")
    r = subprocess.run(["bash", "scripts/image.sh"], cwd=ROOT, capture_output=True, text=True,
                       env={**podman.env, "VIGIL_DEB": DEB, "VIGIL_IMAGE_OUT": str(out)}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-4000:]
    return Image(name=r.stdout.strip().splitlines()[-1], rootfs=out / "rootfs.tar")


@pytest.fixture(scope="session")
def keepalived_image(podman, tmp_path_factory):
    """scripts/keepalived_image.sh's image, for deploy/kubernetes/kubeadm/keepalived.yaml."""
    out = tmp_path_factory.mktemp("keepalived-image")
    r = subprocess.run(["bash", "scripts/keepalived_image.sh"], cwd=ROOT, capture_output=True, text=True,
                       env={**podman.env, "VIGIL_IMAGE_OUT": str(out)}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-4000:]
    return Image(name=r.stdout.strip().splitlines()[-1], rootfs=out / "rootfs.tar")


@pytest.fixture
def netns():
    ns = NetNS(prefix="vigil-ctr")
    yield ns
    ns.destroy()


@pytest.fixture
def masters(netns, tmp_path):
    """Three vigil-apisim (HTTPS) on MASTERS' addresses, port 6443, inside the namespace."""
    for name, address in MASTERS.items():
        ready = tmp_path / f"{name}.ready"
        proc = netns.spawn([APISIM, "--name", name, "--listen", f"{address}:6443", "--ready-file", ready],
                           tmp_path / f"{name}.log")
        read_ready_file(ready, proc)
    return MASTERS
