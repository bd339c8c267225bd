"""vigil's etcd client (src/etcd, driven by testing/vigil-etcd-check) against real etcd members
(/usr/bin/etcd, testing/harness/etcd.py): guarded transactions, prefix ranges with revisions, a
watch that sees puts and deletes in order and one that ends on a compacted revision; a 3-member
cluster whose leader dies or freezes; client TLS with the right CA, a wrong one and a missing
client certificate; and servers that answer garbage or nothing, which give a clear error within
the request timeout, never a hang.

The CA and certificates are made here with the openssl command, valid for two days."""
import json
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

from testing.harness.etcd import EtcdCluster
from testing.harness.pki import make_ca, make_cert
from testing.harness.paths import BUILD
from testing.harness.wait import wait_for

CHECK = BUILD / "testing/vigil-etcd-check"


def check(endpoints, *args, tls=None, request_timeout_ms=2000, timeout=30):
    """Runs vigil-etcd-check and returns (exit code, the JSON lines it printed)."""
    if not CHECK.exists():
        pytest.fail(f"{CHECK} is missing: build first (cmake --build --preset dev)")
    cmd = [str(CHECK), "--endpoints", ",".join(endpoints), "--request-timeout-ms", str(request_timeout_ms)]
    for flag, value in (tls or {}).items():
        cmd += [f"--{flag}", str(value)]
    r = subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)
    lines = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return r.returncode, lines


def one(endpoints, *args, **kw):
    code, lines = check(endpoints, *args, **kw)
    assert len(lines) == 1, lines
    return code, lines[0]


@pytest.fixture(scope="module")
def etcd(tmp_path_factory):
    with EtcdCluster(tmp_path_factory.mktemp("etcd"), members=1) as cluster:
        cluster.wait_ready()
        yield cluster


def test_a_txn_put_guarded_by_mod_revision(etcd):
    ep = etcd.endpoints
    code, first = one(ep, "put", "txn/a", "one", "--if-mod", 0)
    assert code == 0 and first["succeeded"] is True and first["revision"] > 0, first
    # The key exists now: a put that wants it absent fails its compare and writes nothing.
    code, again = one(ep, "put", "txn/a", "two", "--if-mod", 0)
    assert code == 0 and again == dict(first, succeeded=False), again
    code, stale = one(ep, "put", "txn/a", "two", "--if-mod", first["revision"] - 1)
    assert stale["succeeded"] is False, stale
    code, fresh = one(ep, "put", "txn/a", "three", "--if-mod", first["revision"])
    assert fresh["succeeded"] is True and fresh["revision"] == first["revision"] + 1, fresh
    _, r = one(ep, "range", "txn/")
    assert [(kv["key"], kv["value"], kv["mod_revision"]) for kv in r["kvs"]] == [("txn/a", "three", fresh["revision"])]


def test_range_by_prefix_with_revisions(etcd):
    ep = etcd.endpoints
    revs = {}
    for key, value in (("range/b", "2"), ("range/a", "1"), ("range0", "not under the prefix"), ("rang", "nor this")):
        _, put = one(ep, "put", key, value)
        revs[key] = put["revision"]
    _, again = one(ep, "put", "range/a", "1 again")
    code, r = one(ep, "range", "range/")
    assert code == 0
    assert r["kvs"] == [
        {"key": "range/a", "value": "1 again", "create_revision": revs["range/a"],
         "mod_revision": again["revision"], "version": 2},
        {"key": "range/b", "value": "2", "create_revision": revs["range/b"],
         "mod_revision": revs["range/b"], "version": 1},
    ]
    assert r["revision"] >= again["revision"]
    _, empty = one(ep, "range", "nothing-here/")
    assert empty["kvs"] == [] and empty["revision"] >= again["revision"], empty


def test_a_watch_sees_puts_and_deletes_in_order(etcd):
    ep = etcd.endpoints
    _, start = one(ep, "put", "other/x", "before the watch")
    watch = subprocess.Popen([str(CHECK), "--endpoints", ",".join(ep), "watch", "watch/",
                              "--from", str(start["revision"] + 1), "--count", "4", "--timeout-ms", "15000"],
                             stdout=subprocess.PIPE, text=True)
    try:
        _, p1 = one(ep, "put", "watch/a", "1")
        one(ep, "put", "other/y", "not watched")
        _, p2 = one(ep, "put", "watch/b", "2")
        _, d1 = one(ep, "delete", "watch/a")
        _, p3 = one(ep, "put", "watch/b", "3")
        out, _ = watch.communicate(timeout=20)
    finally:
        watch.kill()
        watch.wait(timeout=5)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(e["event"], e["key"], e["value"], e["mod_revision"]) for e in lines[:-1]] == [
        ("put", "watch/a", "1", p1["revision"]),
        ("put", "watch/b", "2", p2["revision"]),
        ("delete", "watch/a", "", d1["revision"]),
        ("put", "watch/b", "3", p3["revision"]),
    ], lines
    assert lines[-1] == {"done": True}
    assert watch.returncode == 0


def test_a_watch_catching_up_on_megabytes_of_history_sees_every_event(etcd):
    # 40 values of 100 kB: more than etcd's 1.5 MiB request limit, so that etcd sends the catch-up
    # in fragments, which the client joins.
    ep = etcd.endpoints
    value = "v" * 100_000
    revisions = [one(ep, "put", f"history/{i:02}", value)[1]["revision"] for i in range(40)]
    code, lines = check(ep, "watch", "history/", "--from", revisions[0], "--count", 40, "--timeout-ms", 15000)
    assert code == 0 and lines[-1] == {"done": True}, lines[-1]
    assert [(e["key"], e["value"] == value, e["mod_revision"]) for e in lines[:-1]] == [
        (f"history/{i:02}", True, revisions[i]) for i in range(40)]


def test_a_watch_from_a_compacted_revision_ends_with_compact_revision(etcd):
    ep = etcd.endpoints
    _, first = one(ep, "put", "compacted/a", "1")
    _, last = one(ep, "put", "compacted/a", "2")
    etcd.compact(last["revision"])
    code, end = one(ep, "watch", "compacted/", "--from", first["revision"], "--count", "1", "--timeout-ms", "10000")
    assert code == 1
    assert end == {"end": {"error": "", "compact_revision": last["revision"]}}


def test_three_members_requests_continue_when_the_leader_dies_or_freezes(tmp_path):
    with EtcdCluster(tmp_path, members=3) as cluster:
        cluster.wait_ready()
        leader = cluster.leader()
        # The dead leader first, so that the client must move on by itself.
        ordered = [cluster.endpoints[leader]] + [e for i, e in enumerate(cluster.endpoints) if i != leader]
        watch = subprocess.Popen([str(CHECK), "--endpoints", ordered[0], "watch", "fleet/", "--from", "1",
                                  "--count", "100", "--timeout-ms", "15000"], stdout=subprocess.PIPE, text=True)
        try:
            one(ordered, "put", "fleet/0", "seen by the watch")
            seen = json.loads(watch.stdout.readline())  # bounded: the watch gives up after 15 s
            cluster.kill(leader)
            out, _ = watch.communicate(timeout=20)
        finally:
            watch.kill()
            watch.wait(timeout=5)
        # The watch on the member that died ends, naming it; its caller would watch again elsewhere.
        end = json.loads(out)
        assert seen["key"] == "fleet/0" and watch.returncode == 1, out
        assert end["end"]["error"].startswith(f"etcd at {ordered[0]}: "), out
        cluster.wait_ready()  # the two left elect a leader
        code, lines = check(ordered, "put", "fleet/a", "after the kill", "--repeat", 3)
        assert code == 0, lines
        assert all(line["succeeded"] for line in lines) and len(lines) == 3, lines
        assert {line["endpoint"] for line in lines} == {ordered[1]}, lines  # the one that answered, kept

        cluster.start(leader)
        cluster.wait_ready()

        # A frozen member (SIGSTOP) still accepts connections, in the kernel, but answers nothing:
        # that request times out, and the next ones go to the next endpoint. A follower is frozen,
        # so that the other two keep their quorum.
        frozen = next(i for i in range(3) if i != cluster.leader())
        others = [e for i, e in enumerate(cluster.endpoints) if i != frozen]
        os.kill(cluster.procs[frozen].pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            code, lines = check([cluster.endpoints[frozen]] + others, "put", "fleet/b", "x", "--repeat", 3,
                                request_timeout_ms=1000)
            elapsed = time.monotonic() - started
        finally:
            os.kill(cluster.procs[frozen].pid, signal.SIGCONT)
        assert lines[0] == {"error": f"etcd at {cluster.endpoints[frozen]}: no answer within 1000 ms",
                            "endpoint": others[0]}, lines
        assert [(line.get("succeeded"), line["endpoint"]) for line in lines[1:]] == [(True, others[0])] * 2, lines
        assert elapsed < 1.0 + 5, elapsed
        code, lines = check(cluster.endpoints, "range", "fleet/")
        assert code == 0 and [kv["key"] for kv in lines[0]["kvs"]] == ["fleet/0", "fleet/a", "fleet/b"], lines


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    ca, stranger = make_ca(d, "etcd-ca"), make_ca(d, "stranger-ca")
    server = make_cert(d, ca, "server", "IP:127.0.0.1")
    wrong_name = make_cert(d, ca, "elsewhere", "DNS:elsewhere.example,IP:192.0.2.1")
    client = make_cert(d, ca, "client", "DNS:client")
    return {"ca": str(ca), "stranger": str(stranger), "server": server, "wrong_name": wrong_name,
            "client": client, "dir": d}


@pytest.fixture(scope="module")
def etcd_mtls(tmp_path_factory, pki):
    tls = {"ca": pki["ca"], "cert": pki["server"][0], "key": pki["server"][1], "client_cert_auth": True,
           "client_cert": pki["client"][0], "client_key": pki["client"][1]}
    with EtcdCluster(tmp_path_factory.mktemp("etcd-mtls"), members=1, tls=tls) as cluster:
        cluster.wait_ready()
        yield cluster


def test_tls_with_the_right_ca_and_a_client_certificate(etcd_mtls, pki):
    tls = {"ca": pki["ca"], "cert": pki["client"][0], "key": pki["client"][1]}
    code, put = one(etcd_mtls.endpoints, "put", "tls/a", "secret", tls=tls)
    assert code == 0 and put["succeeded"], put
    code, r = one(etcd_mtls.endpoints, "range", "tls/", tls=tls)
    assert [kv["value"] for kv in r["kvs"]] == ["secret"], r
    code, lines = check(etcd_mtls.endpoints, "watch", "tls/", "--from", put["revision"], "--count", 1,
                        "--timeout-ms", 10000, tls=tls)
    assert code == 0 and lines[0]["value"] == "secret", lines


def test_tls_with_a_wrong_ca_names_certificate_verification(etcd_mtls, pki):
    tls = {"ca": pki["stranger"], "cert": pki["client"][0], "key": pki["client"][1]}
    code, r = one(etcd_mtls.endpoints, "range", "tls/", tls=tls)
    assert code == 1
    assert r["error"].startswith(f"etcd at {etcd_mtls.endpoints[0]}: TLS handshake: certificate verify failed"), r
    code, lines = check(etcd_mtls.endpoints, "watch", "tls/", "--from", 1, "--timeout-ms", 10000, tls=tls)
    assert code == 1 and "certificate verify failed" in lines[0]["end"]["error"], lines


def test_tls_with_the_right_ca_when_etcd_wants_no_client_certificate(tmp_path, pki):
    tls = {"ca": pki["ca"], "cert": pki["server"][0], "key": pki["server"][1]}
    with EtcdCluster(tmp_path, members=1, tls=tls) as cluster:
        cluster.wait_ready()
        code, lines = check(cluster.endpoints, "put", "tls/b", "v", "--repeat", 2, tls={"ca": pki["ca"]})
    assert code == 0 and [line["succeeded"] for line in lines] == [True, True], lines


def test_tls_to_a_server_whose_certificate_names_another_host_is_refused(tmp_path, pki):
    tls = {"ca": pki["ca"], "cert": pki["wrong_name"][0], "key": pki["wrong_name"][1]}
    with EtcdCluster(tmp_path, members=1, tls=tls) as cluster:
        # etcdctl checks the name too; wait for the member's own log instead of its health.
        wait_for(lambda: "ready to serve client requests" in cluster.log(0), timeout=30,
                 what="etcd serving")
        code, r = one(cluster.endpoints, "range", "x/", tls={"ca": pki["ca"]})
    assert code == 1 and "certificate verify failed" in r["error"], r


def test_tls_without_a_client_certificate_when_etcd_wants_one(etcd_mtls, pki):
    code, r = one(etcd_mtls.endpoints, "range", "tls/", tls={"ca": pki["ca"]})
    assert code == 1
    assert r["error"].startswith(f"etcd at {etcd_mtls.endpoints[0]}: "), r
    assert "(etcd refused this client's certificate, or wants one)" in r["error"], r


def test_check_names_a_tls_file_that_does_not_load(tmp_path, pki):
    (tmp_path / "not-pem.crt").write_text("hello\n")
    code, r = one(["https://127.0.0.1:2379"], "range", "x/", tls={"ca": tmp_path / "not-pem.crt"})
    assert code == 2 and r["error"].startswith(f"etcd ca {tmp_path / 'not-pem.crt'}: "), r
    code, r = one(["https://127.0.0.1:2379"], "range", "x/",
                  tls={"ca": pki["ca"], "cert": pki["client"][0], "key": pki["server"][1]})
    assert code == 2 and "does not match" in r["error"], r


class FakeServer:
    """A TCP server on loopback that answers each connection with `reply` (bytes, or a function of
    the socket) and then holds it open until stopped."""

    def __init__(self, reply):
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.conns = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            try:
                conn.recv(65536)
                if callable(self.reply):
                    self.reply(conn)
                elif self.reply:
                    conn.sendall(self.reply)
            except OSError:
                pass

    def stop(self):
        # shutdown, not close alone: it wakes the thread blocked in accept, recv or sendall.
        for s in [self.sock] + self.conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def endless_line(conn):
    """A watch stream whose one message never ends: 70 MiB without a newline."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * 65536
    for _ in range(70 * 16):
        conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))


@pytest.mark.parametrize("reply, error", [
    (b"SSH-2.0-OpenSSH_9.2\r\n", "bad HTTP answer"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n<html>\n", "range: not JSON"),
    (b"HTTP/1.1 404 Not Found\r\nContent-Length: 19\r\n\r\n404 page not found\n", "HTTP 404: 404 page not found"),
    (None, "no answer within 700 ms"),
])
def test_a_server_answering_garbage_or_nothing_gives_a_clear_error_in_time(reply, error):
    server = FakeServer(reply)
    try:
        started = time.monotonic()
        code, r = one([server.url], "range", "x/", request_timeout_ms=700, timeout=10)
        elapsed = time.monotonic() - started
    finally:
        server.stop()
    assert code == 1 and r["error"].startswith(f"etcd at {server.url}: ") and error in r["error"], r
    assert elapsed < 0.7 + 2, elapsed


@pytest.mark.parametrize("reply, error", [
    (None, "no answer within 700 ms"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello\n\r\n", "watch: not JSON"),
    (endless_line, "a watch message longer than"),
])
def test_a_watch_on_a_broken_server_ends_with_an_error(reply, error):
    server = FakeServer(reply)
    try:
        code, r = one([server.url], "watch", "x/", "--from", 1, "--timeout-ms", 10000,
                      request_timeout_ms=700, timeout=20)
    finally:
        server.stop()
    assert code == 1 and error in r["end"]["error"], r
    assert r["end"]["error"].startswith(f"etcd at {server.url}: "), r
