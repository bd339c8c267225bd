"""The image scripts/image.sh builds: under 60 MB, labelled with the package's version and the
commit, a non-root user, vigil as its entrypoint with a health check, nothing but vigil and its
libraries in it, and the same root file system when built again."""
import hashlib
import json
import re
import subprocess
import tarfile

from testing.harness.paths import ROOT
from tests.container.container_harness import DEB, UID

MAX_SIZE = 60_000_000


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def test_size_labels_user_and_entrypoint(podman, image):
    info = json.loads(podman.run("image", "inspect", image.name).stdout)[0]
    assert info["Size"] < MAX_SIZE, f"{image.name} is {info['Size']} bytes"
    version = subprocess.run(["dpkg-deb", "-f", DEB, "Version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    labels = info["Labels"]
    assert labels["org.opencontainers.image.version"] == version
    assert labels["org.opencontainers.image.revision"] == commit
    assert labels["org.opencontainers.image.title"] == "vigil"
    assert labels["org.opencontainers.image.source"]
    config = info["Config"]
    assert config["User"] == f"{UID}:{UID}"
    assert config["Entrypoint"] == ["vigil"]
    assert config["Cmd"] == ["serve", "-c", "/etc/vigil/vigil.yaml"]
    assert info["Healthcheck"]["Test"] == ["CMD", "vigil", "health", "--exit-code"]
    tag = re.sub(r"[^A-Za-z0-9_.-]", "-", version)  # as scripts/image.sh spells it
    assert image.name == f"localhost/vigil:{tag}"
    assert set(info["RepoTags"]) == {image.name, "localhost/vigil:latest"}


def test_nothing_but_vigil_and_its_libraries(image):
    with tarfile.open(image.rootfs) as tar:
        names = {m.name.removeprefix("./") for m in tar.getmembers()}
        users = tar.extractfile("./etc/passwd").read().decode()
    assert "usr/bin/vigil" in names
    for absent in ("bin/sh", "usr/bin/sh", "usr/bin/bash", "usr/bin/apt", "var/lib/dpkg",
                   "var/lib/apt", "usr/share/doc", "usr/share/man", "usr/share/locale"):
        assert absent not in names, absent
    assert f"vigil:x:{UID}:{UID}:" in users


def test_the_root_file_system_is_reproducible(podman, image, tmp_path):
    """A second build of the root file system from the same commit and package, byte for byte."""
    r = subprocess.run(["bash", "scripts/image.sh", "--rootfs"], cwd=ROOT, capture_output=True,
                       text=True, env={**podman.env, "VIGIL_DEB": DEB, "VIGIL_IMAGE_OUT": str(tmp_path)},
                       timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    again = tmp_path / "rootfs.tar"
    assert r.stdout.strip().endswith("rootfs.tar")
    assert sha256(again) == sha256(image.rootfs)
