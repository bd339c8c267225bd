"""The kubeadm pair as it ships: two nodes, each with the static pods
deploy/kubernetes/kubeadm/vigil.yaml and keepalived.yaml (with keepalived.conf) played by podman,
hold the VIP between them. Stopping the vigil container of the node that holds it makes the pod's
keepalived-track container write 1, and keepalived moves the address to the other node, through
which a client is served again.

The pods are the shipped manifests with only the images (scripts/image.sh's and
scripts/keepalived_image.sh's), the hostPaths, the pods' names (one podman holds both nodes) and
keepalived.conf's placeholders replaced. The network is tests/system/pair_harness.py's: a bridge
in a switch namespace, the nodes at 10.99.0.11 and .12, the VIP 10.99.0.100, a client at .50;
each node has its own three simulated API servers on its loopback. A second test looks at the
keepalived image itself: its size, its tag (the one the manifest names), and nothing in it but
keepalived and its libraries."""
import http.client
import json
import subprocess
import tarfile

import pytest

from testing.harness.netns import NetNS, insecure_tls
from testing.harness.paths import APISIM, ROOT
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for
from tests.container.container_harness import MASTERS, config_dir, state_dir

KUBEADM = ROOT / "deploy/kubernetes/kubeadm"
VIP = "10.99.0.100"
NODES = {"lb-a": "10.99.0.11", "lb-b": "10.99.0.12"}
PRIORITY = {"lb-a": "100", "lb-b": "90"}
CLIENT = "10.99.0.50"
KEEPALIVED_MAX_SIZE = 40_000_000  # 27.8 MB on 2026-12-05 (docs/kubernetes.md)
MOVE_BOUND = 5.0  # seconds from the stop to the VIP on the other node (docs/ha.md: 0.3-0.4 s)


def render(path, replace):
    """The shipped file with only `replace`'s strings replaced, each of which must be in it."""
    text = path.read_text()
    for shipped, here in replace.items():
        assert shipped in text, f"{path}: {shipped!r}"
        text = text.replace(shipped, here)
    return text


def veth(switch, ns, address):
    port = f"sw-{ns.name[-8:]}"
    switch.run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns.name])
    switch.run(["ip", "link", "set", port, "master", "br0"])
    switch.run(["ip", "link", "set", port, "up"])
    ns.run(["ip", "addr", "add", f"{address}/24", "dev", "eth0"])
    ns.run(["ip", "link", "set", "eth0", "up"])


def holds_vip(ns):
    r = subprocess.run(["ip", "-n", ns.name, "-4", "-o", "addr", "show", "dev", "eth0"],
                       capture_output=True, text=True, timeout=5)
    return f" {VIP}/" in r.stdout


def served_by_via_vip():
    """The X-Served-By of one new TLS connection through the VIP, or None (from the client)."""
    conn = http.client.HTTPSConnection(VIP, 6443, timeout=2, context=insecure_tls())
    try:
        conn.request("GET", "/version")
        r = conn.getresponse()
        r.read()
        return r.getheader("X-Served-By") if r.status == 200 else None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


class Node:
    def __init__(self, name, switch, podman, image, keepalived_image, tmp_path):
        self.name, self.podman = name, podman
        self.dir = tmp_path / name
        self.dir.mkdir()
        self.ns = NetNS(prefix=f"vigil-cpair-{name}")
        self.pods = []
        veth(switch, self.ns, NODES[name])
        for master, address in MASTERS.items():  # named after the node: X-Served-By says which
            ready = self.dir / f"{master}.ready"
            proc = self.ns.spawn([APISIM, "--name", f"{name}-{master}", "--listen", f"{address}:6443",
                                  "--ready-file", ready], self.dir / f"{master}.log")
            read_ready_file(ready, proc)
        # etc-vigil/vigil.yaml: the test's VIP and the node's own masters for the documentation ones.
        etc = config_dir(self.dir, render(KUBEADM / "etc-vigil/vigil.yaml", {
            "192.0.2.10": VIP, "192.0.2.11": MASTERS["master-01"],
            "192.0.2.12": MASTERS["master-02"], "192.0.2.13": MASTERS["master-03"]}))
        self.track = self.dir / "track"
        # The Pod: the test's image, the node's directories, and a name per node (one podman holds
        # both nodes' pods).
        self.play("vigil", {
            "image: localhost/vigil:latest": f"image: {image.name}",
            "path: /etc/vigil,": f"path: {etc},", "path: /var/lib/vigil,": f"path: {state_dir(self.dir)},",
            "path: /run/vigil-keepalived,": f"path: {self.track},"})
        wait_for(lambda: self.track_value() == "0", 60, what=f"{name}: track file at 0")
        # keepalived.conf for a pair: this node's values, the other node the only peer. The track
        # file's path is the pod's, as shipped.
        peer = next(a for n, a in NODES.items() if n != name)
        conf = self.dir / "keepalived.conf"
        conf.write_text(render(KUBEADM / "keepalived.conf", {
            "router_id NODE_NAME": f"router_id {name}", "interface IFACE": "interface eth0",
            "VIP/PREFIX dev IFACE": f"{VIP}/24 dev eth0", "unicast_src_ip SELF": f"unicast_src_ip {NODES[name]}",
            "    PEER_1\n    PEER_2\n": f"    {peer}\n", "priority 100": f"priority {PRIORITY[name]}"}))
        # podman 4.3's kube play makes an emptyDir a named volume, one for every pod whose volume
        # has that name (a kubelet gives each pod its own): the two nodes' keepalived would share
        # /run and its pid files, and the second would find the first "already running".
        self.play("keepalived", {
            "image: localhost/vigil-keepalived:2.2.7": f"image: {keepalived_image.name}",
            "path: /etc/keepalived/keepalived.conf,": f"path: {conf},",
            "path: /run/vigil-keepalived,": f"path: {self.track},",
            "{name: run, mountPath": f"{{name: run-{name}, mountPath", "- name: run ": f"- name: run-{name} "})

    def play(self, pod, replace):
        """`podman kube play` of the shipped pod in the node's namespace, named after the node."""
        path = self.dir / f"{pod}-pod.yaml"
        path.write_text(render(KUBEADM / f"{pod}.yaml", {f"  name: {pod}\n": f"  name: {pod}-{self.name}\n",
                                                          **replace}))
        self.pods.append(path)
        self.podman.run("kube", "play", path, netns=self.ns.name, timeout=120)

    def keepalived_log(self):
        r = self.podman.run("logs", f"keepalived-{self.name}-keepalived", check=False)
        return f"--- {self.name}: keepalived\n" + (r.stdout + r.stderr)[-3000:]

    def track_value(self):
        try:
            return (self.track / "vigil.track").read_text().strip()
        except FileNotFoundError:
            return None

    def destroy(self):
        for pod in reversed(self.pods):
            self.podman.run("kube", "down", pod, check=False, timeout=120)
        self.ns.destroy()


@pytest.fixture
def pair(podman, image, keepalived_image, tmp_path):
    switch = NetNS(prefix="vigil-cpair-sw")
    nodes, client = {}, None
    try:
        switch.run(["ip", "link", "add", "br0", "type", "bridge"])
        switch.run(["ip", "link", "set", "br0", "up"])
        client = NetNS(prefix="vigil-cpair-cl")
        veth(switch, client, CLIENT)
        for name in NODES:
            nodes[name] = Node(name, switch, podman, image, keepalived_image, tmp_path)
        yield nodes, client
    finally:
        for node in nodes.values():
            node.destroy()
        if client is not None:
            client.destroy()
        switch.destroy()


def test_the_vip_leaves_a_node_whose_vigil_stops(podman, pair):
    nodes, client = pair
    try:
        vip_moves(podman, nodes, client)
    except AssertionError as e:  # what the keepalived pods said, which the pods' removal loses
        raise AssertionError("\n".join([str(e), *(n.keepalived_log() for n in nodes.values())])) from None


def vip_moves(podman, nodes, client):
    holders = wait_for(lambda: len(h := [n for n in nodes.values() if holds_vip(n.ns)]) == 1 and h, 20,
                       what="one node holding the VIP")
    holder = holders[0]
    other = next(n for n in nodes.values() if n is not holder)
    served = client.call(lambda: wait_for(served_by_via_vip, 10, what="an answer through the VIP"))
    assert served.startswith(f"{holder.name}-"), served

    podman.run("stop", "--time", "2", f"vigil-{holder.name}-vigil", timeout=30)
    wait_for(lambda: holder.track_value() == "1", MOVE_BOUND, what=f"{holder.name}: track file at 1")
    wait_for(lambda: holds_vip(other.ns) and not holds_vip(holder.ns), MOVE_BOUND,
             what=f"the VIP on {other.name}")
    served = client.call(lambda: wait_for(served_by_via_vip, 10, what="an answer through the VIP"))
    assert served.startswith(f"{other.name}-"), served

def test_the_keepalived_image_is_keepalived_and_its_libraries(podman, keepalived_image):
    info = json.loads(podman.run("image", "inspect", keepalived_image.name).stdout)[0]
    assert info["Size"] < KEEPALIVED_MAX_SIZE, f"{keepalived_image.name} is {info['Size']} bytes"
    labels = info["Labels"]
    assert labels["org.opencontainers.image.title"] == "vigil-keepalived"
    upstream = labels["org.opencontainers.image.version"].split(":")[-1].rsplit("-", 1)[0]
    assert keepalived_image.name == f"localhost/vigil-keepalived:{upstream}"
    # The manifest names the image this script builds today.
    assert f"image: {keepalived_image.name} " in (KUBEADM / "keepalived.yaml").read_text()
    with tarfile.open(keepalived_image.rootfs) as tar:
        names = {m.name.removeprefix("./") for m in tar.getmembers()}
    assert "usr/sbin/keepalived" in names
    for absent in ("bin/sh", "usr/bin/sh", "bin/bash", "sbin/ip", "usr/bin/perl", "usr/share/perl",
                   "usr/share/snmp", "var/lib/dpkg", "usr/share/doc"):
        assert absent not in names, absent
