"""A listener at its limit with `at_limit: queue` (every Octavia listener: HAProxy's maxconn)
leaves the next client in the kernel's backlog and serves it when a session ends; with the
file's default, `close`, the next client is closed at once."""
import socket

from testing.harness.octavia_api import start_vigil, tcp_load_balancer
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for


def opened(port, timeout=10):
    """A session proven by one echo; None while the listener does not answer yet."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return None
    try:
        s.sendall(b"x")
        if s.recv(1) == b"x":
            return s
    except OSError:
        pass
    s.close()
    return None


def served_within(s, seconds):
    """True when `s` gets its echo within `seconds`; False when nothing comes back by then."""
    s.settimeout(seconds)
    try:
        return s.recv(1) == b"y"
    except socket.timeout:
        return False


def check_queue(port, limit):
    held = [wait_for(lambda: opened(port), 10, what="the first session")]
    try:
        for _ in range(limit - 1):
            s = opened(port)
            assert s is not None, "a session under the limit was not served"
            held.append(s)
        waiting = socket.create_connection(("127.0.0.1", port), timeout=5)  # the backlog's
        held.append(waiting)
        waiting.sendall(b"y")
        # One second without an echo: not accepted (nor closed) while the limit is held.
        assert not served_within(waiting, 1.0), "served past the limit"
        held.pop(0).close()
        assert served_within(waiting, 5.0), "the waiting client was not served when a slot freed"
    finally:
        for s in held:
            s.close()


def test_an_octavia_listener_queues_at_its_connection_limit(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = start_vigil(tmp_path, cleanup)
    _, listener, _, _ = tcp_load_balancer(vigil, echo.port, listener={"connection_limit": 5})
    check_queue(listener["protocol_port"], 5)


CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 2
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters, max_connections: 2{extra}}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s}}
    members: [{{name: m1, address: 127.0.0.1, port: {port}}}]
"""


def test_a_file_listener_queues_when_asked(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, CONFIG.format(port=echo.port, extra=", at_limit: queue"))
    cleanup(vigil)
    vigil.wait_member("m1", "ONLINE")
    check_queue(vigil.listener("api")[1], 2)


def test_a_file_listener_closes_at_its_limit_by_default(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, CONFIG.format(port=echo.port, extra=""))
    cleanup(vigil)
    vigil.wait_member("m1", "ONLINE")
    port = vigil.listener("api")[1]
    held = [opened(port), opened(port)]
    try:
        assert all(held)
        extra = socket.create_connection(("127.0.0.1", port), timeout=5)
        extra.settimeout(5)
        try:
            assert extra.recv(1) == b""  # closed at once
        except ConnectionResetError:
            pass
        extra.close()
    finally:
        for s in held:
            s.close()
