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

from testing.harness.wait import wait_for

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

        text = wait_for(address, WAIT, what="the ready file")
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
    wait_for(lambda: sim.request("/readyz")[0] == 200, WAIT, what="/readyz to pass after warmup")
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

    failing = wait_for(readyz_failing, WAIT, what="/readyz to fail after SIGTERM")
    assert "[-]shutdown failed" in failing
    assert sim.request("/version")[0] == 200
    wait_for(lambda: refused(sim), WAIT, what="the listener to close")
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


# HTTP/2: what Go clients (kubectl, client-go) speak when the server accepts "h2" in ALPN.

class H2Client:
    """One TLS connection that offered ALPN "h2", driven by the h2 library (python3-h2)."""

    def __init__(self, sim, alpn=("h2", "http/1.1")):
        import h2.config
        import h2.connection
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(list(alpn))
        self.sock = context.wrap_socket(socket.create_connection((sim.host, sim.port), timeout=WAIT))
        self.protocol = self.sock.selected_alpn_protocol()
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.events = []   # (monotonic time, event), every event received so far
        if self.protocol == "h2":
            self.conn.initiate_connection()
            self.flush()

    def flush(self):
        if data := self.conn.data_to_send():
            self.sock.sendall(data)

    def receive(self, timeout):
        """Reads what arrives within timeout (or until the server closes); returns the new events."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except (socket.timeout, TimeoutError):
            return []
        if not data:
            raise ConnectionError("the server closed the connection")
        new = self.conn.receive_data(data)
        now = time.monotonic()
        self.events += [(now, e) for e in new]
        self.flush()   # SETTINGS and PING acks, window updates
        return new

    def wait(self, condition, what, timeout=WAIT):
        """Receives until condition(events) is true; returns its value. Bounded by timeout."""
        deadline = time.monotonic() + timeout
        while not (value := condition([e for _, e in self.events])):
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"HTTP/2: timed out after {timeout}s waiting for {what}")
            self.receive(min(left, 0.5))
        return value

    def get(self, path, method="GET"):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", method), (":path", path), (":scheme", "https"),
                                        (":authority", "apisim")], end_stream=True)
        self.flush()
        return stream

    def response(self, stream, timeout=WAIT):
        """(status, headers, body) of a finished stream."""
        import h2.events
        self.wait(lambda evs: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == stream for e in evs),
                  f"the end of stream {stream}", timeout)
        evs = [e for _, e in self.events if getattr(e, "stream_id", None) == stream]
        headers = {k.decode(): v.decode() for e in evs if isinstance(e, h2.events.ResponseReceived)
                   for k, v in e.headers}
        body = b"".join(e.data for e in evs if isinstance(e, h2.events.DataReceived))
        return int(headers[":status"]), headers, body.decode()

    def request(self, path, method="GET"):
        return self.response(self.get(path, method))

    def ping(self, payload):
        self.conn.ping(payload)
        self.flush()

    def close(self):
        self.sock.close()


@pytest.fixture
def h2client():
    clients = []

    def connect(sim, **kwargs):
        clients.append(H2Client(sim, **kwargs))
        return clients[-1]

    yield connect
    for c in clients:
        c.close()


def test_h2_is_chosen_when_offered_and_http11_stays_for_the_others(start, h2client):
    sim = start("--name", "master-02")
    assert h2client(sim).protocol == "h2"
    assert h2client(sim, alpn=("http/1.1",)).protocol == "http/1.1"
    assert sim.request("/readyz")[1]["X-Served-By"] == "master-02"   # no ALPN at all: HTTP/1.1


def test_h2_serves_what_kubectl_get_nodes_asks_for(start, h2client):
    sim = start("--name", "master-02")
    client = h2client(sim)
    streams = {path: client.get(path) for path in
               ("/readyz?verbose", "/api", "/apis", "/api/v1", "/api/v1/nodes?limit=500", "/version")}
    answers = {path: client.response(stream) for path, stream in streams.items()}  # several at once
    for path, (status, headers, _) in answers.items():
        assert status == 200 and headers["x-served-by"] == "master-02", path
    assert answers["/readyz?verbose"][2].endswith("readyz check passed\n")
    assert json.loads(answers["/api"][2])["kind"] == "APIVersions"
    assert json.loads(answers["/api/v1"][2])["resources"][0]["name"] == "nodes"
    status, headers, body = answers["/api/v1/nodes?limit=500"]
    assert json.loads(body)["kind"] == "NodeList" and int(headers["content-length"]) == len(body)
    status, headers, body = client.request("/version", method="HEAD")
    assert (status, body) == (200, "") and int(headers["content-length"]) > 0
    assert client.request("/no/such/path")[0] == 404


def test_h2_watch_streams_events_and_pings_are_answered(start, h2client):
    import h2.events
    sim = start("--watch-interval", "100ms")
    client = h2client(sim)
    watch = client.get("/api/v1/nodes?watch=true")

    def lines(evs):
        data = b"".join(e.data for e in evs if isinstance(e, h2.events.DataReceived) and e.stream_id == watch)
        return [json.loads(line) for line in data.split(b"\n") if line]

    events = client.wait(lambda evs: len(lines(evs)) >= 5 and lines(evs), "five watch events")
    assert [e["type"] for e in events[:5]] == ["ADDED"] * 3 + ["MODIFIED"] * 2
    client.ping(b"vigil-h2")   # what client-go sends after 30 s without a frame
    ack = client.wait(lambda evs: [e for e in evs if isinstance(e, h2.events.PingAckReceived)], "the PING ack")
    assert ack[0].ping_data == b"vigil-h2"
    status, _, body = client.request("/readyz")   # beside the watch, on the same connection
    assert (status, body) == (200, "ok")


def test_h2_watch_timeout_ends_the_stream(start, h2client):
    import h2.events
    sim = start("--watch-interval", "100ms")
    client = h2client(sim)
    watch = client.get("/api/v1/nodes?watch=true&timeoutSeconds=1")
    client.wait(lambda evs: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == watch for e in evs),
                "the watch to end after timeoutSeconds=1", timeout=5)
    assert client.request("/readyz")[0] == 200   # the connection stays


def test_h2_hang_leaves_pings_unanswered(start, h2client):
    """A frozen server (the hang scenario: SIGSTOP) answers no PING: client-go's health check then
    gives up on the connection. Resumed, it answers."""
    import h2.events
    sim = start()
    client = h2client(sim)
    assert client.request("/readyz")[0] == 200
    sim.proc.send_signal(signal.SIGSTOP)
    try:
        client.ping(b"frozen?!")
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            client.receive(deadline - time.monotonic())
        assert not [e for _, e in client.events if isinstance(e, h2.events.PingAckReceived)], \
            "a stopped server answered a PING"
    finally:
        sim.proc.send_signal(signal.SIGCONT)
    client.wait(lambda evs: [e for e in evs if isinstance(e, h2.events.PingAckReceived)], "the PING ack on resume")


def test_h2_kept_connection_controls_the_fault(start, h2client):
    sim = start()
    kept = h2client(sim)   # opened before the fault: served as usual while it lasts
    status, _, body = kept.request("/sim/fault?mode=reset", method="POST")
    assert status == 200 and json.loads(body)["connectionFault"] == "reset"
    assert reset_by(sim, b""), "a new connection was not reset"
    assert kept.request("/sim/fault?mode=none", method="POST")[0] == 200
    assert h2client(sim).request("/readyz")[0] == 200


def test_h2_sigterm_ends_watches_then_goaway(start, h2client):
    """As kube-apiserver: /readyz fails at once while everything is served; after the delay each
    watch ends (END_STREAM) and the connection gets a GOAWAY with no error before it closes."""
    import h2.errors
    import h2.events
    sim = start("--shutdown-delay", "1s", "--watch-interval", "100ms")
    client = h2client(sim)
    watch = client.get("/api/v1/nodes?watch=true")
    sim.proc.send_signal(signal.SIGTERM)
    status, _, body = wait_for(lambda: (r := client.request("/readyz?verbose")) and r[0] == 500 and r,
                               WAIT, what="/readyz to fail over HTTP/2 after SIGTERM")
    assert "[-]shutdown failed" in body

    def ended(evs):
        return any(isinstance(e, h2.events.StreamEnded) and e.stream_id == watch for e in evs)

    client.wait(ended, "the watch to end at the end of the shutdown delay")
    try:
        goaway = client.wait(lambda evs: [e for e in evs if isinstance(e, h2.events.ConnectionTerminated)],
                             "the GOAWAY")
    except ConnectionError:
        goaway = [e for _, e in client.events if isinstance(e, h2.events.ConnectionTerminated)]
    assert goaway and goaway[0].error_code == h2.errors.ErrorCodes.NO_ERROR
    assert sim.proc.wait(timeout=WAIT) == 0
