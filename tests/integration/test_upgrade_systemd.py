"""An upgrade under systemd's Type=notify, with the test as systemd: the new process sends
MAINPID= with its pid before its READY=1, and the old one sends no STOPPING=1."""
import os
import signal

from test_systemd_notify import Systemd
from test_upgrade import Adopted, config
from testing.harness.vigil_process import EchoServer, Vigil


def test_the_new_process_becomes_the_main_pid(tmp_path, cleanup):
    systemd = Systemd(tmp_path / "notify")
    cleanup(systemd)
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, config(backend.port), env={"NOTIFY_SOCKET": systemd.path})
    cleanup(vigil)
    adopted = Adopted()
    cleanup(adopted)
    i, _ = systemd.wait("READY")
    os.kill(vigil.proc.pid, signal.SIGUSR2)
    j, main = systemd.wait("MAINPID", after=i + 1, timeout=15)
    adopted.pid = int(main["MAINPID"])
    assert adopted.pid != vigil.proc.pid
    k, ready = systemd.wait("READY", after=j)
    assert ready["READY"] == "1"
    # The old process had no session: it ends as soon as it has handed over.
    assert vigil.proc.wait(timeout=10) == 0
    assert not any("STOPPING" in fields for _, fields in systemd.receive()[i + 1:])
