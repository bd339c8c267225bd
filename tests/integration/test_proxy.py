"""The data plane through the real binary: byte-exact, concurrent, half-close, IPv6."""
import os
import socket
import threading

from testing.harness.vigil_process import EchoServer, Vigil, echo_once


def config(members, bind="127.0.0.1:0", algorithm="round_robin"):
    lines = "\n".join(f"      - {{name: m{i}, address: 127.0.0.1, port: {p}}}" for i, p in enumerate(members))
    return f"""
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 2
listeners:
  - {{name: echo, bind: "{bind}", pool: echoes}}
pools:
  - name: echoes
    algorithm: {algorithm}
    health_monitor: {{type: TCP, interval: 1s, timeout: 500ms}}
    members:
{lines}
"""


def test_one_mebibyte_both_ways_on_many_connections(tmp_path, cleanup):
    backends = [EchoServer(), EchoServer(), EchoServer()]
    for b in backends:
        cleanup(b)
    vigil = Vigil(tmp_path, config([b.port for b in backends]))
    cleanup(vigil)
    host, port = vigil.listener("echo")
    results = {}

    def run(i):
        payload = os.urandom(1 << 20)
        results[i] = echo_once(host, port, payload) == payload

    threads = [threading.Thread(target=run, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {i: True for i in range(24)}
    assert sum(b.accepted for b in backends) >= 24
    assert all(b.accepted > 0 for b in backends), "round robin used every member"


def test_half_closed_client_gets_the_whole_answer(tmp_path, cleanup):
    # A backend that answers only after the client has finished sending (like `nc -q`).
    server = socket.create_server(("127.0.0.1", 0))
    cleanup(type("S", (), {"stop": server.close})())

    def answer(conn):
        with conn:
            total = 0
            while data := conn.recv(65536):
                total += len(data)
            conn.sendall(f"received {total} bytes".encode() * 1000)

    def serve():
        # Health checks connect too, so every connection gets its own thread.
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.settimeout(10)
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    vigil = Vigil(tmp_path, config([server.getsockname()[1]]))
    cleanup(vigil)
    answer = echo_once(*vigil.listener("echo"), b"x" * 200_000)
    assert answer == b"received 200000 bytes" * 1000


def test_ipv6_listener(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, config([backend.port], bind="[::1]:0"))
    cleanup(vigil)
    host, port = vigil.listener("echo")
    assert host == "::1"
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"over ipv6")
        assert s.recv(100) == b"over ipv6"


def test_tls_passes_through_untouched(tmp_path, cleanup):
    from testing.harness.vigil_process import ApiSim, https_get
    sim = ApiSim(tmp_path, "master-01")
    cleanup(sim)
    vigil = Vigil(tmp_path, config([sim.port]))
    cleanup(vigil)
    status, headers, body = https_get(*vigil.listener("echo"), "/api/v1/nodes/master-01")
    assert status == 200
    assert headers.get("X-Served-By") == "master-01"
    assert '"kind":"Node"' in body.replace(" ", "")
