"""An Octavia listener's timeout_member_data acts as an amphora's `timeout server`: a session
whose member side moves no byte for that long is closed, while one that keeps talking is not."""
import socket
import time

from testing.harness.octavia_api import start_vigil, tcp_load_balancer
from testing.harness.vigil_process import EchoServer
from testing.harness.wait import wait_for


def test_timeout_member_data_closes_an_idle_session(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = start_vigil(tmp_path, cleanup)
    _, listener, _, _ = tcp_load_balancer(vigil, echo.port, listener={"timeout_member_data": 2000})
    port = listener["protocol_port"]
    assert listener["timeout_member_data"] == 2000
    assert listener["timeout_client_data"] == 3600000  # unset: vigil's hour

    def session():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"x")
            if s.recv(10) == b"x":
                return s
            s.close()
        except OSError:
            pass
        return None
    s = wait_for(session, 10, what="a session through the API's listener")
    try:
        # Talking every 0.5 s for 3 s (past the 2 s) keeps it open.
        for _ in range(6):
            time.sleep(0.5)  # the client's pace, not a wait for a condition
            s.sendall(b"y")
            assert s.recv(10) == b"y"
        quiet_from = time.monotonic()
        s.settimeout(10)
        try:
            assert s.recv(10) == b""
        except ConnectionResetError:
            pass
        idle = time.monotonic() - quiet_from
        assert 1.8 <= idle <= 4.0, f"closed after {idle:.2f} s of quiet, not about 2 s"
    finally:
        s.close()
