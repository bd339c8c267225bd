"""A dead DNS server never stalls the control thread: a reload that adds a member by host name,
while the only name server takes queries and never answers, returns at once, /healthz keeps
answering within 1 s (a control thread that waited on the lookup would answer after the 5 s of
the resolver's timeout, or not within the client's 2 s), the other member keeps serving, and the named member is ERROR with a
"DNS: ..." reason until its lookup gives up.

The namespace's own resolv.conf (`ip netns exec` bind-mounts /etc/netns/NAME/resolv.conf over
/etc/resolv.conf) names 127.0.0.1, where a UDP socket inside the namespace swallows every query.
"""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from testing.harness.netns import TOKEN, http_get, load_average
from testing.harness.paths import VIGIL
from testing.harness.wait import wait_for

ADMIN = ("127.0.0.1", 8404)
DEAD_NAME = "api.dead-resolver.test"

SINK = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
while True:
    data, peer = s.recvfrom(4096)
    print("query", len(data), flush=True)
"""


def config(token_file, named_member):
    extra = f"\n      - {{name: m2, address: {DEAD_NAME}, port: 6443}}" if named_member else ""
    return f"""
admin:
  listen: 127.0.0.1:8404
  token_file: {token_file}
listeners:
  - {{name: api, bind: "127.0.0.1:6443", pool: masters}}
pools:
  - name: masters
    health_monitor: none
    members:
      - {{name: m1, address: 127.0.0.11, port: 6443}}{extra}
"""


def healthz_ms(netns):
    start = time.monotonic()
    status, _, body = netns.call(http_get, *ADMIN, "/healthz", 2.0, False)
    return status, body, (time.monotonic() - start) * 1000


def serving(netns):
    try:
        return healthz_ms(netns)[0] == 200
    except OSError:
        return False  # not listening yet


def member(netns, name):
    status, _, body = netns.call(http_get, *ADMIN, "/v1/status", 2.0, False,
                                 {"X-Auth-Token": TOKEN})
    assert status == 200, body
    return next(m for p in json.loads(body)["pools"] for m in p["members"] if m["name"] == name)


def test_a_dead_resolver_does_not_delay_healthz(netns, tmp_path):
    etc = Path("/etc/netns") / netns.name
    etc.mkdir(parents=True)
    try:
        (etc / "resolv.conf").write_text("nameserver 127.0.0.1\noptions timeout:5 attempts:2\n")
        sink_log = tmp_path / "sink.log"
        netns.spawn([sys.executable, "-c", SINK], sink_log)
        token = tmp_path / "token"
        token.write_text(TOKEN + "\n")
        cfg = tmp_path / "vigil.yaml"
        cfg.write_text(config(token, named_member=False))
        vigil = netns.spawn([VIGIL, "serve", "-c", cfg], tmp_path / "vigil.log")
        wait_for(lambda: serving(netns), 15, what="vigil serving")

        cfg.write_text(config(token, named_member=True))
        vigil.send_signal(signal.SIGHUP)
        wait_for(lambda: "query" in sink_log.read_text(), 10, what="the name server asked")
        worst = 0.0
        deadline = time.monotonic() + 4.0  # within the 10 s the lookup hangs
        while time.monotonic() < deadline:
            status, body, ms = healthz_ms(netns)
            assert (status, body) == (200, "ok\n")
            worst = max(worst, ms)
            time.sleep(0.05)
        # 1 s, not less: on a loaded 2-core machine a plain /healthz took 145 ms (2026-12-04, load
        # average about 6), while a control thread that waited on the lookup would answer only
        # after the resolver's 5 s timeout, past the client's 2 s.
        assert worst < 1000, (f"/healthz took {worst:.0f} ms while the lookup hung (bound 1000 ms; "
                              f"load average {load_average():.1f})")
        assert "reloaded" in (tmp_path / "vigil.log").read_text()
        m2 = member(netns, "m2")
        assert m2["operating_status"] == "ERROR"
        assert m2["check"]["detail"].startswith("DNS: ")
        assert member(netns, "m1")["operating_status"] == "NO_MONITOR"
        # The lookup gives up (resolv.conf: 5 s x 2 attempts); the reason then says why.
        wait_for(lambda: "cannot resolve" in member(netns, "m2")["check"]["detail"], 30,
                 what="the lookup's failure reported")
        assert vigil.poll() is None
    finally:
        subprocess.run(["rm", "-rf", str(etc)], timeout=10)
