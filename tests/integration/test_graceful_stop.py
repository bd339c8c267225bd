"""SIGTERM stops gracefully: the listeners close at once, open sessions go on until they end or
shutdown_grace runs out, then vigil exits 0. A second SIGTERM stops at once."""
import signal
import socket
import time

from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for


def config(member_port, grace=None):
    top = f"shutdown_grace: {grace}\n" if grace else ""
    return top + f"""
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 2
listeners:
  - {{name: echo, bind: "127.0.0.1:0", pool: echoes}}
pools:
  - name: echoes
    health_monitor: {{type: TCP, interval: 1s, timeout: 500ms}}
    members:
      - {{name: m0, address: 127.0.0.1, port: {member_port}}}
"""


def open_session(vigil):
    s = socket.create_connection(vigil.listener("echo"), timeout=5)
    assert echo(s, b"before") == b"before"
    return s


def echo(s, payload):
    s.sendall(payload)
    got = b""
    while len(got) < len(payload):
        data = s.recv(65536)
        if not data:
            break
        got += data
    return got


def refused(vigil):
    try:
        socket.create_connection(vigil.listener("echo"), timeout=5).close()
        return False
    except ConnectionResetError:
        # Queued on the listener as it closed: the kernel resets what it had not handed over.
        # The listener is going; the next try is refused.
        return False
    except ConnectionRefusedError:
        return True


def start(tmp_path, cleanup, grace=None):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, config(backend.port, grace))
    cleanup(vigil)
    vigil.wait_member("m0", "ONLINE")
    return vigil


def test_a_session_outlives_sigterm_and_vigil_exits_when_it_ends(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)  # the default grace, 30 s
    session = open_session(vigil)
    vigil.proc.send_signal(signal.SIGTERM)
    wait_for(lambda: "waiting up to 30000 ms for 1 sessions to end" in vigil.log_text(), timeout=5,
             what="every worker to close its listener")
    assert refused(vigil)
    assert echo(session, b"after SIGTERM") == b"after SIGTERM"
    # The admin API still answers: status readable, /healthz says why traffic should go away.
    assert vigil.get("/healthz", token=None) == (503, "draining for a stop\n")
    assert vigil.status()["pools"][0]["members"][0]["operating_status"] == "ONLINE"
    assert vigil.proc.poll() is None
    began = time.monotonic()
    session.close()
    assert vigil.proc.wait(timeout=10) == 0
    assert time.monotonic() - began < 10, "exited when the session ended, long before the grace"
    assert "waited for 1 sessions; 0 cut at the deadline" in vigil.log_text()


def test_the_grace_cuts_a_session_that_does_not_end(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup, grace="1s")
    session = open_session(vigil)
    began = time.monotonic()
    vigil.proc.send_signal(signal.SIGTERM)
    assert vigil.proc.wait(timeout=10) == 0
    took = time.monotonic() - began
    assert 0.9 <= took < 5, took
    session.settimeout(5)
    assert session.recv(1) == b"", "the session was closed"
    session.close()
    assert "waited for 1 sessions; 1 cut at the deadline" in vigil.log_text()


def test_a_second_sigterm_stops_at_once(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    session = open_session(vigil)
    vigil.proc.send_signal(signal.SIGTERM)
    wait_for(lambda: refused(vigil), timeout=5, what="new connects refused")
    began = time.monotonic()
    vigil.proc.send_signal(signal.SIGTERM)
    assert vigil.proc.wait(timeout=10) == 0
    assert time.monotonic() - began < 3
    session.settimeout(5)
    assert session.recv(1) == b""
    session.close()


def test_zero_grace_is_the_immediate_stop(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup, grace="0s")
    session = open_session(vigil)
    vigil.proc.send_signal(signal.SIGTERM)
    assert vigil.proc.wait(timeout=5) == 0
    session.settimeout(5)
    assert session.recv(1) == b""
    session.close()
    assert "stopped; 1 sessions cut" in vigil.log_text()
