"""At a stop, vigil writes the API's state file whole when its journal holds writes, so that the
state file alone has every object (what a vigil from before the journal reads: a downgrade loses
nothing). A process that handed the files over to an upgrade leaves them to the new one.
"""
import json
import os
import signal

from testing.harness.octavia_api import create, free_port, raw, start_vigil
from testing.harness.vigil_process import Vigil
from testing.harness.wait import wait_for
from test_upgrade import Adopted, alive, upgrade


def state_alone(tmp_path):
    """The state file as a vigil from before the journal reads it: without its journal."""
    return json.loads((tmp_path / "state.json").read_text())


def names(doc):
    """The names of every load balancer and listener in a state file."""
    out = set()
    for lb in doc["loadbalancers"]:
        out.add(lb["name"])
        out.update(listener["name"] for listener in lb.get("listeners", []))
    return out


def add_listener(vigil, lb_id, name):
    create(vigil, "listeners", "listener",
           {"loadbalancer_id": lb_id, "protocol": "TCP", "protocol_port": free_port(), "name": name})


def test_a_stop_folds_the_journal_into_the_state_file(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "first"})  # written whole
    add_listener(vigil, lb["id"], "journaled")
    assert "journaled" not in names(state_alone(tmp_path)), "in the journal only, so far"

    vigil.stop()
    assert vigil.proc.returncode == 0
    assert "at stop: wrote" in vigil.log_path.read_text()
    assert {"first", "journaled"} <= names(state_alone(tmp_path))
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    code, body = raw(again, "GET", "/v2.0/lbaas/listeners?name=journaled")
    assert code == 200 and len(body["listeners"]) == 1, body


def test_an_upgrade_leaves_the_files_to_the_new_process(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    adopted = Adopted()
    cleanup(adopted)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "first"})
    add_listener(vigil, lb["id"], "before")
    adopted.pid = upgrade(vigil, vigil.proc.pid, "signal")
    assert vigil.proc.wait(timeout=20) == 0, "the old process ends once it handed over"
    assert "at stop: wrote" not in vigil.log_text(), "the old process folded files it gave away"
    assert "before" not in names(state_alone(tmp_path))

    add_listener(vigil, lb["id"], "after")  # the admin socket is the new process's now
    os.kill(adopted.pid, signal.SIGTERM)
    wait_for(lambda: not alive(adopted.pid), timeout=20, what="the new process to stop")
    assert "at stop: wrote" in vigil.log_text()
    assert {"first", "before", "after"} <= names(state_alone(tmp_path))
