"""The status page's recent transitions outlive the process: vigil keeps them in
`<admin.state_file>.transitions`, so a restart (SIGTERM, then a new vigil on the same files) and
`vigil upgrade` show what the old process saw (a drained master's reboot, read the morning
after); a damaged file is a warning and an empty list, never a refusal to start. Every wait is
bounded."""
import json

from status_page_setup import CONFIG, READ_TOKEN, Refuser
from test_upgrade import Adopted, ready_pid, upgrade
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for


def members_up(tmp_path, cleanup):
    read = tmp_path / "read-token"
    read.write_text(READ_TOKEN + "\n")
    up1, up2, down = EchoServer(), EchoServer(), Refuser()
    for thing in (up1, up2, down):
        cleanup(thing)
    return CONFIG.format(read=read, state=tmp_path / "state.json", p1=up1.port, p2=down.port,
                         p3=up2.port)


def messages(vigil):
    return [t["message"] for t in vigil.status()["recent_transitions"]]


def kept(tmp_path):
    try:
        return [t["message"] for t in
                json.loads((tmp_path / "state.json.transitions").read_text())["transitions"]]
    except (FileNotFoundError, ValueError):
        return []


def seen_before(vigil, tmp_path):
    """Waits for master-02's DOWN and master-01's drain, on the page and in the file."""
    vigil.wait_member("master-02", "ERROR")
    assert vigil.cli("member", "drain", "master-01").returncode == 0
    vigil.wait_member("master-01", "DRAINING")
    before = messages(vigil)
    assert any("master-02" in m and " DOWN" in m for m in before), before
    assert any("master-01" in m and "admin drain" in m for m in before), before
    wait_for(lambda: kept(tmp_path) == before, what="the transitions written beside the state file")
    return before


def test_a_restart_keeps_the_recent_transitions(tmp_path, cleanup):
    config = members_up(tmp_path, cleanup)
    vigil = Vigil(tmp_path, config)
    cleanup(vigil)
    before = seen_before(vigil, tmp_path)
    assert vigil.stop() == 0

    again = Vigil(tmp_path, config)
    cleanup(again)
    after = messages(again)
    assert after[:len(before)] == before, after
    _, page = again.get("/")
    assert "admin drain, set by CLI" in page, "on the page too"


def test_an_upgrade_keeps_the_recent_transitions(tmp_path, cleanup):
    vigil = Vigil(tmp_path, members_up(tmp_path, cleanup))
    cleanup(vigil)
    adopted = Adopted()
    cleanup(adopted)
    before = seen_before(vigil, tmp_path)
    adopted.pid = upgrade(vigil, vigil.proc.pid, "signal")
    assert ready_pid(vigil) == adopted.pid
    assert messages(vigil)[:len(before)] == before
    assert vigil.proc.wait(timeout=10) == 0
    # The old process is gone without writing over the file: the new one owns it.
    assert vigil.cli("member", "ready", "master-01").returncode == 0
    wait_for(lambda: any("admin override cleared by CLI" in m for m in kept(tmp_path)),
             what="the new process's transition in the file")
    assert kept(tmp_path)[:len(before)] == before


def test_a_damaged_file_is_a_warning_and_an_empty_list(tmp_path, cleanup):
    config = members_up(tmp_path, cleanup)
    (tmp_path / "state.json.transitions").write_text('{"format": 1, "transitions": [{"at_ns": 1')
    vigil = Vigil(tmp_path, config)
    cleanup(vigil)
    vigil.wait_member("master-02", "ERROR")
    assert "recent transitions: " in vigil.log_text() and "cannot be read" in vigil.log_text()
    assert all("at_ns" not in m for m in messages(vigil))
