"""A client flood against the fd limit: the members stay up, sessions go on, /healthz answers.

An attacker who can reach a listener opens more connections than vigil has descriptors for. The
budget (docs/operations.md, "Limits") keeps descriptors back for the checks and the admin API;
with the budget turned off (VIGIL_FD_RESERVE=0) the checks do run out, and a check that cannot
get a socket must not count against its member.
"""
import http.client
import os
import re
import resource
import socket
import subprocess
import time

import pytest

from testing.harness.paths import SANITIZED
from testing.harness.vigil_process import TOKEN, EchoServer, Vigil
from testing.harness.wait import wait_for

LIMIT = 256
CLIENTS = 600

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 1
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms, fast_interval: 100ms, timeout: 1s,
                      healthy_threshold: 2, unhealthy_threshold: 2}}
    members:
      - {{name: m1, address: 127.0.0.1, port: {p1}}}
      - {{name: m2, address: 127.0.0.1, port: {p2}}}
"""


class LimitedVigil(Vigil):
    """vigil with RLIMIT_NOFILE at `limit` (soft and hard) and extra environment."""

    def __init__(self, tmp_path, text, limit, env=None):
        original = subprocess.Popen

        def popen(*args, **kwargs):
            kwargs["preexec_fn"] = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
            kwargs["env"] = dict(os.environ, **(env or {}))
            return original(*args, **kwargs)

        subprocess.Popen = popen
        try:
            super().__init__(tmp_path, text)
        finally:
            subprocess.Popen = original


@pytest.fixture(autouse=True)
def enough_descriptors_here():
    # 600 clients and the echo servers' side of the sessions live in this process.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2 * CLIENTS:
        pytest.skip(f"this process may open only {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def start(tmp_path, cleanup, env=None, limit=LIMIT):
    members = [EchoServer(), EchoServer()]
    for m in members:
        cleanup(m)
    vigil = LimitedVigil(tmp_path, CONFIG.format(p1=members[0].port, p2=members[1].port), limit, env)
    cleanup(vigil)
    for name in ("m1", "m2"):
        vigil.wait_member(name, "ONLINE")
    return vigil


def flood(host, port):
    """Opens CLIENTS connections as fast as it can and returns those the kernel accepted."""
    clients = []
    for _ in range(CLIENTS):
        try:
            clients.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            pass
    return clients


def echoes(s, payload):
    try:
        s.settimeout(5)
        s.sendall(payload)
        got = b""
        while len(got) < len(payload):
            data = s.recv(65536)
            if not data:
                return False
            got += data
        return got == payload
    except OSError:
        return False


class Admin:
    """One keep-alive connection to the admin API, opened before the flood: with the budget off,
    vigil may have no descriptor left to accept a new one."""

    def __init__(self, vigil):
        host, port = vigil.admin.rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=5)

    def get(self, path):
        self.conn.request("GET", path, headers={"X-Auth-Token": TOKEN})
        r = self.conn.getresponse()
        return r.status, r.read().decode()

    def statuses(self):
        import json
        code, body = self.get("/v1/status")
        assert code == 200, body
        return {m["name"]: m["operating_status"] for p in json.loads(body)["pools"] for m in p["members"]}

    def local_failures(self):
        code, body = self.get("/metrics")
        assert code == 200, body
        return sum(float(v) for v in re.findall(r"^vigil_check_local_failures_total\{[^}]*\} (\S+)$", body, re.M))

    def checks_made(self):
        code, body = self.get("/metrics?name%5B%5D=vigil_member_check_duration_seconds")
        assert code == 200, body
        return sum(float(v) for v in re.findall(
            r"^vigil_member_check_duration_seconds_count\{[^}]*\} (\S+)$", body, re.M))

    def close(self):
        self.conn.close()


def stay_online(admin, seconds):
    # Exposure, not a wait for a condition: several check intervals (200 ms) under the flood,
    # each of which would have counted against members that checks could not reach.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert admin.statuses() == {"m1": "ONLINE", "m2": "ONLINE"}
        time.sleep(0.1)


def test_the_budget_keeps_descriptors_for_checks_and_the_admin_api(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    # 256 descriptors cannot hold the default 50,000 connections: the limit is lowered, said once.
    assert len(re.findall(r"open-file limit is 256: \d+ are kept", vigil.log_text())) == 1
    assert "LimitNOFILE=" in vigil.log_text()
    established = [socket.create_connection(vigil.listener("api"), timeout=5) for _ in range(10)]
    assert all(echoes(s, b"before") for s in established)
    clients = flood(*vigil.listener("api"))
    try:
        admin = Admin(vigil)
        try:
            stay_online(admin, 3)
        finally:
            admin.close()
        # New connections to the admin API, not only a kept one.
        assert vigil.get("/healthz", token=None)[0] == 200
        assert all(echoes(s, b"during") for s in established)
        assert vigil.members()["m1"]["check"]["result"] == "ok"
    finally:
        for s in clients + established:
            s.close()


@pytest.mark.skipif(SANITIZED, reason="the sanitizers' runtime needs descriptors too: paths.SANITIZED")
def test_tcp_checks_keep_their_sockets_through_a_flood(tmp_path, cleanup):
    # The budget off: clients take every descriptor there is. A TCP check reuses the socket the
    # last one left (disconnected), so the checks need none and go on being made.
    vigil = start(tmp_path, cleanup, env={"VIGIL_FD_RESERVE": "0"})
    established = [socket.create_connection(vigil.listener("api"), timeout=5) for _ in range(10)]
    admin = Admin(vigil)
    assert admin.local_failures() == 0  # its connection accepted before the flood, and kept
    clients = flood(*vigil.listener("api"))
    try:
        # A session's connect to a member is the first to find none left.
        wait_for(lambda: "Too many open files" in vigil.log_text(), 15,
                 what="the flood to take every descriptor")
        before = admin.checks_made()
        stay_online(admin, 2)
        assert admin.checks_made() >= before + 10, "checks went on under the flood"
        assert admin.local_failures() == 0
        assert all(echoes(s, b"during") for s in established)
    finally:
        admin.close()
        for s in clients + established:
            s.close()


@pytest.mark.skipif(SANITIZED, reason="the sanitizers' runtime needs descriptors too: paths.SANITIZED")
def test_a_check_that_cannot_get_a_socket_does_not_count_against_the_member(tmp_path, cleanup):
    # Every check opens a socket (none kept between TCP checks), so the flood starves them. It
    # does only when an even number of descriptors is left for sessions (two each): an odd one
    # out is taken by an accept whose connect then fails, freed at once, and a check gets it.
    # Which parity that is depends on how many descriptors vigil holds itself; the netlink socket
    # that watches the host's addresses (2026-12-04) added one, and so does this limit. A fixed
    # descriptor added later flips it again: the wait below then times out, never passes falsely.
    vigil = start(tmp_path, cleanup, env={"VIGIL_FD_RESERVE": "0", "VIGIL_IDLE_CHECK_SOCKETS": "0"},
                  limit=LIMIT + 1)
    established = [socket.create_connection(vigil.listener("api"), timeout=5) for _ in range(10)]
    assert all(echoes(s, b"before") for s in established)
    admin = Admin(vigil)
    assert admin.local_failures() == 0
    clients = flood(*vigil.listener("api"))
    try:
        wait_for(lambda: admin.local_failures() > 0, 15, what="checks to run out of descriptors")
        stay_online(admin, 2)
        assert all(echoes(s, b"during") for s in established)
    finally:
        admin.close()
        for s in clients + established:
            s.close()
    log = vigil.log_text()
    warned = [l for l in log.splitlines() if "checks that cannot be made do not count" in l]
    assert 1 <= len(warned) <= 5, warned  # once per episode, not once per check
    wait_for(lambda: "checks can be made again" in vigil.log_text(), 15, what="the episode to end")
    # Several checks after the episode: a threshold that had counted the local failures would
    # take the members down at the first of them, their counts being the members' no more.
    after = Admin(vigil)
    try:
        stay_online(after, 1)
    finally:
        after.close()
    transitions = [l for l in vigil.log_text().splitlines() if "pool masters member" in l]
    assert len(transitions) == 2, transitions  # the two first checks' UP, nothing since
