"""Two vigils that are peers under mutual TLS (`peers_auth: {tls: {cert, key, ca}}`, docs/ha.md):
the stream comes up and carries sessions; a peer whose certificate another CA signed, one that
presents none, and one whose certificate names another node are refused and counted in
vigil_peer_refused_total; `vigil check` names the `tls` key's line for files that do not load.

The CAs and certificates are made here with the openssl command, valid for two days."""
import re
import socket
import ssl
import subprocess

import pytest

from test_peers import metric
from testing.harness import pki as certs
from testing.harness.octavia_api import free_port
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import EchoServer, Vigil, hold
from testing.harness.wait import wait_for


def make_cert(d, ca, node, file_name=None):
    """A certificate for `node` (CN and DNS SAN), signed by the CA `ca` (its .crt path)."""
    cert, key = certs.make_cert(d, ca, file_name or f"{node}-by-{ca.stem}", f"DNS:{node}", cn=node)
    return {"cert": cert, "key": key, "ca": str(ca)}


def node_config(name, ports, echo_port, tls):
    peers = "\n".join(f"  - {{name: {n}, address: 127.0.0.1, port: {p}}}" for n, p in ports.items())
    return f"""
peers:
{peers}
peers_auth:
  tls: {{cert: {tls['cert']}, key: {tls['key']}, ca: {tls['ca']}}}
peer_name: {name}
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms}}
    members: [{{name: m, address: 127.0.0.1, port: {echo_port}}}]
"""


@pytest.fixture
def pki(tmp_path):
    d = tmp_path / "pki"
    d.mkdir()
    ca, stranger = certs.make_ca(d, "peers-ca"), certs.make_ca(d, "stranger-ca")
    return {"a": make_cert(d, ca, "a"), "b": make_cert(d, ca, "b"),
            "a-by-stranger": dict(make_cert(d, stranger, "a"), ca=str(stranger)),
            "b-posing-as-a": dict(make_cert(d, ca, "b", "b-again")), "ca": ca, "dir": d}


def start_pair(tmp_path, cleanup, tls_a, tls_b):
    echo = EchoServer()
    cleanup(echo)
    ports = {"a": free_port(), "b": free_port()}
    nodes = {}
    for name, tls in (("a", tls_a), ("b", tls_b)):
        d = tmp_path / name
        d.mkdir()
        nodes[name] = Vigil(d, node_config(name, ports, echo.port, tls))
        cleanup(nodes[name])
    for v in nodes.values():
        v.wait_member("m", "ONLINE")
    return nodes["a"], nodes["b"], ports


def test_the_stream_under_mutual_tls_carries_sessions(tmp_path, cleanup, pki):
    a, b, _ = start_pair(tmp_path, cleanup, pki["a"], pki["b"])
    wait_for(lambda: metric(b, "vigil_peer_up", peer="a", direction="receive") == 1
             and metric(a, "vigil_peer_up", peer="b", direction="receive") == 1, 10, what="both streams up")
    sessions = [hold(a, b"one"), hold(a, b"two")]
    wait_for(lambda: metric(b, "vigil_peer_sessions", peer="a") == 2, 5, what="b knowing a's 2 sessions")
    status = b.cli("status")
    assert re.search(r"peer a 127\.0\.0\.1:\d+: sending up, receiving up, 2 sessions known\n", status.stdout), \
        status.stdout + status.stderr
    assert metric(b, "vigil_peer_refused_total", peer="a") == 0
    for s in sessions:
        s.close()


def test_a_peer_of_another_ca_is_refused_and_counted(tmp_path, cleanup, pki):
    a, b, _ = start_pair(tmp_path, cleanup, pki["a-by-stranger"], pki["b"])
    # Each refuses the other's certificate as it connects (TLS 1.3: the side that connected
    # verifies first, and its alert ends the handshake before the other side verifies).
    wait_for(lambda: (metric(b, "vigil_peer_refused_total", peer="a") or 0) >= 1
             and (metric(a, "vigil_peer_refused_total", peer="b") or 0) >= 1, 10,
             what="both refusing the other's certificate")
    kept = hold(a, b"x")
    assert metric(b, "vigil_peer_up", peer="a", direction="receive") == 0
    assert metric(b, "vigil_peer_sessions", peer="a") == 0
    for v, other in ((b, "a"), (a, "b")):
        assert re.search(f"the stream to {other} closed: TLS handshake: certificate verify failed .*its "
                         "certificate: ", v.log_text()), v.log_text()
    kept.close()


@pytest.mark.parametrize("presented", ["none", "another CA's"])
def test_a_client_without_a_certificate_of_the_ca_is_refused_and_counted(tmp_path, cleanup, pki, presented):
    a, b, ports = start_pair(tmp_path, cleanup, pki["a"], pki["b"])
    wait_for(lambda: metric(b, "vigil_peer_up", peer="a", direction="receive") == 1, 10, what="a's stream up")
    context = ssl.create_default_context(cafile=str(pki["ca"]))
    context.check_hostname = False
    if presented != "none":
        context.load_cert_chain(pki["a-by-stranger"]["cert"], pki["a-by-stranger"]["key"])
    with socket.create_connection(("127.0.0.1", ports["b"]), timeout=5) as raw:
        with context.wrap_socket(raw) as s:  # TLS 1.3: b's refusal comes after the client's finish
            with pytest.raises((ssl.SSLError, ConnectionError)):
                s.recv(10)
    wait_for(lambda: metric(b, "vigil_peer_refused_total", peer="a") == 1, 5,
             what="b counting the refused connection against a's address")
    wait_for(lambda: re.search(r"closed before it proved itself a peer: TLS handshake: ", b.log_text()), 5,
             what="b logging the refused connection")
    assert metric(b, "vigil_peer_up", peer="a", direction="receive") == 1  # the real a unharmed


def test_one_nodes_certificate_cannot_pose_as_another(tmp_path, cleanup, pki):
    # a presents a certificate of the right CA, but it names b.
    a, b, _ = start_pair(tmp_path, cleanup, pki["b-posing-as-a"], pki["b"])
    wait_for(lambda: (metric(b, "vigil_peer_refused_total", peer="a") or 0) >= 2, 10,
             what="b refusing a both ways")
    assert metric(b, "vigil_peer_up", peer="a", direction="receive") == 0
    assert metric(b, "vigil_peer_up", peer="a", direction="send") == 0
    text = b.log_text()
    assert "its certificate does not name \"a\"" in text, text
    assert "the stream to a closed: TLS handshake" in text and "hostname mismatch" in text, text


@pytest.mark.parametrize("broken, why", [
    ("cert", "peers_auth.tls.cert {dir}/missing.crt: "),
    ("pem", "peers_auth.tls.cert {dir}/not-pem.crt: "),
    ("key", "peers_auth.tls.key {dir}/b-by-peers-ca.key is not the key of peers_auth.tls.cert"),
    ("ca", "peers_auth.tls.ca {dir}/missing-ca.crt: "),
])
def test_check_names_the_tls_line_of_a_file_that_does_not_load(tmp_path, pki, broken, why):
    d = pki["dir"]
    (d / "not-pem.crt").write_text("not a certificate\n")
    tls = dict(pki["a"])
    tls.update({"cert": {"cert": f"{d}/missing.crt"}, "pem": {"cert": f"{d}/not-pem.crt"},
                "key": {"key": pki["b"]["key"]}, "ca": {"ca": f"{d}/missing-ca.crt"}}[broken])
    config = tmp_path / "vigil.yaml"
    config.write_text(node_config("a", {"a": 7946, "b": 7947}, 6443, tls).replace("@TOKEN_FILE@", "/t"))
    r = subprocess.run([str(VIGIL), "check", "-c", str(config)], capture_output=True, text=True, timeout=20)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{config}:6: error: " + why.format(dir=d) in r.stdout + r.stderr, r.stdout + r.stderr
