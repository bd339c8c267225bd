"""HTTP checks on a kept connection, end to end: one connection carries the checks, and a member
that refuses new connections is not kept in rotation by the checks its kept connection passes."""
import socket
import threading
import time

from testing.harness.vigil_process import Vigil, pool_config
from testing.harness.wait import wait_for


class KeepAliveMember:
    """Answers every request with `200 ok` over HTTP/1.1 keep-alive, counting connections.
    stop_listening() refuses new connections while the open ones go on being answered."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.requests = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        pending = b""
        with conn:
            conn.settimeout(30)
            try:
                while data := conn.recv(4096):
                    pending += data
                    while b"\r\n\r\n" in pending:
                        _, pending = pending.split(b"\r\n\r\n", 1)
                        with self.lock:
                            self.requests += 1
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            except OSError:
                pass

    def stop_listening(self):
        # shutdown() wakes the accept() and makes the kernel refuse new connections.
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


FAST_HTTP = """    health_monitor:
      type: HTTP
      path: /readyz
      interval: 200ms
      fast_interval: 100ms
      timeout: 1s
      healthy_threshold: 2
      unhealthy_threshold: 2"""


def config(member_port, spare_port):
    return pool_config(FAST_HTTP, [("kept", member_port), ("spare", spare_port)])


def get_through(host, port):
    """One HTTP request through vigil on a new connection; returns the answer's bytes."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while not answer.endswith(b"ok") and (data := s.recv(4096)):
            answer += data
        return answer


def member(vigil, name):
    return vigil.members()[name]


def test_checks_share_one_connection(tmp_path, cleanup):
    kept = KeepAliveMember()
    spare = KeepAliveMember()
    vigil = Vigil(tmp_path, config(kept.port, spare.port))
    cleanup(vigil)
    vigil.wait_member("kept", "ONLINE")
    wait_for(lambda: kept.requests >= 6, what="six checks of the member")
    assert kept.accepted == 1
    assert member(vigil, "kept")["check"]["reused_connection"] is True


def test_a_member_refusing_connections_stays_out_though_its_kept_connection_passes(
        tmp_path, cleanup):
    kept = KeepAliveMember()
    spare = KeepAliveMember()
    vigil = Vigil(tmp_path, config(kept.port, spare.port))
    cleanup(vigil)
    vigil.wait_member("kept", "ONLINE")
    wait_for(lambda: member(vigil, "kept")["check"]["reused_connection"], what="a reused check")

    kept.stop_listening()
    # Without clients, the kept connection still passes: only a new connection would tell.
    # A client's connect is refused, retried on the spare, and takes the member out.
    host, port = vigil.listener("api")
    for _ in range(4):
        assert get_through(host, port).startswith(b"HTTP/1.1 200")
    wait_for(lambda: not member(vigil, "kept")["in_rotation"], what="the member out of rotation")
    # The check run to confirm connects afresh and is refused; the member never comes back on
    # a check over its old connection, which still answers.
    out = vigil.wait_member("kept", "ERROR", timeout=10)
    assert out["check"]["result"] == "refused"
    assert out["check"]["reused_connection"] is False
    deadline = time.monotonic() + 1.5  # several check intervals
    while time.monotonic() < deadline:
        m = member(vigil, "kept")
        assert m["in_rotation"] is False, m
        time.sleep(0.1)
    assert "connect failed" in vigil.log_text()
