"""The log of the real binary: `log.format: json` writes one object a line, and a listener's
`log_connections` writes one line per session end (text or JSON) with its client, member, bytes
and how it ended."""
import json
import re
import socket

from testing.harness.vigil_process import EchoServer, Vigil, echo_once
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
log: {{format: {format}}}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters, log_connections: true}}
  - {{name: quiet, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms, fast_interval: 100ms, timeout: 500ms,
                      healthy_threshold: 1, unhealthy_threshold: 1}}
    members:
      - {{name: e1, address: 127.0.0.1, port: {port}}}
"""


def _start(tmp_path, cleanup, fmt):
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, CONFIG.format(format=fmt, port=echo.port))
    cleanup(vigil)
    vigil.wait_member("e1", "ONLINE")
    return vigil, echo


def _events(vigil):
    return [json.loads(line) for line in vigil.log_text().splitlines() if line.strip()]


def test_json_log_is_one_object_a_line_with_connections_and_transitions(tmp_path, cleanup):
    vigil, echo = _start(tmp_path, cleanup, "json")
    payloads = [b"a" * 10, b"b" * 2000, b"c" * 70000]
    for p in payloads:
        assert echo_once(*vigil.listener("api"), p) == p
    assert echo_once(*vigil.listener("quiet"), b"unlogged") == b"unlogged"

    connections = wait_for(lambda: [e for e in _events(vigil) if e["event"] == "connection"]
                           if len([e for e in _events(vigil) if e["event"] == "connection"]) >= 3
                           else None, 10, what="three connection events")
    assert len(connections) == 3, "the quiet listener logs nothing"
    assert sorted(c["bytes_in"] for c in connections) == [len(p) for p in payloads]
    for c in connections:
        assert c["bytes_out"] == c["bytes_in"]
        assert c["listener"] == "api"
        assert (c["pool"], c["member"]) == ("masters", "e1")
        assert c["member_address"] == f"127.0.0.1:{echo.port}"
        assert c["client"].startswith("127.0.0.1:")
        assert c["end"] == "client_close"
        assert c["level"] == "info" and c["retries"] == 0 and c["replayed"] is False
        assert 0 <= c["connect_ms"] <= c["duration_ms"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", c["time"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", c["accepted_at"])

    # A member going down: its transition as an event with its fields, counts included.
    held = socket.create_connection(vigil.listener("api"), timeout=10)
    cleanup(type("H", (), {"stop": held.close})())
    held.sendall(b"x")
    assert held.recv(1) == b"x"
    echo.stop()  # refuses new connects; the held session's handler lives on
    vigil.wait_member("e1", "ERROR")
    down = wait_for(lambda: [e for e in _events(vigil) if e["event"] == "member_transition"
                             and e["to"] == "ERROR"], 10, what="the transition event")[0]
    assert down["level"] == "warn"
    assert (down["pool"], down["member"], down["from"]) == ("masters", "e1", "ONLINE")
    assert "refused" in down["reason"]
    assert "DOWN" in down["message"]
    for key in ("sessions_closed", "retries", "hedges", "replays", "failed_sessions"):
        assert isinstance(down[key], int), key
    closed = wait_for(lambda: [e for e in _events(vigil) if e["event"] == "member_disruption"],
                      10, what="the disruption event")[0]
    assert closed["sessions_closed"] == 1 and closed["status"] == "ERROR", closed
    ended = wait_for(lambda: [e for e in _events(vigil)
                              if e["event"] == "connection" and e["end"] == "member_down"],
                     10, what="the held session's connection event")[0]
    assert ended["bytes_in"] == 1 and ended["bytes_out"] == 1
    # Everything else vigil said is an event too: every line parsed above.
    assert any(e["event"] == "log" for e in _events(vigil))


TEXT_LINE = re.compile(
    r"info connection listener api client 127\.0\.0\.1:\d+ member masters/e1 127\.0\.0\.1:(\d+) "
    r"connect \d+ms duration \d+ms bytes_in (\d+) bytes_out (\d+) end (\w+)$", re.M)


def test_text_connection_log_says_who_how_much_and_how_it_ended(tmp_path, cleanup):
    vigil, echo = _start(tmp_path, cleanup, "text")
    assert echo_once(*vigil.listener("api"), b"hello") == b"hello"
    line = wait_for(lambda: TEXT_LINE.search(vigil.log_text()), 10, what="the connection line")
    assert line.groups() == (str(echo.port), "5", "5", "client_close"), line.group(0)


DISABLED = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
log: {{format: json}}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms, timeout: 500ms}}
    members:
      - {{name: e1, address: 127.0.0.1, port: {port}}}
      - {{name: spare, address: 127.0.0.1, port: {port}, weight: 0}}
"""


def test_json_log_tells_a_health_change_the_status_hides(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, DISABLED.format(port=echo.port))
    cleanup(vigil)
    vigil.wait_member("e1", "ONLINE")
    health = wait_for(lambda: [e for e in _events(vigil) if e["event"] == "member_health"], 10,
                      what="the weight-0 member's health event")
    assert len(health) == 1, health
    h = health[0]
    assert (h["pool"], h["member"], h["health"], h["status"]) == ("masters", "spare", "up",
                                                                  "DRAINING")
    assert h["hidden_by"] == "weight 0 in the config" and h["level"] == "info"
    assert h["address"] == f"127.0.0.1:{echo.port}" and h["reason"] == "ok"
    assert "health UP: ok (first check" in h["message"] and "stays DRAINING" in h["message"]
    assert not [e for e in _events(vigil)
                if e["event"] == "member_transition" and e["member"] == "spare"]
