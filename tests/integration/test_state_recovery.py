"""No acknowledged API write is lost without a word: vigil killed with writes in its journal, then
a state file or journal removed, replaced or damaged, refuses to start and says what to do, and
starts as told once the operator has chosen. A state file that is no regular file (a FIFO, a link
to /dev/zero) is refused at once instead of hanging or filling memory."""
import os
import signal
import subprocess

from testing.harness.octavia_api import create, raw, start_vigil
from testing.harness.vigil_process import VIGIL, Vigil

LB = {"name": "kept", "vip_address": "127.0.0.1"}


def killed_with_journaled_writes(tmp_path, cleanup):
    """A vigil that made one load balancer (its state file written whole) and then three listeners
    (in the journal only), killed -9: nothing had a chance to fold the journal in."""
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", LB)
    for port in (16443, 16444, 16445):
        create(vigil, "listeners", "listener",
               {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port})
    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    return vigil


def start_fails(vigil):
    """Runs `vigil serve` on the same config; returns its output, asserting it exits non-zero
    within 20 s (a hang is a failure too)."""
    run = subprocess.run([str(VIGIL), "serve", "-c", str(vigil.config)], capture_output=True,
                         text=True, timeout=20)
    assert run.returncode != 0, run.stdout + run.stderr
    return run.stdout + run.stderr


def listeners(vigil):
    code, body = raw(vigil, "GET", "/v2.0/lbaas/listeners")
    assert code == 200, body
    return body["listeners"]


def test_a_removed_journal_refuses_the_start_until_the_operator_chooses(tmp_path, cleanup):
    vigil = killed_with_journaled_writes(tmp_path, cleanup)
    journal = tmp_path / "state.json.journal"
    saved = journal.read_bytes()
    journal.unlink()
    out = start_fails(vigil)
    assert f"names the journal {journal}, which is missing" in out, out
    assert f": > {journal}" in out, out

    journal.write_bytes(saved)  # put back: every write is there
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    assert len(listeners(again)) == 3
    again.stop()


def test_an_emptied_journal_starts_with_the_state_file_alone(tmp_path, cleanup):
    vigil = killed_with_journaled_writes(tmp_path, cleanup)
    (tmp_path / "state.json.journal").write_bytes(b"")  # what the refusal says to do
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    assert listeners(again) == []
    code, body = raw(again, "GET", "/v2.0/lbaas/loadbalancers")
    assert code == 200 and "kept" in [lb["name"] for lb in body["loadbalancers"]], body
    assert "is empty: starting with what" in again.log_text()


def test_a_removed_state_file_refuses_the_start(tmp_path, cleanup):
    vigil = killed_with_journaled_writes(tmp_path, cleanup)
    (tmp_path / "state.json").unlink()
    out = start_fails(vigil)
    assert "state.json is missing, but its journal" in out and "holds 3 acknowledged writes" in out, out


def test_a_state_file_put_back_from_a_backup_refuses_beside_a_newer_journal(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", LB)
    backup = (tmp_path / "state.json").read_bytes()
    create(vigil, "listeners", "listener",
           {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": 16443})
    vigil.stop()  # folds the journal into a new state file, with a journal of its own
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    create(again, "listeners", "listener",
           {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": 16444})
    again.proc.send_signal(signal.SIGKILL)
    again.proc.wait(timeout=10)
    (tmp_path / "state.json").write_bytes(backup)
    out = start_fails(again)
    assert "holds 1 acknowledged writes made on top of another state file" in out, out


def test_a_journal_removed_while_vigil_runs_is_written_anew(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", LB)
    os.unlink(tmp_path / "state.json.journal")  # a clean-up of the state directory
    create(vigil, "listeners", "listener",
           {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": 16443})
    vigil.proc.send_signal(signal.SIGKILL)
    vigil.proc.wait(timeout=10)
    assert "was removed or replaced while vigil ran" in vigil.log_text()
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    assert len(listeners(again)) == 1


def test_a_state_file_that_is_no_regular_file_is_refused_at_once(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    vigil.stop()
    state = tmp_path / "state.json"
    state.unlink(missing_ok=True)
    os.mkfifo(state)  # read as a file, it would wait for a writer forever
    assert "not a regular file" in start_fails(vigil)
    state.unlink()
    state.symlink_to("/dev/zero")  # read as a file, it would fill memory
    assert "not a regular file" in start_fails(vigil)
