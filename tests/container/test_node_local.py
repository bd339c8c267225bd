"""vigil on every node (deploy/kubernetes/node-local): the shipped static pod, and the shipped
DaemonSet's pod, played by `podman kube play` in a network namespace of the test's, in front of
three simulated kube-apiservers whose certificate a CA of the test's signed. A client that verifies
it as `kubernetes` (the tls-server-name the nodes' kubeconfigs use) reaches all three through
https://127.0.0.1:7445 and [::1]:7445; vigil follows the API's EndpointSlices, read with its
kubeconfig through itself; a master added there becomes a member; vigil killed inside the pod is
restarted by the pod's restartPolicy, and a watch with no TCP keepalive and the real
`kubectl get nodes --watch` (HTTP/2, client-go's defaults) both stream again within 3 s.

podman 4.3's `kube play` knows Pod, Deployment, PersistentVolumeClaim and ConfigMap, and says "Kube
kind DaemonSet not supported" (checked below, so that a podman that learns it is noticed). So the
DaemonSet's pod is made from the shipped file as the DaemonSet controller makes a node's: a Pod
whose metadata and spec are the DaemonSet's `spec.template` (daemonset_pod() below)."""
import json
import os
import signal
import socket
import ssl
import threading
import time
import types
import urllib.request
import warnings

import pytest
import yaml

from testing.harness.kubectl_watch import KubectlWatch
from testing.harness.netns import WatchClient, find_kubectl, http_get, http_post
from testing.harness.paths import APISIM, ROOT
from testing.harness.pki import make_ca, make_cert, write_node_kubeconfig
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for
from tests.container.container_harness import UID, config_dir
from tests.container.test_kube_play import render

SHIPPED = ROOT / "deploy/kubernetes/node-local"
PORT = 6443
MASTERS = {"master-01": "127.0.0.11", "master-02": "127.0.0.12", "master-03": "127.0.0.13"}
ADDED = ("master-04", "127.0.0.14")  # listed in the EndpointSlices only later
ADMIN = ("127.0.0.1", 7446)
RESTART_BOUND = 3.0  # seconds from vigil's death to a client served again, and both watches streaming
MASTERS_PIN = "master-01"  # any master: vigil's death ends every session


def endpoints(*addresses):
    return ",".join(f"{a}:{PORT}" for a in addresses)


def get_through(host, ca, timeout=2.0):
    """One GET /version over a new connection to host:7445 whose certificate is verified against
    `ca` for the name `kubernetes`: the master that answered (from a thread inside the namespace)."""
    ctx = ssl.create_default_context(cafile=str(ca))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as raw:
        raw.settimeout(timeout)
        raw.connect((host, 7445))
        with ctx.wrap_socket(raw, server_hostname="kubernetes") as s:
            s.sendall(b"GET /version HTTP/1.1\r\nHost: kubernetes\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
    assert head[0].split()[1] == "200", head
    return next(line.split(":", 1)[1].strip() for line in head if line.lower().startswith("x-served-by:"))


def served_by(netns, host, ca, want, requests=40):
    seen = set()
    for _ in range(requests):
        seen.add(netns.call(get_through, host, ca))
        if seen >= want:
            break
    return seen


def pool(netns, etc):
    """The pool `masters` of GET /v1/status with the admin token (None while vigil does not answer)."""
    token = (etc / "token").read_text().strip()

    def get():
        req = urllib.request.Request(f"http://{ADMIN[0]}:{ADMIN[1]}/v1/status",
                                     headers={"X-Auth-Token": token})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req, timeout=2) as r:
            return json.loads(r.read())
    try:
        return next(p for p in netns.call(get)["pools"] if p["name"] == "masters")
    except OSError:
        return None


def online(netns, etc, names):
    """Whether the pool's members include `names`, all of them ONLINE."""
    p = pool(netns, etc)
    states = {m["name"]: m["operating_status"] for m in p["members"]} if p else {}
    return all(states.get(n) == "ONLINE" for n in names) and states


def dead(pid):
    """Whether the process is gone or a zombie: its sockets are closed."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def served_again(netns, ca):
    try:
        return netns.call(get_through, "127.0.0.1", ca, 0.5)
    except (OSError, AssertionError):
        return None


@pytest.fixture
def node_podman(podman, image):
    """The session's podman, which has the image: its containers restart by their policy
    (testing/harness/podman.py keeps the database where conmon's exit command finds it)."""
    return podman


@pytest.fixture
def cluster(netns, tmp_path):
    """Four masters (the fourth listed later) with a certificate for `kubernetes` and their
    addresses, each serving EndpointSlices that list the first three; the CA's path."""
    pki = tmp_path / "pki"
    pki.mkdir()
    ca = make_ca(pki, "cluster-ca")
    cert, key = make_cert(pki, ca, "apiserver", "DNS:kubernetes,IP:127.0.0.11,IP:127.0.0.12,"
                          "IP:127.0.0.13,IP:127.0.0.14")
    for name, address in [*MASTERS.items(), ADDED]:
        ready = tmp_path / f"{name}.ready"
        proc = netns.spawn([APISIM, "--name", name, "--listen", f"{address}:{PORT}", "--ready-file", ready,
                            "--cert", cert, "--key", key, "--endpoints", endpoints(*MASTERS.values())],
                           tmp_path / f"{name}.log")
        read_ready_file(ready, proc)
    return ca


def etc_vigil(tmp_path, ca):
    """/etc/vigil: the shipped preset with the namespace's addresses in place of its examples
    (masters 10.0.0.11-13 -> 127.0.0.11-13, the VIP 10.0.0.10 -> 127.0.0.10, where nothing
    listens: a backup member that stays down), the token, and a kubeconfig that reads the API
    through vigil itself, as the docs' static pod does."""
    addresses = {f"address: 10.0.0.{o}," for o in (10, 11, 12, 13)}
    etc = config_dir(tmp_path, render(SHIPPED / "vigil.yaml",
                                      {a: a.replace("10.0.0.", "127.0.0.") for a in addresses}))
    write_node_kubeconfig(etc, ca)
    return etc


def daemonset_pod(text):
    """The Pod a DaemonSet's controller makes for a node from the DaemonSet in `text` (a manifest
    of several documents): its template's metadata and spec, named as the DaemonSet."""
    daemonset = next(d for d in yaml.safe_load_all(text) if d and d["kind"] == "DaemonSet")
    template = daemonset["spec"]["template"]
    metadata = {**template["metadata"], "name": daemonset["metadata"]["name"],
                "namespace": daemonset["metadata"]["namespace"]}
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})


class Watches:
    """A watch with no TCP keepalive and kubectl's over HTTP/2, both through the node's vigil."""

    def __init__(self, netns, workdir):
        self.stop = threading.Event()
        self.plain = WatchClient(netns, types.SimpleNamespace(port=7445), self.stop, pin=MASTERS_PIN)
        self.plain.start("node-watch")
        kubectl = find_kubectl()
        self.kubectl = kubectl and KubectlWatch(netns, kubectl, workdir, "https://127.0.0.1:7445", stop=self.stop)
        if self.kubectl:
            self.kubectl.start()

    def all(self):
        return [w for w in (self.plain, self.kubectl) if w]

    def streaming(self):
        return all(w.streams and w.streams[-1].events >= 2 for w in self.all())

    def back_after(self, t):
        """{watch: seconds from `t` to the first event of a stream opened after it} (None: not yet)."""
        out = {}
        for w in self.all():
            first = [s.first_event for s in w.streams if s.opened > t and s.first_event]
            out[type(w).__name__] = (first[0] - t) if first else None
        return out

    def close(self):
        self.stop.set()
        for w in self.all():
            w.interrupt()
            w.join(30)


@pytest.mark.parametrize("manifest", ["static-pod.yaml", "daemonset.yaml"])
def test_the_pod_on_a_node(node_podman, image, netns, cluster, tmp_path, manifest):
    podman = node_podman
    ca = cluster
    etc = etc_vigil(tmp_path, ca)
    loopback6 = netns.run(["ip", "-6", "addr", "show", "dev", "lo"]).stdout
    assert "::1/128" in loopback6, loopback6  # the preset's second listener needs it
    # The Pod as shipped: only the test's image and its /etc/vigil for the hostPath change.
    text = render(SHIPPED / manifest, {
        "image: localhost/vigil:latest": f"image: {image.name}", "path: /etc/vigil,": f"path: {etc},"})
    pod = tmp_path / "pod.yaml"
    pod.write_text(daemonset_pod(text) if manifest == "daemonset.yaml" else text)
    watches = None
    try:
        podman.run("kube", "play", pod, netns=netns.name, timeout=120)
        wait_for(lambda: online(netns, etc, MASTERS), 60, what="the three masters ONLINE")
        for host in ("127.0.0.1", "::1"):
            assert served_by(netns, host, ca, set(MASTERS)) == set(MASTERS), host
        for path in ("/healthz", "/readyz"):  # the probes
            assert netns.call(http_get, *ADMIN, path, 2.0, False)[0] == 200, path
        p = wait_for(lambda: (p := pool(netns, etc)) and p["members_from"]["state"] == "following" and p,
                     30, what="members_from following")
        assert p["members_from"]["server"].startswith("https://127.0.0.1:7445"), p["members_from"]

        # A master added to the API's list: a member, checked, and served.
        for address in [*MASTERS.values(), ADDED[1]]:
            path = f"/sim/endpoints?set={endpoints(*MASTERS.values(), ADDED[1])}"
            assert netns.call(http_post, address, PORT, path) == 200
        added = f"{ADDED[1]}:{PORT}"
        wait_for(lambda: online(netns, etc, [*MASTERS, added]), 30, what=f"{added} ONLINE")
        assert ADDED[0] in served_by(netns, "127.0.0.1", ca, {ADDED[0]}, requests=60)

        # vigil dies inside the pod: restartPolicy Always brings it back, and clients with it.
        watches = Watches(netns, tmp_path)
        wait_for(watches.streaming, 60, what="both watches streaming through vigil")
        before = podman.inspect("{{.State.Pid}} {{.RestartCount}}", "vigil-vigil").split()
        os.kill(int(before[0]), signal.SIGKILL)
        died = time.monotonic()
        wait_for(lambda: dead(int(before[0])), 2, interval=0.01, what="the killed vigil gone")
        wait_for(lambda: served_again(netns, ca), 10, interval=0.02, what="a client served again")
        back = time.monotonic() - died
        wait_for(lambda: None not in watches.back_after(died).values(), 10, what="both watches streaming again")
        streams = watches.back_after(died)
        after = podman.inspect("{{.State.Pid}} {{.RestartCount}}", "vigil-vigil").split()
        assert after[0] != before[0] and int(after[1]) == int(before[1]) + 1, (before, after)
        print(f"vigil killed: a new connection was served again after {back:.2f} s, the watches streamed "
              f"again after " + ", ".join(f"{k} {v:.2f} s" for k, v in streams.items()))
        assert back < RESTART_BOUND, back
        assert all(v < RESTART_BOUND for v in streams.values()), streams
        if watches.kubectl is None:
            warnings.warn("kubectl is not installed: the HTTP/2 watch was not run")
        assert podman.inspect("{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}", "vigil-vigil") == \
            f"{UID}:{UID} true"
    finally:
        if watches:
            watches.close()
        down = podman.run("kube", "down", pod, check=False, timeout=120)
    assert down.returncode == 0, down.stderr
    assert podman.run("pod", "ps", "--quiet").stdout.strip() == ""


def test_podman_here_cannot_play_the_daemonset(podman):
    played = podman.run("kube", "play", SHIPPED / "daemonset.yaml", check=False)
    try:
        assert played.returncode != 0 and "supported kube kind" in played.stderr, (
            "podman now plays DaemonSets: test daemonset.yaml as the static pod is tested\n"
            + played.stdout + played.stderr)
    finally:
        podman.run("kube", "down", SHIPPED / "daemonset.yaml", check=False, timeout=120)
