"""Established sessions of a running vigil: GET /v1/sessions lists them (client, member, age,
bytes each way) with pool and member filters, and POST /v1/sessions/kill closes a member's,
each logged as killed by the operator. Two workers, two echo members; every wait is bounded."""
import json
import re
import urllib.request

from testing.harness.vigil_process import TOKEN, closed_by_peer, hold, start_with_two_echo_members
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 2
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters, log_connections: true}}
pools:
  - name: masters
    algorithm: least_connections
    health_monitor: {{type: TCP, interval: 1s, timeout: 500ms}}
    members:
      - {{name: master-01, address: 127.0.0.1, port: {p1}}}
      - {{name: master-02, address: 127.0.0.1, port: {p2}}}
"""


CONNECTION_END = re.compile(r"info connection listener api client (\S+) member masters/(\S+) .* "
                            r"end (\w+)$", re.M)


def post(vigil, path, body):
    req = urllib.request.Request(f"http://{vigil.admin}{path}", data=json.dumps(body).encode(),
                                 method="POST", headers={"X-Auth-Token": TOKEN})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def sessions(vigil, query=""):
    code, body = vigil.get("/v1/sessions" + query)
    assert code == 200, body
    return json.loads(body)


def start(tmp_path, cleanup):
    return start_with_two_echo_members(tmp_path, cleanup,
                                       lambda b1, b2: CONFIG.format(p1=b1.port, p2=b2.port))


def test_sessions_are_listed_filtered_and_killed(tmp_path, cleanup):
    vigil, b1, b2 = start(tmp_path, cleanup)
    held = [hold(vigil, b"x" * (100 + i)) for i in range(4)]
    by_client = {"%s:%d" % s.getsockname(): s for s in held}

    # The kernel counts a session's bytes as they are acknowledged: poll until all are in.
    listed = wait_for(lambda: (l := sessions(vigil)) and l["total"] == 4 and
                      all(r["bytes_out"] == r["bytes_in"] > 0 for r in l["sessions"]) and l,
                      timeout=5, what="four sessions with their bytes")
    assert listed["truncated"] is False
    members = {"master-01": f"127.0.0.1:{b1.port}", "master-02": f"127.0.0.1:{b2.port}"}
    for row in listed["sessions"]:
        assert row["listener"] == "api" and row["pool"] == "masters"
        assert row["member_address"] == members[row["member"]]
        sent = len(b"x") * (100 + held.index(by_client[row["client"]]))
        assert row["bytes_in"] == sent and row["bytes_out"] == sent
        assert 0 <= row["age_seconds"] < 60
    assert len({r["id"] for r in listed["sessions"]}) == 4
    # least_connections spreads four sessions two and two.
    on_first = [r for r in listed["sessions"] if r["member"] == "master-01"]
    assert len(on_first) == 2

    only = sessions(vigil, "?pool=masters&member=master-01")
    assert only["total"] == 2 and {r["id"] for r in only["sessions"]} == {r["id"] for r in on_first}
    assert sessions(vigil, "?member=master-02")["total"] == 2
    assert sessions(vigil, "?pool=masters")["total"] == 4
    code, body = vigil.get("/v1/sessions?member=nope")
    assert code == 404 and "nope" in body
    code, body = vigil.get("/v1/sessions?pool=nope")
    assert code == 404 and "nope" in body

    assert post(vigil, "/v1/sessions/kill", {"pool": "masters", "member": "master-01"}) == \
        (200, {"killed": 2})
    for row in on_first:
        assert closed_by_peer(by_client[row["client"]])
    left = sessions(vigil)
    assert left["total"] == 2 and all(r["member"] == "master-02" for r in left["sessions"])
    # The other sessions pass bytes as before.
    for row in left["sessions"]:
        s = by_client[row["client"]]
        s.sendall(b"still")
        assert s.recv(100) == b"still"

    code, body = post(vigil, "/v1/sessions/kill", {"pool": "masters"})
    assert code == 400 and "member" in body["faultstring"]
    assert post(vigil, "/v1/sessions/kill", {"member": "nope"})[0] == 404
    assert "closed 2 sessions of member master-01" in vigil.log_text()
    # The connection log says who ended them: the operator, not a member marked down.
    ended = wait_for(lambda: (e := CONNECTION_END.findall(vigil.log_text())) and len(e) >= 2 and e,
                     timeout=5, what="the killed sessions' connection lines")
    assert sorted(ended) == sorted((r["client"], "master-01", "killed") for r in on_first), ended
    for s in held:
        s.close()


def test_listing_needs_the_token(tmp_path, cleanup):
    vigil, _, _ = start(tmp_path, cleanup)
    assert vigil.get("/v1/sessions", token=None)[0] == 401
    assert vigil.get("/v1/sessions", token="wrong")[0] == 401
