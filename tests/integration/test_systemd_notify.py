"""`vigil serve` under systemd's Type=notify, with the test as systemd: a unix datagram socket in
NOTIFY_SOCKET receives READY=1 (after the first checks), RELOADING=1 and the reload's result,
WATCHDOG=1 while the workers answer, and STOPPING=1."""
import signal
import socket
import time

from testing.harness.vigil_process import ApiSim, Vigil, pool_config
from testing.harness.wait import wait_for

MONITOR = """    health_monitor:
      type: HTTPS
      path: /readyz
      interval: 5s
      timeout: 1s"""


class Systemd:
    """The receiving end of the notify protocol: every datagram, with the time it came."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.05)
        self.path = str(path)
        self.messages = []  # (monotonic time, {key: value})

    def receive(self):
        try:
            while True:
                data = self.sock.recv(4096).decode()
                fields = dict(line.split("=", 1) for line in data.splitlines() if "=" in line)
                self.messages.append((time.monotonic(), fields))
        except TimeoutError:
            pass
        return self.messages

    def wait(self, key, after=0, timeout=10.0):
        """The first message from index `after` on that sets `key`; its index and fields."""
        def found():
            for i, (_, fields) in enumerate(self.receive()[after:], start=after):
                if key in fields:
                    return i, fields
            return None
        return wait_for(found, timeout, interval=0.01, what=f"{key} from vigil")

    def stop(self):
        self.sock.close()


class SilentMember:
    """A listening socket nobody accepts from: the kernel completes handshakes from its backlog,
    and nothing ever answers (a hung master)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]

    def stop(self):
        self.sock.close()


def test_ready_after_first_checks_reload_result_watchdog_and_stop(tmp_path, cleanup):
    systemd = Systemd(tmp_path / "notify")
    cleanup(systemd)
    sim = ApiSim(tmp_path, "master-01")
    cleanup(sim)
    # A member whose kernel completes the handshake but which never answers the ClientHello: its
    # first check ends only at the monitor's 1 s timeout, so READY=1 must wait that long.
    silent = SilentMember()
    cleanup(silent)
    config = pool_config(MONITOR, [("master-01", sim.port), ("hung", silent.port)])
    started = time.monotonic()
    vigil = Vigil(tmp_path, config, env={"NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "400000"})
    cleanup(vigil)

    i, ready = systemd.wait("READY")
    ready_at = systemd.messages[i][0]
    assert ready["READY"] == "1" and ready["STATUS"] == "serving"
    assert ready_at - started >= 0.9, "READY=1 came before the hung member's first check ended"
    members = vigil.members()
    assert members["hung"]["check"]["result"] == "timeout", members["hung"]
    assert members["master-01"]["operating_status"] == "ONLINE"

    # Half the watchdog interval (400 ms): a WATCHDOG=1 about every 200 ms.
    j, _ = systemd.wait("WATCHDOG", after=i + 1)
    k, _ = systemd.wait("WATCHDOG", after=j + 1, timeout=2)
    assert 0.1 <= systemd.messages[k][0] - systemd.messages[j][0] <= 1.0

    vigil.proc.send_signal(signal.SIGHUP)
    r, reloading = systemd.wait("RELOADING", after=k + 1)
    assert reloading["RELOADING"] == "1" and int(reloading["MONOTONIC_USEC"]) > 0
    _, done = systemd.wait("READY", after=r + 1)
    assert done["STATUS"] == "serving; reloaded"

    vigil.config.write_text(vigil.config.read_text() + "bogus_key: 1\n")
    vigil.proc.send_signal(signal.SIGHUP)
    r, _ = systemd.wait("RELOADING", after=r + 1)
    _, refused = systemd.wait("READY", after=r + 1)
    assert refused["STATUS"].startswith("serving the previous configuration; reload refused:")
    assert vigil.members()["master-01"]["operating_status"] == "ONLINE"

    vigil.proc.send_signal(signal.SIGTERM)
    _, stopping = systemd.wait("STOPPING", after=r + 1)
    assert stopping["STOPPING"] == "1"
    assert vigil.proc.wait(timeout=10) == 0


def test_without_notify_socket_nothing_changes(tmp_path, cleanup):
    sim = ApiSim(tmp_path, "master-01")
    cleanup(sim)
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("master-01", sim.port)]))
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")
    assert vigil.stop() == 0


def test_lines_to_the_journal_carry_their_priority(tmp_path, cleanup):
    # systemd names the journal stream it gives as stderr in JOURNAL_STREAM (device:inode). The
    # harness's log file stands in for it: vigil must find that stderr is that file.
    log = tmp_path / "vigil.log"
    log.touch()
    st = log.stat()
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("gone", 1)]),
                  env={"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
    cleanup(vigil)
    vigil.wait_member("gone", "ERROR")
    lines = vigil.log_text().splitlines()
    assert lines and all(line[:3] in ("<6>", "<4>", "<3>") for line in lines), lines
    assert any(line.startswith("<4>") and "member gone" in line and "DOWN" in line for line in lines)
    assert any(line.startswith("<6>") and "vigil serving" in line for line in lines)
