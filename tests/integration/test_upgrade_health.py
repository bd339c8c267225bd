"""An upgrade hands the members' health state to the new process: a member down stays down (no
traffic) until its checks pass the thresholds, with its reason and time in state, and nothing is
checked again before its interval. The interval here is an hour, so a state the new process
shows can only be the one it was handed. Every wait is bounded."""
import socket

from test_upgrade import Adopted, ready_pid, upgrade
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 2
listeners:
  - {{name: echo, bind: "127.0.0.1:0", pool: echoes}}
pools:
  - name: echoes
    health_monitor: {{type: TCP, interval: 1h, fast_interval: 1h, timeout: 500ms,
                      healthy_threshold: 2, unhealthy_threshold: 3}}
    members:
      - {{name: up, address: 127.0.0.1, port: {up}}}
      - {{name: down, address: 127.0.0.1, port: {down}}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(vigil):
    return {name: (m["operating_status"], m["health"], m["check"] and m["check"]["reason"],
                   m["check"] and m["check"]["at"], m["state_since"],
                   m["consecutive_successes"], m["consecutive_failures"])
            for name, m in vigil.members().items()}


def echo(vigil):
    with socket.create_connection(vigil.listener("echo"), timeout=5) as s:
        s.sendall(b"ping")
        assert s.recv(16) == b"ping"


def test_the_new_process_takes_the_health_state(tmp_path, cleanup):
    up = EchoServer()
    cleanup(up)
    down_port = free_port()  # nothing listens: the first check is refused
    vigil = Vigil(tmp_path, CONFIG.format(up=up.port, down=down_port))
    cleanup(vigil)
    adopted = Adopted()
    cleanup(adopted)
    vigil.wait_member("up", "ONLINE")
    vigil.wait_member("down", "ERROR")
    before = health(vigil)
    assert before["down"][2] == "connection refused", before

    # The member comes back, but one check of two has not even run: it must get no traffic.
    revived = EchoServer(port=down_port)
    cleanup(revived)
    adopted.pid = upgrade(vigil, vigil.proc.pid, "signal")
    assert vigil.proc.wait(timeout=10) == 0
    assert ready_pid(vigil) == adopted.pid
    assert health(vigil) == before, "the state, reason, check time and counters are the old ones"
    assert "took the health state of 2 members" in vigil.log_text()
    for _ in range(10):
        echo(vigil)
    assert revived.accepted == 0, "a member down before the upgrade got traffic"
    assert up.accepted >= 10


def test_a_member_checked_differently_starts_over(tmp_path, cleanup):
    up = EchoServer()
    cleanup(up)
    other = EchoServer()
    cleanup(other)
    vigil = Vigil(tmp_path, CONFIG.format(up=up.port, down=free_port()))
    cleanup(vigil)
    adopted = Adopted()
    cleanup(adopted)
    vigil.wait_member("down", "ERROR")
    # Before the upgrade the file moves "down" to a port that answers: its old verdict is moot.
    text = vigil.config.read_text()
    port = text.split("name: down, address: 127.0.0.1, port: ")[1].split("}")[0]
    vigil.config.write_text(text.replace(f"port: {port}}}", f"port: {other.port}}}"))
    adopted.pid = upgrade(vigil, vigil.proc.pid, "signal")
    assert vigil.proc.wait(timeout=10) == 0
    wait_for(lambda: health(vigil)["down"][0] == "ONLINE", timeout=10,
             what="the moved member checked at once")
    assert "took the health state of 2 members" in vigil.log_text()
