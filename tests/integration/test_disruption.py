"""A member that stops answering under sessions: the disruption it caused is counted, in the
transition's log lines, in /metrics and in /v1/status (vigil members --json)."""
import http.client
import json
import re
import signal
import ssl

from testing.harness.vigil_process import ApiSim, Vigil
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 1
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    first_byte_timeout: 500ms
    health_monitor:
      type: HTTPS
      path: /readyz
      interval: 300ms
      fast_interval: 100ms
      timeout: 500ms
      healthy_threshold: 2
      unhealthy_threshold: 2
    members:
      - {{name: master-01, address: 127.0.0.1, port: {p1}}}
      - {{name: master-02, address: 127.0.0.1, port: {p2}}}
"""

DISRUPTION = re.compile(
    r"pool masters member master-01 \S+ \S+, its sessions closed: (\d+) sessions closed, "
    r"(\d+) retried, (\d+) hedged, (\d+) replayed, (\d+) failed")


def _connection(host, port):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return http.client.HTTPSConnection(host, port, timeout=10, context=ctx)


def _get(conn):
    conn.request("GET", "/version")
    r = conn.getresponse()
    r.read()
    return r.status, r.getheader("X-Served-By")


def _metric(vigil, name):
    code, body = vigil.get("/metrics")
    assert code == 200, body
    for line in body.splitlines():
        if line.startswith(name + "{") and 'member="master-01"' in line:
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError(f"{name} for master-01 missing from /metrics")


def test_a_frozen_members_disruption_is_counted(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2)]
    for s in sims:
        cleanup(s)
    vigil = Vigil(tmp_path, CONFIG.format(p1=sims[0].port, p2=sims[1].port))
    cleanup(vigil)
    for s in sims:
        vigil.wait_member(s.name, "ONLINE")
    host, port = vigil.listener("api")

    held = []  # keep-alive sessions; round robin on one worker spreads them over both
    for _ in range(4):
        conn = _connection(host, port)
        cleanup(type("C", (), {"stop": conn.close})())
        status, served_by = _get(conn)
        assert status == 200
        held.append((conn, served_by))
    on_frozen = sum(1 for _, by in held if by == "master-01")
    assert on_frozen >= 1, held

    frozen = sims[0]
    frozen.proc.send_signal(signal.SIGSTOP)  # no FIN, no RST: like a host that lost power
    cleanup(type("Cont", (), {"stop": lambda self: frozen.proc.send_signal(signal.SIGCONT)})())
    # New sessions right after the fault: the one sent to master-01 has its ClientHello replayed
    # to master-02 after first_byte_timeout; the client sees only the delay.
    for _ in range(2):
        conn = _connection(host, port)
        try:
            assert _get(conn) == (200, "master-02")
        finally:
            conn.close()

    vigil.wait_member("master-01", "ERROR")
    line = wait_for(lambda: [m for m in DISRUPTION.finditer(vigil.log_text())
                             if int(m.group(1)) == on_frozen],
                    10, what="the line that counts the sessions closed")[-1]
    closed, retried, hedged, replayed, failed = (int(g) for g in line.groups())
    assert closed == on_frozen, line.group(0)
    assert replayed == 1, line.group(0)
    assert failed == 0, line.group(0)
    assert "DOWN: " in vigil.log_text() and "; closing its sessions" in vigil.log_text()

    # The same counts in /metrics (since the start: master-01 was in service until the fault)
    # and as the member's last disruption in /v1/status, which `vigil members --json` prints.
    assert _metric(vigil, "vigil_member_sessions_closed_total") == closed
    assert _metric(vigil, "vigil_member_replays_total") == replayed
    assert _metric(vigil, "vigil_member_retries_total") == retried
    assert _metric(vigil, "vigil_member_hedges_total") == hedged
    assert _metric(vigil, "vigil_member_failed_sessions_total") == failed
    last = vigil.members()["master-01"]["last_disruption"]
    assert last["status"] == "ERROR" and last["ongoing"] is True, last
    assert (last["sessions_closed"], last["replays"], last["failed_sessions"]) == (closed, replayed, 0)
    assert vigil.members()["master-02"]["last_disruption"] is None
    listed = vigil.cli("members", "--json")
    assert listed.returncode == 0, listed.stderr
    by_name = {m["name"]: m for m in json.loads(listed.stdout)}
    assert by_name["master-01"]["last_disruption"]["sessions_closed"] == closed, by_name
    assert by_name["master-02"]["last_disruption"] is None, by_name

    # Its sessions were closed, not left hanging: the next request on one fails at once.
    for conn, by in held:
        if by == "master-01":
            try:
                _get(conn)
                raise AssertionError("a session on the frozen member still answered")
            except (OSError, http.client.HTTPException):
                pass

    frozen.proc.send_signal(signal.SIGCONT)
    vigil.wait_member("master-01", "ONLINE")
    last = vigil.members()["master-01"]["last_disruption"]
    assert last["ongoing"] is False and last["sessions_closed"] == closed, last
