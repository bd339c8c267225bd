"""Tests of vigil-apisim, the kube-apiserver simulator, through real sockets on loopback.

Run: /usr/bin/python3 -m pytest testing/apisim/apisim_test.py
The binary comes from $VIGIL_APISIM, else build/dev/testing/apisim/vigil-apisim (relative to the
repository root).
"""

import http.client
import json
import os
import pathlib
import signal
import socket
import ssl
import subprocess
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
WAIT = 10.0  # the bound on every wait in this file, in seconds


def binary():
    path = pathlib.Path(os.environ.get(
        "VIGIL_APISIM", os.environ.get("VIGIL_BUILD", "build/dev") + "/testing/apisim/vigil-apisim"))
    if not path.is_absolute():
        path = REPO / path
    if not path.exists():
        pytest.fail(f"{path} not found: build target vigil-apisim or set VIGIL_APISIM")
    return path


def poll(condition, what, timeout=WAIT, interval=0.05):
    """Calls condition() until it returns a true value, which is returned; fails after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Sim:
    def __init__(self, directory, *args, plain=False):
        self.plain = plain
        directory.mkdir()
        ready = directory / "ready"
        self.log = open(directory / "apisim.log", "w+b")
        cmd = [str(binary()), "--ready-file", str(ready), *args] + (["--plain"] if plain else [])
        self.proc = subprocess.Popen(cmd, stderr=self.log)

        def address():
            if self.proc.poll() is not None:
                pytest.fail(f"apisim exited with {self.proc.returncode}: {self.stderr()}")
            return ready.exists() and ready.read_text()

        text = poll(address, "the ready file")
        assert text.endswith("\n")
        host, _, port = text.strip().rpartition(":")
        self.host, self.port = host.strip("[]"), int(port)

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def connection(self, timeout=5):
        if self.plain:
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=context)

    def request(self, path, method="GET"):
        """Returns (status, headers, body text) of one request on a new connection."""
        conn = self.connection()
        try:
            conn.request(method, path)
            response = conn.getresponse()
            return response.status, response.headers, response.read().decode()
        finally:
            conn.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        self.log.close()


@pytest.fixture
def start(tmp_path):
    sims = []

    def start_sim(*args, plain=False):
        sims.append(Sim(tmp_path / f"sim{len(sims)}", *args, plain=plain))
        return sims[-1]

    yield start_sim
    for sim in sims:
        sim.stop()


def test_readyz_ok(start):
    sim = start("--name", "master-02")
    status, headers, body = sim.request("/readyz")
    assert (status, body) == (200, "ok")
    assert headers["X-Served-By"] == "master-02"


def test_readyz_verbose_lists_every_check(start):
    sim = start()
    status, _, body = sim.request("/readyz?verbose")
    lines = body.strip().split("\n")
    assert status == 200
    assert lines[-1] == "readyz check passed"
    assert "[+]etcd ok" in lines and "[+]shutdown ok" in lines
    assert all(line.startswith("[+]") for line in lines[:-1])


def test_node_and_version(start):
    sim = start()
    status, headers, body = sim.request("/api/v1/nodes/master-01")
    node = json.loads(body)
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert (node["kind"], node["metadata"]["name"]) == ("Node", "master-01")
    assert {"type": "Ready", "status": "True"}.items() <= node["status"]["conditions"][-1].items()
    status, _, body = sim.request("/version")
    assert status == 200 and json.loads(body)["gitVersion"] == "v1.29.0"
    status, _, body = sim.request("/no/such/path")
    assert status == 404 and json.loads(body)["kind"] == "Status"


def test_warmup_fails_readyz_and_api_then_recovers(start):
    sim = start("--warmup", "2s")
    status, _, body = sim.request("/readyz")
    assert status == 500 and "[-]informer-sync failed" in body
    status, _, body = sim.request("/api/v1/nodes/x")
    assert status == 401 and json.loads(body)["reason"] == "Unauthorized"
    assert sim.request("/livez")[0] == 200
    poll(lambda: sim.request("/readyz")[0] == 200, "/readyz to pass after warmup")
    assert sim.request("/api/v1/nodes/master-01")[0] == 200


def test_sim_control_fails_etcd(start):
    sim = start()
    assert sim.request("/sim/readyz?fail=etcd", method="POST")[0] == 200
    status, _, body = sim.request("/readyz?verbose")
    assert status == 500 and "[-]etcd failed" in body and "[+]ping ok" in body
    assert sim.request("/sim/readyz?fail=", method="POST")[0] == 200
    assert sim.request("/readyz")[0] == 200
    assert sim.request("/sim/status?code=503", method="POST")[0] == 200
    assert sim.request("/readyz")[0] == 503


def reset_by(sim, first):
    """True when a new connection, after sending `first`, is reset; False on an answer or a clean
    close. The reset may come before connect() returns, while sending, or while reading: every
    wait is bounded by the socket's timeout."""
    try:
        with socket.create_connection((sim.host, sim.port), timeout=WAIT) as s:
            if first:
                s.sendall(first)
            s.recv(1)
    except (ConnectionResetError, BrokenPipeError):
        return True
    return False


def test_connection_faults_reset_new_connections_only(start):
    sim = start(plain=True)
    kept = sim.connection()  # opened before the fault: served as usual while it lasts
    kept.request("GET", "/readyz")
    assert kept.getresponse().read() == b"ok"
    assert sim.request("/sim/fault?mode=bogus", method="POST")[0] == 400
    for mode in ("reset", "read-reset"):
        kept.request("POST", f"/sim/fault?mode={mode}")
        response = kept.getresponse()
        assert response.status == 200 and json.loads(response.read())["connectionFault"] == mode
        first = b"\x16\x03\x01\x00\x05hello" if mode == "read-reset" else b""  # a ClientHello's start
        assert reset_by(sim, first), f"{mode}: a new connection was not reset"
    kept.request("POST", "/sim/fault?mode=none")
    assert kept.getresponse().read()
    kept.close()
    assert sim.request("/readyz")[0] == 200


def refused(sim):
    try:
        socket.create_connection((sim.host, sim.port), timeout=1).close()
        return False
    except ConnectionRefusedError:
        return True


def test_sigterm_fails_readyz_then_closes(start):
    sim = start("--shutdown-delay", "2s")
    sim.proc.send_signal(signal.SIGTERM)

    def readyz_failing():
        status, _, body = sim.request("/readyz?verbose")
        return status == 500 and body

    assert "[-]shutdown failed" in poll(readyz_failing, "/readyz to fail after SIGTERM")
    assert sim.request("/version")[0] == 200
    poll(lambda: refused(sim), "the listener to close")
    assert sim.proc.wait(timeout=WAIT) == 0


def test_garbage_does_not_kill_it(start):
    for sim in (start(), start(plain=True)):
        tls_junk = b"\x16\x03\x01\xff\xff" + os.urandom(4096)
        for garbage in (tls_junk, b"GET / HTTP/9.9\r\n\x00\r\n\r\n", os.urandom(70000)):
            with socket.create_connection((sim.host, sim.port), timeout=5) as s:
                try:  # the server may close before it has read everything
                    s.sendall(garbage)
                    s.shutdown(socket.SHUT_WR)
                    while s.recv(4096):  # until the server closes the connection
                        pass
                except OSError:  # reset, broken pipe, or not connected any more: closed either way
                    pass
        assert sim.request("/readyz")[1]["X-Served-By"] == "master-01"
        assert sim.proc.poll() is None


def test_watch_streams_events(start):
    sim = start("--watch-interval", "100ms", plain=True)
    conn = sim.connection()
    conn.request("GET", "/api/v1/nodes?watch=true")
    response = conn.getresponse()
    assert response.status == 200 and response.headers["Transfer-Encoding"] == "chunked"
    events = [json.loads(response.readline()) for _ in range(5)]
    assert [e["type"] for e in events] == ["ADDED"] * 3 + ["MODIFIED"] * 2
    assert events[0]["object"]["kind"] == "Node"
    conn.close()
