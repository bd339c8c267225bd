"""The kubeadm static pod as it ships (deploy/kubernetes/kubeadm/vigil.yaml, with its
etc-vigil/vigil.yaml), played by `podman kube play` in a network namespace of the test's: vigil
serves the VIP's port 6443 in front of three simulated kube-apiservers, the probes' /healthz and
/readyz answer, and the keepalived-track container keeps the track file at 0. Then
`podman kube down` leaves no pod behind."""
import json

from testing.harness.netns import http_get
from testing.harness.paths import ROOT
from testing.harness.wait import wait_for
from tests.container.container_harness import MASTERS, UID, config_dir, members_online, served_by, state_dir

KUBEADM = ROOT / "deploy/kubernetes/kubeadm"
VIP = "127.0.0.10"  # in the test's namespace; `lo` there answers for all of 127/8


def render_config():
    """etc-vigil/vigil.yaml with the namespace's addresses for the documentation ones: the VIP
    192.0.2.10 and the nodes 192.0.2.11-13. Nothing else changes."""
    text = (KUBEADM / "etc-vigil/vigil.yaml").read_text()
    replace = {"192.0.2.10": VIP, **{f"192.0.2.1{i + 1}": a for i, a in enumerate(MASTERS.values())}}
    for documented, here in replace.items():
        assert documented in text, documented
        text = text.replace(documented, here)
    return text


def render_pod(image, etc, state, track):
    """vigil.yaml (the Pod) with the test's image and its directories for the three hostPaths;
    nothing else changes."""
    text = (KUBEADM / "vigil.yaml").read_text()
    replace = {"image: localhost/vigil:latest": f"image: {image}",
               "path: /etc/vigil,": f"path: {etc},",
               "path: /var/lib/vigil,": f"path: {state},",
               "path: /run/vigil-keepalived,": f"path: {track},"}
    for shipped, here in replace.items():
        assert shipped in text, shipped
        text = text.replace(shipped, here)
    return text


def test_the_kubeadm_static_pod(podman, image, netns, masters, tmp_path):
    etc = config_dir(tmp_path, render_config())
    state = state_dir(tmp_path)
    track = tmp_path / "track"
    pod = tmp_path / "vigil-pod.yaml"
    pod.write_text(render_pod(image.name, etc, state, track))
    try:
        podman.run("kube", "play", pod, netns=netns.name, timeout=120)
        wait_for(lambda: members_online(netns, "127.0.0.1:8404", etc), 60,
                 what="every master ONLINE in /v1/status")
        assert served_by(netns, VIP, 6443) == set(MASTERS)
        for path in ("/healthz", "/readyz"):  # the liveness and readiness probes
            assert netns.call(http_get, "127.0.0.1", 8404, path, 2.0, False)[0] == 200, path
        wait_for(lambda: (track / "vigil.track").exists() and
                 (track / "vigil.track").read_text().strip() == "0", 10, what="track file at 0")

        pods = json.loads(podman.run("pod", "inspect", "vigil").stdout)
        pods = pods if isinstance(pods, list) else [pods]
        containers = {c["Name"]: c["State"] for c in pods[0]["Containers"]}
        assert {"vigil-vigil", "vigil-keepalived-track"} <= set(containers), containers
        assert all(s == "running" for s in containers.values()), containers
        assert podman.inspect("{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}", "vigil-vigil") == \
            f"{UID}:{UID} true"
    finally:
        down = podman.run("kube", "down", pod, check=False, timeout=120)
    assert down.returncode == 0, down.stderr
    assert podman.run("pod", "ps", "--quiet").stdout.strip() == ""
