"""vigil writes the PROXY header (v1 and v2) to real receivers, NGINX and HAProxy, for IPv4 and
IPv6 clients, and its checks send one too (send_proxy); a replayed connection gets its own."""
import socket
import threading
import uuid

import pytest

from proxy_receivers import HaproxyReceiver, Nginx, http_get, wait_logged
from testing.harness.vigil_process import Vigil
from testing.harness.wait import wait_for

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def config(member_port, proxy_protocol, monitor, extra_pool=""):
    return f"""
admin: {{listen: 127.0.0.1:0, token_file: @TOKEN_FILE@}}
listeners:
  - {{name: v4, bind: "127.0.0.1:0", pool: routers}}
  - {{name: v6, bind: "[::1]:0", pool: routers}}
pools:
  - name: routers
    proxy_protocol: {proxy_protocol}
{monitor}{extra_pool}
    members:
      - {{name: r1, address: 127.0.0.1, port: {member_port}}}
"""


SEND_PROXY_CHECK = "    health_monitor: {type: HTTP, path: /healthz, interval: 1s, send_proxy: true}\n"


@pytest.mark.parametrize("receiver", [Nginx, HaproxyReceiver])
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_receiver_sees_the_real_client(tmp_path, cleanup, receiver, version):
    rx = receiver(tmp_path)
    cleanup(rx)
    vigil = Vigil(tmp_path, config(rx.port, version, SEND_PROXY_CHECK))
    cleanup(vigil)
    # The checks pass only because they start with a header: both receivers refuse any
    # connection without one.
    vigil.wait_member("r1", "ONLINE")
    for listener in ("v4", "v6"):
        host, port = vigil.listener(listener)
        path = f"/{listener}-{uuid.uuid4().hex}"
        client, answer = http_get(host, port, path)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        wait_logged(rx, f"{client[0]} {client[1]} {path}")


def test_checks_without_send_proxy_fail_at_a_receiver_that_wants_it(tmp_path, cleanup):
    rx = Nginx(tmp_path)
    cleanup(rx)
    vigil = Vigil(tmp_path, config(rx.port, "v2",
                                   "    health_monitor: {type: HTTP, path: /healthz, interval: 1s}\n"))
    cleanup(vigil)
    vigil.wait_member("r1", "ERROR")


def test_member_override_and_off(tmp_path, cleanup):
    """A member's own proxy_protocol wins over the pool's: off sends the client's bytes alone."""
    seen = []
    server = socket.create_server(("127.0.0.1", 0))
    cleanup(type("Closer", (), {"stop": lambda self: server.close()})())

    def serve():
        conn, _ = server.accept()
        with conn:
            conn.settimeout(5)
            seen.append(conn.recv(4096))
            conn.sendall(b"bye")
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    text = config(0, "v2", "").replace(
        "port: 0}", f"port: {server.getsockname()[1]}, proxy_protocol: off}}")
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    host, port = vigil.listener("v4")
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"hello")
        assert s.recv(16) == b"bye"
    t.join(5)
    assert seen == [b"hello"]


class SilentMember:
    """Takes connections and never answers: records the first bytes of each."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.first_bytes = []
        self.conns = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self.read, args=(conn,), daemon=True).start()

    def read(self, conn):
        # The header and the request may come in two segments: up to the request's end.
        conn.settimeout(5)
        got = b""
        try:
            while b"\r\n\r\n" not in got.partition(b"GET ")[2] and (data := conn.recv(4096)):
                got += data
        except OSError:
            pass
        self.first_bytes.append(got)

    def stop(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_replayed_connection_gets_its_own_header(tmp_path, cleanup, version):
    """The first member takes the connection and stays silent: the session moves to NGINX, which
    must see a header of its own before the kept request, and the real client in it."""
    silent = SilentMember()
    cleanup(silent)
    rx = Nginx(tmp_path)
    cleanup(rx)
    text = f"""
admin: {{listen: 127.0.0.1:0, token_file: @TOKEN_FILE@}}
listeners:
  - {{name: v4, bind: "127.0.0.1:0", pool: routers}}
pools:
  - name: routers
    proxy_protocol: {version}
    first_byte_timeout: 300ms
    replay: always
    members:
      - {{name: silent, address: 127.0.0.1, port: {silent.port}}}
      - {{name: nginx, address: 127.0.0.1, port: {rx.port}}}
"""
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    host, port = vigil.listener("v4")
    # Round robin: within two connections one goes to the silent member first.
    for _ in range(2):
        path = f"/{uuid.uuid4().hex}"
        client, answer = http_get(host, port, path)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        wait_logged(rx, f"{client[0]} {client[1]} {path}")
    wait_for(lambda: silent.first_bytes, 5, what="the silent member's first bytes")
    first = silent.first_bytes[0]
    if version == "v1":
        assert first.startswith(b"PROXY TCP4 127.0.0.1 127.0.0.1 "), first
    else:
        assert first.startswith(V2_SIGNATURE + b"\x21\x11\x00\x0c"), first
    assert b"GET /" in first
