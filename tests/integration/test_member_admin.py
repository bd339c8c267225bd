"""Day-2 operations on a running vigil: `vigil member drain|maint|ready|weight` against the real
daemon with two echo servers behind pool `masters` (and pool `others` sharing the name master-02,
which one command drains from both): drain keeps a held session and `--wait` returns when it closes; maint closes sessions and checks go
on; the overrides survive SIGHUP and a restart (the same state_file) and go with `ready`.
Every wait is bounded.
"""
import json
import signal
import subprocess

from testing.harness.paths import VIGIL
from testing.harness.vigil_process import (TOKEN, EchoServer, Vigil, closed_by_peer, echo_once,
                                           hold, saved_state, start_with_two_echo_members)
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}}
    members:
      - {{name: master-01, address: 127.0.0.1, port: {p1}}}
      - {{name: master-02, address: 127.0.0.1, port: {p2}}}
{others}"""

OTHERS = """  - name: others
    members:
      - {{name: master-02, address: 127.0.0.1, port: {p2}}}
"""


def config(tmp_path, b1, b2, others=True):
    text = CONFIG.format(state=tmp_path / "state.json", p1=b1.port, p2=b2.port,
                         others=OTHERS.format(p2=b2.port) if others else "")
    return text


def member(vigil, pool, name):
    for p in vigil.status()["pools"]:
        if p["name"] == pool:
            return next(m for m in p["members"] if m["name"] == name)
    raise AssertionError(f"no pool {pool}")


def wait_state(vigil, name, status, pool="masters", timeout=10):
    return wait_for(lambda: (m := member(vigil, pool, name))["operating_status"] == status and m,
                    timeout, what=f"{pool}/{name} {status}")


def start(tmp_path, cleanup):
    return start_with_two_echo_members(tmp_path, cleanup, lambda b1, b2: config(tmp_path, b1, b2),
                                       wait=wait_state)


def test_member_verbs_drain_wait_maint_and_persistence(tmp_path, cleanup):
    vigil, b1, b2 = start(tmp_path, cleanup)

    for verb in ("drain", "maint", "ready", "weight"):
        helped = vigil.cli("member", verb, "--help")
        assert helped.returncode == 0 and "vigil member" in helped.stdout, helped.stderr
    # A name in two pools (a host behind two listeners): one command drains it from both, and
    # an address names every member on that host.
    both = vigil.cli("member", "drain", "master-02")
    assert both.returncode == 0, both.stderr
    assert "pool masters member master-02: drain" in both.stdout, both.stdout
    assert "pool others member master-02: drain" in both.stdout, both.stdout
    assert member(vigil, "others", "master-02")["admin_override"]["state"] == "drain"
    wait_state(vigil, "master-02", "DRAINING")
    readied = vigil.cli("member", "ready", "127.0.0.1")
    assert readied.returncode == 0, readied.stderr
    assert readied.stdout.count("ready (no override)") == 3, readied.stdout
    wait_state(vigil, "master-02", "ONLINE")
    assert member(vigil, "others", "master-02")["admin_override"] is None
    assert vigil.cli("member", "drain", "master-09").returncode == 1
    assert vigil.cli("member", "weight", "masters/master-02", "300").returncode == 2
    assert vigil.cli("member", "maint", "master-01", "--wait").returncode == 2

    # weight 0 on master-02: every new session goes to master-01.
    weighed = vigil.cli("member", "weight", "masters/master-02", "0")
    assert weighed.returncode == 0, weighed.stderr
    m2 = wait_state(vigil, "master-02", "DRAINING")
    assert m2["admin_override"]["weight"] == 0 and not m2["in_rotation"]
    held = hold(vigil)
    wait_for(lambda: member(vigil, "masters", "master-01")["active_connections"] == 1, 5,
             what="the held session on master-01")
    assert vigil.cli("member", "ready", "masters/master-02").returncode == 0
    wait_state(vigil, "master-02", "ONLINE")

    # drain --wait: new sessions go elsewhere, the held one goes on, --wait returns once it ends.
    env = dict(__import__("os").environ, VIGIL_ADMIN=f"http://{vigil.admin}", VIGIL_TOKEN=TOKEN)
    waiting = subprocess.Popen([str(VIGIL), "member", "drain", "master-01", "--wait=20s"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = waiting.stdout.readline()
    assert "DRAINING" in first and "drain" in first, first
    assert "1 active sessions remain" in waiting.stdout.readline()
    m1 = member(vigil, "masters", "master-01")
    assert m1["operating_status"] == "DRAINING" and not m1["in_rotation"]
    assert m1["admin_override"]["state"] == "drain" and m1["admin_override"]["by"].startswith("CLI")
    accepted = b1.accepted
    assert echo_once(*vigil.listener("api"), b"new") == b"new"
    assert b1.accepted == accepted, "a new session reached the drained member"
    held.sendall(b"still")
    assert held.recv(100) == b"still"
    assert waiting.poll() is None, "--wait returned with a session left"
    held.close()
    out, err = waiting.communicate(timeout=10)
    assert waiting.returncode == 0, err
    assert "no active sessions left" in out
    assert "DRAINING: admin drain, set by CLI" in vigil.log_text()
    table = vigil.cli("members", "masters")
    assert table.returncode == 0 and "drain, set" in table.stdout and "by CLI" in table.stdout

    # maint closes master-02's sessions; its checks go on.
    held2 = hold(vigil)
    wait_for(lambda: member(vigil, "masters", "master-02")["active_connections"] == 1, 5,
             what="the held session on master-02")
    assert vigil.cli("member", "maint", "masters/master-02").returncode == 0
    wait_state(vigil, "master-02", "OFFLINE")
    assert wait_for(lambda: closed_by_peer(held2), 5, what="the session closed")
    held2.close()
    at = member(vigil, "masters", "master-02")["check"]["at"]
    wait_for(lambda: member(vigil, "masters", "master-02")["check"]["at"] != at, 5,
             what="a check of the member in maintenance")

    # Both overrides survive a reload and a restart.
    logged = vigil.log_text().count("reloaded")
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: vigil.log_text().count("reloaded") > logged, 10, what="the reload")
    assert member(vigil, "masters", "master-01")["admin_override"]["state"] == "drain"
    assert member(vigil, "masters", "master-02")["admin_override"]["state"] == "maint"
    assert vigil.stop() == 0
    vigil = Vigil(tmp_path, config(tmp_path, b1, b2))
    cleanup(vigil)
    assert wait_state(vigil, "master-01", "DRAINING")["admin_override"]["by"].startswith("CLI")
    assert wait_state(vigil, "master-02", "OFFLINE")["admin_override"]["state"] == "maint"
    assert not member(vigil, "masters", "master-01")["in_rotation"]

    # ready clears them, for good.
    assert vigil.cli("member", "ready", "master-01").returncode == 0
    assert vigil.cli("member", "ready", "masters/master-02").returncode == 0
    wait_state(vigil, "master-01", "ONLINE")
    wait_state(vigil, "master-02", "ONLINE")
    assert member(vigil, "masters", "master-01")["admin_override"] is None
    assert "member_overrides" not in saved_state(tmp_path / "state.json")


def test_a_drained_member_that_dies_and_comes_back_is_logged(tmp_path, cleanup):
    """A drain hides the member's health from its status (it stays DRAINING), not from the log:
    the operator learns that it died before making it ready again."""
    vigil, b1, b2 = start(tmp_path, cleanup)
    assert vigil.cli("member", "drain", "masters/master-01").returncode == 0
    wait_state(vigil, "master-01", "DRAINING")
    port = b1.port
    b1.stop()
    down = f"pool masters member master-01 127.0.0.1:{port} health DOWN: connection refused"
    wait_for(lambda: down in vigil.log_text(), 10, what="the health DOWN line")
    line = next(x for x in vigil.log_text().splitlines() if down in x)
    assert "; stays DRAINING (admin drain, set by CLI" in line, line
    assert member(vigil, "masters", "master-01")["operating_status"] == "DRAINING"
    assert "DOWN (was" not in vigil.log_text(), "a status transition where there was none"

    revived = EchoServer(port)
    cleanup(revived)
    up = f"pool masters member master-01 127.0.0.1:{port} health UP"
    wait_for(lambda: up in vigil.log_text(), 10, what="the health UP line")
    assert vigil.cli("member", "ready", "masters/master-01").returncode == 0
    wait_state(vigil, "master-01", "ONLINE")


def test_a_member_removed_from_the_config_drops_its_override(tmp_path, cleanup):
    vigil, b1, b2 = start(tmp_path, cleanup)
    assert vigil.cli("member", "drain", "others/master-02").returncode == 0
    state = saved_state(tmp_path / "state.json")
    assert len(state["member_overrides"]) == 1
    vigil.config.write_text(config(tmp_path, b1, b2, others=False).replace(
        "@TOKEN_FILE@", str(tmp_path / "token")))
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "member_overrides" not in saved_state(tmp_path / "state.json"),
             10, what="the override dropped from the state file")
    assert "no longer configured; its admin override (drain) is dropped" in vigil.log_text()
