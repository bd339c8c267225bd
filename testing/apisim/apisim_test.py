"""Tests of vigil-apisim, the kube-apiserver simulator, through real sockets on loopback.

Run: /usr/bin/python3 -m pytest testing/apisim/apisim_test.py
The binary comes from $VIGIL_APISIM, else build/dev/testing/apisim/vigil-apisim (relative to the
repository root).
"""

import http.client
import json
import os
import pathlib
import shutil
import signal
import socket
import ssl
import subprocess
import threading
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


# EndpointSlices of default/kubernetes (discovery.k8s.io/v1): what vigil follows to learn the masters.

SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"


def get_json(sim, path, method="GET"):
    status, _, body = sim.request(path, method=method)
    return status, json.loads(body)


def addresses(slice_object):
    return [a for e in slice_object["endpoints"] or [] for a in e["addresses"]]


def open_watch(sim, query):
    """An HTTP/1.1 watch on SLICES: (connection, response); reads are bounded by the socket's timeout."""
    conn = sim.connection(timeout=WAIT)
    conn.request("GET", f"{SLICES}?watch=true&{query}")
    response = conn.getresponse()
    assert response.status == 200 and response.headers["Transfer-Encoding"] == "chunked"
    return conn, response


def next_event(response):
    line = response.readline()
    assert line, "the watch ended"
    return json.loads(line)


def wait_watches(sim, count):
    wait_for(lambda: get_json(sim, "/sim/state")[1]["endpointSliceWatches"] == count, WAIT,
             what=f"{count} open EndpointSlice watch(es)")


def test_endpointslices_list_get_and_label_selector(start):
    sim = start("--endpoints", "10.0.0.11:6443,10.0.0.12:6443", plain=True)
    status, listed = get_json(sim, SLICES)
    assert status == 200
    assert (listed["apiVersion"], listed["kind"]) == ("discovery.k8s.io/v1", "EndpointSliceList")
    assert int(listed["metadata"]["resourceVersion"]) > 0
    [item] = listed["items"]
    assert item["metadata"]["name"] == "kubernetes" and item["metadata"]["namespace"] == "default"
    assert item["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert item["addressType"] == "IPv4"
    assert item["endpoints"] == [{"addresses": ["10.0.0.11"], "conditions": {"ready": True}},
                                 {"addresses": ["10.0.0.12"], "conditions": {"ready": True}}]
    assert item["ports"] == [{"name": "https", "port": 6443, "protocol": "TCP"}]

    for selector in ("kubernetes.io/service-name=kubernetes", "kubernetes.io%2Fservice-name%3Dkubernetes"):
        assert get_json(sim, f"{SLICES}?labelSelector={selector}")[1]["items"] == [item]
    assert get_json(sim, f"{SLICES}?labelSelector=kubernetes.io/service-name%3Dother")[1]["items"] == []
    assert get_json(sim, f"{SLICES}?labelSelector=a+in+(b)")[0] == 400
    assert get_json(sim, "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices")[1]["items"] == []
    assert get_json(sim, "/apis/discovery.k8s.io/v1/endpointslices")[1]["items"] == [item]

    status, one = get_json(sim, f"{SLICES}/kubernetes")
    assert status == 200 and one["kind"] == "EndpointSlice" and one["apiVersion"] == "discovery.k8s.io/v1"
    assert addresses(one) == ["10.0.0.11", "10.0.0.12"]
    status, missing = get_json(sim, f"{SLICES}/other")
    assert status == 404 and (missing["kind"], missing["reason"]) == ("Status", "NotFound")


def test_endpointslices_default_to_the_listen_address(start):
    sim = start(plain=True)
    [item] = get_json(sim, SLICES)[1]["items"]
    assert addresses(item) == [sim.host] and item["ports"][0]["port"] == sim.port
    assert get_json(sim, "/sim/state")[1]["endpoints"] == f"{sim.host}:{sim.port}"


def test_endpointslices_discovery(start):
    sim = start(plain=True)
    groups = get_json(sim, "/apis")[1]["groups"]
    [group] = [g for g in groups if g["name"] == "discovery.k8s.io"]
    assert group["preferredVersion"] == {"groupVersion": "discovery.k8s.io/v1", "version": "v1"}
    status, resources = get_json(sim, "/apis/discovery.k8s.io/v1")
    assert status == 200 and resources["groupVersion"] == "discovery.k8s.io/v1"
    [slices] = resources["resources"]
    assert (slices["name"], slices["kind"], slices["namespaced"]) == ("endpointslices", "EndpointSlice", True)
    assert set(slices["verbs"]) == {"get", "list", "watch"} and "shortNames" not in slices


def test_endpointslice_watch_gets_each_change(start):
    sim = start("--endpoints", "10.0.0.11:6443,10.0.0.12:6443", plain=True)
    version = get_json(sim, SLICES)[1]["metadata"]["resourceVersion"]
    conn, response = open_watch(sim, f"resourceVersion={version}")
    wait_watches(sim, 1)

    status, state = get_json(sim, "/sim/endpoints?set=10.0.0.11:6443,10.0.0.13:6443!notready", method="POST")
    assert status == 200 and state["endpoints"] == "10.0.0.11:6443,10.0.0.13:6443!notready"
    event = next_event(response)
    assert event["type"] == "MODIFIED" and event["object"]["kind"] == "EndpointSlice"
    assert event["object"]["endpoints"] == [{"addresses": ["10.0.0.11"], "conditions": {"ready": True}},
                                            {"addresses": ["10.0.0.13"], "conditions": {"ready": False}}]
    assert int(event["object"]["metadata"]["resourceVersion"]) > int(version)
    assert event["object"]["metadata"]["resourceVersion"] == state["resourceVersion"]

    # An IPv6 master: a second slice appears, and goes again.
    get_json(sim, "/sim/endpoints?set=10.0.0.11:6443,%5B2001:db8::1%5D:6443", method="POST")
    assert next_event(response)["type"] == "MODIFIED"   # 10.0.0.13 left the IPv4 one
    added = next_event(response)
    assert (added["type"], added["object"]["metadata"]["name"]) == ("ADDED", "kubernetes-ipv6")
    assert added["object"]["addressType"] == "IPv6" and addresses(added["object"]) == ["2001:db8::1"]
    get_json(sim, "/sim/endpoints?set=10.0.0.11:6443", method="POST")
    assert (next_event(response)["type"], addresses(get_json(sim, f"{SLICES}/kubernetes")[1])) == \
        ("DELETED", ["10.0.0.11"])
    conn.close()

    # From the first version again: the history replays every change; without one, ADDED first.
    conn, response = open_watch(sim, f"resourceVersion={version}")
    assert [next_event(response)["type"] for _ in range(4)] == ["MODIFIED", "MODIFIED", "ADDED", "DELETED"]
    conn.close()
    conn, response = open_watch(sim, "")
    event = next_event(response)
    assert event["type"] == "ADDED" and addresses(event["object"]) == ["10.0.0.11"]
    conn.close()


def test_endpoints_control_refuses_bad_lists(start):
    sim = start(plain=True)
    for bad in ("10.0.0.11", "master-01:6443", "10.0.0.11:6443,10.0.0.12:6444"):
        status, body = get_json(sim, f"/sim/endpoints?set={bad}", method="POST")
        assert status == 400 and body["kind"] == "Status", bad
    assert get_json(sim, "/sim/endpoints", method="POST")[0] == 400
    assert get_json(sim, "/sim/endpoints?set=10.0.0.11:6443", method="GET")[0] == 405


def test_endpointslice_watch_break_closes_the_connection(start):
    sim = start(plain=True)
    conn, response = open_watch(sim, "")
    assert next_event(response)["type"] == "ADDED"
    wait_watches(sim, 1)
    version = get_json(sim, "/sim/state")[1]["resourceVersion"]
    assert get_json(sim, "/sim/endpoints/break", method="POST")[0] == 200
    try:
        ended = response.readline() == b""
    except http.client.IncompleteRead:   # the chunked body ends without its last chunk
        ended = True
    assert ended
    conn.close()
    wait_watches(sim, 0)
    assert get_json(sim, "/sim/state")[1]["resourceVersion"] == version   # nothing changed


def test_endpointslices_refused_while_the_rest_is_served(start):
    sim = start("--endpoints", "10.0.0.11:6443", plain=True)
    conn, response = open_watch(sim, "")
    assert next_event(response)["type"] == "ADDED"
    wait_watches(sim, 1)
    state = get_json(sim, "/sim/endpoints/refuse?code=503", method="POST")[1]
    assert state["endpointSlicesRefused"] == 503
    try:    # the open watch ends, as /sim/endpoints/break ends it
        ended = response.readline() == b""
    except http.client.IncompleteRead:
        ended = True
    assert ended
    conn.close()
    for path in (SLICES, f"{SLICES}/kubernetes", f"{SLICES}?watch=true"):
        status, body = get_json(sim, path)
        assert (status, body["kind"], body["code"], body["reason"]) == (
            503, "Status", 503, "ServiceUnavailable"), path
    assert sim.request("/readyz")[0] == 200   # everything else is served
    assert sim.request("/api/v1/nodes/master-01")[0] == 200
    for bad in ("200", "600", "x", "-1"):
        assert get_json(sim, f"/sim/endpoints/refuse?code={bad}", method="POST")[0] == 400, bad
    assert get_json(sim, "/sim/endpoints/refuse?code=0", method="POST")[1]["endpointSlicesRefused"] == 0
    assert addresses(get_json(sim, SLICES)[1]["items"][0]) == ["10.0.0.11"]


def test_endpointslice_watch_from_a_compacted_version_gets_410(start):
    sim = start("--endpoints", "10.0.0.11:6443", plain=True)
    old = get_json(sim, SLICES)[1]["metadata"]["resourceVersion"]
    get_json(sim, "/sim/endpoints?set=10.0.0.12:6443", method="POST")
    state = get_json(sim, "/sim/endpoints/compact", method="POST")[1]
    assert state["endpointSliceHistoryStart"] == state["resourceVersion"]
    conn, response = open_watch(sim, f"resourceVersion={old}")
    event = next_event(response)
    assert event["type"] == "ERROR"
    status = event["object"]
    assert (status["kind"], status["code"], status["reason"]) == ("Status", 410, "Expired")
    assert status["message"] == f"too old resource version: {old} ({state['resourceVersion']})"
    assert response.readline() == b""   # then the stream ends, the connection stays
    conn.request("GET", "/readyz")
    assert conn.getresponse().read() == b"ok"
    conn.close()
    # From the current version the watch is served.
    conn, response = open_watch(sim, f"resourceVersion={state['resourceVersion']}")
    get_json(sim, "/sim/endpoints?set=10.0.0.13:6443", method="POST")
    assert next_event(response)["type"] == "MODIFIED"
    conn.close()


def test_endpointslice_watch_bookmarks_and_timeout(start):
    sim = start("--watch-interval", "100ms", plain=True)
    version = get_json(sim, SLICES)[1]["metadata"]["resourceVersion"]
    conn, response = open_watch(sim, f"resourceVersion={version}&allowWatchBookmarks=true&timeoutSeconds=2")
    bookmark = next_event(response)
    assert bookmark == {"type": "BOOKMARK", "object": {
        "kind": "EndpointSlice", "apiVersion": "discovery.k8s.io/v1", "metadata": {"resourceVersion": version}}}
    while line := response.readline():   # bounded: timeoutSeconds=2 ends the stream
        assert json.loads(line)["type"] == "BOOKMARK"
    conn.close()
    conn, response = open_watch(sim, f"resourceVersion={version}&timeoutSeconds=1")
    assert response.readline() == b""   # no bookmarks unless asked for
    conn.close()


def test_h2_endpointslice_watch_and_break_resets_the_stream(start, h2client):
    import h2.events
    sim = start("--endpoints", "10.0.0.11:6443")
    client = h2client(sim)
    watch = client.get(f"{SLICES}?watch=true&labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes")

    def lines(evs):
        data = b"".join(e.data for e in evs if isinstance(e, h2.events.DataReceived) and e.stream_id == watch)
        return [json.loads(line) for line in data.split(b"\n") if line]

    client.wait(lambda evs: len(lines(evs)) >= 1, "the ADDED event")
    assert client.request("/sim/endpoints?set=10.0.0.12:6443", method="POST")[0] == 200
    events = client.wait(lambda evs: len(lines(evs)) >= 2 and lines(evs), "the MODIFIED event")
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED"]
    assert addresses(events[1]["object"]) == ["10.0.0.12"]
    assert client.request("/sim/endpoints/break", method="POST")[0] == 200
    client.wait(lambda evs: any(isinstance(e, h2.events.StreamReset) and e.stream_id == watch for e in evs),
                "the watch's RST_STREAM")
    assert client.request("/readyz")[0] == 200   # the connection stays


# The stock kubectl reads the same objects: the wire format checked by a client nobody here wrote.

def kubectl_binary():
    found = shutil.which("kubectl")
    if not found:
        return None
    directory = pathlib.Path(os.path.realpath(found)).parent
    versioned = sorted(directory.glob("kubectl.1.*"), key=lambda p: [int(x) for x in p.name.split(".")[1:]
                                                                     if x.isdigit()])
    preferred = directory / "kubectl.1.32"
    if preferred.exists():
        return preferred
    return versioned[-1] if versioned else pathlib.Path(found)


def test_kubectl_gets_and_watches_endpointslices(start, tmp_path):
    kubectl = kubectl_binary()
    if kubectl is None:
        pytest.skip("no kubectl on PATH: the wire format cannot be checked by the stock client")
    sim = start("--endpoints", "10.0.0.11:6443,10.0.0.12:6443")
    host = f"[{sim.host}]" if ":" in sim.host else sim.host
    config = tmp_path / "kubeconfig"
    config.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster: {{server: "https://{host}:{sim.port}", insecure-skip-tls-verify: true}}
users:
- name: test
  user: {{token: any-token}}
contexts:
- name: sim
  context: {{cluster: sim, user: test, namespace: default}}
current-context: sim
""")
    base = [str(kubectl), "--kubeconfig", str(config), "--request-timeout", "5s",
            "get", "endpointslices", "-n", "default", "-o", "json"]
    done = subprocess.run(base, capture_output=True, text=True, timeout=WAIT * 2)
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["items"]
    assert item["metadata"]["name"] == "kubernetes" and addresses(item) == ["10.0.0.11", "10.0.0.12"]

    # --watch: kubectl lists, prints, then watches from the list's version, so a change made after
    # the first print reaches it through the watch. The request timeout bounds the run.
    watch = subprocess.Popen(base[:4] + ["10s"] + base[5:] + ["--watch"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    out = []
    reader = threading.Thread(target=lambda: out.extend(watch.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: '"10.0.0.12"' in "".join(out), WAIT, what="kubectl to print the listed slice")
        assert sim.request("/sim/endpoints?set=10.0.0.11:6443,10.0.0.13:6443", method="POST")[0] == 200
        wait_for(lambda: '"10.0.0.13"' in "".join(out), WAIT, what="kubectl to print the watched change")
    finally:
        watch.kill()
        watch.wait(timeout=WAIT)
        reader.join(timeout=WAIT)
    decoder, text, objects = json.JSONDecoder(), "".join(out).strip(), []
    while text:
        obj, end = decoder.raw_decode(text)
        objects.append(obj)
        text = text[end:].strip()
    assert [addresses(o) for o in objects] == [["10.0.0.11", "10.0.0.12"], ["10.0.0.11", "10.0.0.13"]]
