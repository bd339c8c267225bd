"""The static pods as they ship (deploy/kubernetes/<flavour>/vigil.yaml, with its
etc-vigil/vigil.yaml), played by `podman kube play` in a network namespace of the test's: vigil
serves the API's address in front of three simulated kube-apiservers, the probes' /healthz and
/readyz answer, and (kubeadm) the keepalived-track container keeps the track file at 0. Then
`podman kube down` leaves no pod behind."""
import dataclasses
import json

import pytest

from testing.harness.netns import http_get
from testing.harness.paths import ROOT
from testing.harness.wait import wait_for
from tests.container.container_harness import MASTERS, UID, config_dir, members_online, served_by, state_dir


@dataclasses.dataclass
class Flavour:
    name: str
    addresses: dict  # the config's documentation addresses -> the namespace's (lo: all of 127/8)
    listener: tuple  # where clients connect, in the namespace
    admin: str  # where the probes ask
    containers: set


FLAVOURS = [
    Flavour("kubeadm", {"192.0.2.10": "127.0.0.10", "192.0.2.11": MASTERS["master-01"],
                        "192.0.2.12": MASTERS["master-02"], "192.0.2.13": MASTERS["master-03"]},
            ("127.0.0.10", 6443), "127.0.0.1:8404", {"vigil-vigil", "vigil-keepalived-track"}),
    Flavour("openshift", {"192.0.2.21": MASTERS["master-01"], "192.0.2.22": MASTERS["master-02"],
                          "192.0.2.23": MASTERS["master-03"]},
            ("127.0.0.1", 9445), "127.0.0.1:9444", {"vigil-vigil"}),
]


def render(path, replace):
    """The shipped file with only `replace`'s strings replaced, each of which must be in it."""
    text = path.read_text()
    for shipped, here in replace.items():
        assert shipped in text, f"{path}: {shipped}"
        text = text.replace(shipped, here)
    return text


@pytest.mark.parametrize("flavour", FLAVOURS, ids=lambda f: f.name)
def test_the_static_pod(podman, image, netns, masters, tmp_path, flavour):
    shipped = ROOT / "deploy/kubernetes" / flavour.name
    etc = config_dir(tmp_path, render(shipped / "etc-vigil/vigil.yaml", flavour.addresses))
    state = state_dir(tmp_path)
    track = tmp_path / "track"
    # The Pod: the test's image and its directories for the hostPaths; nothing else changes.
    replace = {"image: localhost/vigil:latest": f"image: {image.name}",
               "path: /etc/vigil,": f"path: {etc},", "path: /var/lib/vigil,": f"path: {state},"}
    if "vigil-keepalived-track" in flavour.containers:
        replace["path: /run/vigil-keepalived,"] = f"path: {track},"
    pod = tmp_path / "vigil-pod.yaml"
    pod.write_text(render(shipped / "vigil.yaml", replace))
    try:
        podman.run("kube", "play", pod, netns=netns.name, timeout=120)
        wait_for(lambda: members_online(netns, flavour.admin, etc), 60,
                 what="every master ONLINE in /v1/status")
        assert served_by(netns, *flavour.listener) == set(MASTERS)
        host, port = flavour.admin.split(":")
        for path in ("/healthz", "/readyz"):  # the liveness and readiness probes
            assert netns.call(http_get, host, int(port), path, 2.0, False)[0] == 200, path
        if "vigil-keepalived-track" in flavour.containers:
            wait_for(lambda: (track / "vigil.track").exists() and
                     (track / "vigil.track").read_text().strip() == "0", 10, what="track file at 0")

        pods = json.loads(podman.run("pod", "inspect", "vigil").stdout)
        pods = pods if isinstance(pods, list) else [pods]
        containers = {c["Name"]: c["State"] for c in pods[0]["Containers"]}
        assert flavour.containers <= set(containers), containers
        assert all(s == "running" for s in containers.values()), containers
        assert podman.inspect("{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}", "vigil-vigil") == \
            f"{UID}:{UID} true"
    finally:
        down = podman.run("kube", "down", pod, check=False, timeout=120)
    assert down.returncode == 0, down.stderr
    assert podman.run("pod", "ps", "--quiet").stdout.strip() == ""
