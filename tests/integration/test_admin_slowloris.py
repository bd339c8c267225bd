"""Slowloris against the admin API: 300 connections that each send half a request head, no
token needed, must not keep /healthz (keepalived's vrrp_script) from answering; and requests
framed two ways at once are refused."""
import socket
import time

from testing.harness.vigil_process import EchoServer, Vigil, pool_config

HALF_HEAD = b"GET /v1/status HTTP/1.1\r\nHost: vigil\r\nX-Auth"


def admin_address(vigil):
    host, port = vigil.admin.rsplit(":", 1)
    return host, int(port)


def half_heads(address, n):
    held = []
    for _ in range(n):
        try:
            s = socket.create_connection(address, timeout=5)
            s.sendall(HALF_HEAD)
            held.append(s)
        except OSError:
            pass  # closed for a newer one already: as it should be
    return held


def healthz_within(address, seconds):
    """GET /healthz on a new connection; returns the status code, or 0 when no whole answer came
    within `seconds`."""
    start = time.monotonic()
    with socket.create_connection(address, timeout=seconds) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: vigil\r\nConnection: close\r\n\r\n")
        answer = b""
        while time.monotonic() - start < seconds:
            s.settimeout(max(0.01, seconds - (time.monotonic() - start)))
            try:
                data = s.recv(4096)
            except socket.timeout:
                break
            if not data:
                break
            answer += data
    if not answer.startswith(b"HTTP/1.1 ") or not answer.endswith(b"ok\n"):
        return 0
    return int(answer.split()[1])


def raw(address, request):
    with socket.create_connection(address, timeout=5) as s:
        s.sendall(request)
        answer = b""
        while data := s.recv(4096):
            answer += data
            if b"\r\n\r\n" in answer:
                break
    return int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def test_half_heads_do_not_starve_healthz(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config("", [("m1", backend.port)]))
    cleanup(vigil)
    address = admin_address(vigil)
    held = []
    try:
        for _ in range(3):  # the attack renewed, as an attacker would
            held += half_heads(address, 300)
            for _ in range(10):
                assert healthz_within(address, 1.0) == 200
    finally:
        for s in held:
            s.close()
    assert "closing the oldest idle or unfinished connections" in vigil.log_text()


def test_ambiguous_framing_is_refused(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config("", [("m1", backend.port)]))
    cleanup(vigil)
    address = admin_address(vigil)
    head = b"POST /v1/reload HTTP/1.1\r\nHost: vigil\r\n"
    assert raw(address, head + b"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n") == 400
    assert raw(address, head + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n") == 400
    # The server goes on.
    assert vigil.get("/healthz", token=None)[0] == 200
