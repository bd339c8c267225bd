"""vigil upgraded three times in a row under load, in its own network namespace: a new TLS
connection every 20 ms sees no refusal and no reset, a watch opened before each upgrade ends only
when the old process's shutdown_grace (3 s) runs out, and the new process shows every member's
health state as the old one had it (the monitor's interval is an hour: a state the new process
shows right after the upgrade can only be the one it was handed). master-03 is not started, so
one member is down throughout and must stay out of rotation in every process. Bounded: about
20 s."""
import http.client
import json
import os
import signal
import threading
import time
import urllib.request
from pathlib import Path

from testing.harness.netns import (LB_HOST, MASTERS, TOKEN, Master, http_get, insecure_tls,
                                   vigil_config)
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for
from system_checks import requires_netns

pytestmark = requires_netns

PORT = 6443
GRACE = 3.0
UPGRADES = 3
PERIOD = 0.02  # the connection loop's
MONITOR = {"type": "HTTPS", "path": "/readyz", "interval": "1h", "fast_interval": "1h",
           "timeout": "1s", "healthy_threshold": 2, "unhealthy_threshold": 2}


class ConnectLoop:
    """A new TLS connection and one GET every 20 ms; every failure noted with its reason."""

    def __init__(self, ns):
        self.stop = threading.Event()
        self.ok = 0
        self.failures = []
        self.thread = ns.thread(self.run, "connect-loop")
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            try:
                status = http_get(LB_HOST, PORT, "/api/v1/nodes/master-01", timeout=5)[0]
                if status == 200:
                    self.ok += 1
                else:
                    self.failures.append(f"HTTP {status}")
            except (OSError, http.client.HTTPException) as e:
                self.failures.append(repr(e))
            self.stop.wait(PERIOD)


class Watch:
    """One watch stream: when it ended (monotonic) and how."""

    def __init__(self, ns):
        self.opened = threading.Event()
        self.ended = None
        self.how = ""
        self.thread = ns.thread(self.run, "watch")
        self.thread.start()
        assert self.opened.wait(10), "the watch did not open"

    def run(self):
        conn = http.client.HTTPSConnection(LB_HOST, PORT, timeout=30, context=insecure_tls())
        try:
            conn.request("GET", "/api/v1/nodes?watch=true")
            r = conn.getresponse()
            assert r.status == 200
            self.opened.set()
            while r.read1(65536):
                pass
            self.how = "ended"
        except (OSError, http.client.HTTPException) as e:
            self.how = repr(e)
        finally:
            self.ended = time.monotonic()
            conn.close()


def status(admin):
    req = urllib.request.Request(f"http://{admin}/v1/status", headers={"X-Auth-Token": TOKEN})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=2) as r:
        return json.loads(r.read())


def health(admin):
    """What each member's health state is, as the status shows it."""
    return {m["name"]: (m["operating_status"], m["in_rotation"], m["health"],
                        m["check"] and m["check"]["reason"], m["check"] and m["check"]["at"],
                        m["state_since"], m["consecutive_successes"], m["consecutive_failures"])
            for p in status(admin)["pools"] for m in p["members"]}


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_three_upgrades_under_load(netns, tmp_path):
    for name in ("master-01", "master-02"):
        Master(netns, tmp_path, name, MASTERS[name])
    (tmp_path / "token").write_text(TOKEN + "\n")
    config = tmp_path / "vigil.yaml"
    config.write_text(f"shutdown_grace: {GRACE:g}s\n" +
                      vigil_config(PORT, tmp_path / "token", monitor=MONITOR))
    ready = tmp_path / "vigil.ready"
    log_path = tmp_path / "vigil.log"
    first = netns.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready], log_path)
    info = json.loads(read_ready_file(ready, first))
    admin = info["admin"]
    netns.call(wait_for, lambda: netns.call(health, admin)["master-02"][0] == "ONLINE", 10)
    before = netns.call(health, admin)
    assert before["master-03"][:2] == ("ERROR", False), before
    assert before["master-01"][:2] == ("ONLINE", True), before

    loop = ConnectLoop(netns)
    try:
        wait_for(lambda: loop.ok >= 10, 10, what="the loop's first connections")
        pid = info["pid"]
        for n in range(UPGRADES):
            watch = Watch(netns)
            served = loop.ok
            os.kill(pid, signal.SIGUSR2)
            new = wait_for(lambda: (p := json.loads(ready.read_text() or "{}").get("pid")) != pid
                           and p, 15, what=f"upgrade {n + 1}: a new process")
            wait_for(lambda: f"upgrade: pid {new} is ready; pid {pid} stops accepting"
                     in log_path.read_text(errors="replace"), 15, what=f"pid {pid} to hand over")
            handed_over = time.monotonic()
            # At once, before any check could have run in the new process.
            assert netns.call(health, admin) == before, f"upgrade {n + 1}: health not carried over"
            wait_for(lambda: watch.ended is not None, GRACE + 5, what=f"the watch of pid {pid}")
            held = watch.ended - handed_over
            assert GRACE - 0.5 <= held <= GRACE + 2.0, \
                f"upgrade {n + 1}: the watch ended {held:.2f} s after the handover ({watch.how})"
            wait_for(lambda: not alive(pid), 5, what=f"pid {pid} to exit after its grace")
            assert loop.ok > served, f"upgrade {n + 1}: no connection went through meanwhile"
            pid = new
        served = loop.ok
        wait_for(lambda: loop.ok >= served + 10, 10, what="connections to the last process")
    finally:
        loop.stop.set()
        loop.thread.join(10)
    assert loop.failures == [], f"{len(loop.failures)} failed of {loop.ok + len(loop.failures)}: " \
                                f"{loop.failures[:5]}"
    text = log_path.read_text(errors="replace")
    assert text.count("took the health state of 3 members") == UPGRADES
    assert first.wait(timeout=5) == 0
