"""Health checks end to end: members go ERROR with a reason, come back, and get no traffic while down."""
import socket

from testing.harness.vigil_process import (ApiSim, EchoServer, Vigil, echo_once, https_get,
                                           pool_config)
from testing.harness.wait import wait_for


FAST_HTTPS = """    health_monitor:
      type: HTTPS
      path: /readyz
      interval: 300ms
      fast_interval: 100ms
      timeout: 1s
      healthy_threshold: 2
      unhealthy_threshold: 2"""


def test_killed_member_goes_error_gets_no_traffic_and_comes_back(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2, 3)]
    for s in sims:
        cleanup(s)
    vigil = Vigil(tmp_path, pool_config(FAST_HTTPS, [(s.name, s.port) for s in sims]))
    cleanup(vigil)
    for s in sims:
        vigil.wait_member(s.name, "ONLINE")

    sims[1].kill()
    down = vigil.wait_member("master-02", "ERROR")
    assert "refused" in down["check"]["reason"]
    assert down["in_rotation"] is False
    assert "pool masters member master-02" in vigil.log_text()
    assert "DOWN: connection refused" in vigil.log_text()

    host, port = vigil.listener("api")
    served = set()
    for _ in range(30):
        status, headers, _ = https_get(host, port, "/version")
        assert status == 200
        served.add(headers["X-Served-By"])
    assert served == {"master-01", "master-03"}

    restarted = ApiSim(tmp_path, "master-02", port=sims[1].port)
    cleanup(restarted)
    up = vigil.wait_member("master-02", "ONLINE")
    assert up["in_rotation"] is True
    assert up["check"]["http_code"] == 200


def test_readyz_500_shows_the_code_and_failing_checks(tmp_path, cleanup):
    sim = ApiSim(tmp_path, "master-01", args=["--fail-readyz", "etcd"])
    good = ApiSim(tmp_path, "master-02")
    cleanup(sim)
    cleanup(good)
    vigil = Vigil(tmp_path, pool_config(FAST_HTTPS, [(sim.name, sim.port), (good.name, good.port)]))
    cleanup(vigil)
    bad = vigil.wait_member("master-01", "ERROR")
    assert bad["check"]["http_code"] == 500
    assert "500" in bad["check"]["reason"]
    assert any("[-]etcd" in line for line in bad["check"]["failed_checks"])
    # The pool is DEGRADED once the other member's first check is in too; under load it may
    # still be without a result when master-01's failure arrives.
    vigil.wait_member("master-02", "ONLINE")
    assert vigil.status()["pools"][0]["operating_status"] == "DEGRADED"


def test_tls_hello_passes_against_tls_and_fails_against_plain_tcp(tmp_path, cleanup):
    sim = ApiSim(tmp_path, "master-01")
    plain = EchoServer()
    cleanup(sim)
    cleanup(plain)
    monitor = """    health_monitor: {type: TLS-HELLO, interval: 300ms, fast_interval: 100ms, timeout: 1s}"""
    vigil = Vigil(tmp_path, pool_config(monitor, [("tls", sim.port), ("plain", plain.port)]))
    cleanup(vigil)
    vigil.wait_member("tls", "ONLINE")
    failed = vigil.wait_member("plain", "ERROR")
    assert failed["check"]["result"] == "tls_failed"


def test_pool_without_monitor_is_no_monitor_and_routes(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config("    fail_open: true", [("m1", backend.port)]))
    cleanup(vigil)
    assert vigil.members()["m1"]["operating_status"] == "NO_MONITOR"
    assert echo_once(*vigil.listener("api"), b"hi") == b"hi"


def test_no_traffic_to_a_member_before_its_first_check_passes(tmp_path, cleanup):
    good = EchoServer()
    cleanup(good)
    # A port bound but not listening refuses connections, and stays ours for the whole test (a
    # closed port could be taken by another process meanwhile): its first check fails, so the
    # member must never be picked.
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    cleanup(type("S", (), {"stop": closed.close})())
    monitor = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"
    vigil = Vigil(tmp_path, pool_config(monitor, [("good", good.port), ("dead", closed_port)]))
    cleanup(vigil)
    vigil.wait_member("dead", "ERROR")
    for _ in range(10):
        assert echo_once(*vigil.listener("api"), b"ping") == b"ping"
    assert vigil.members()["dead"]["total_connections"] == 0


def _held_tls_connection(host, port):
    """A keep-alive TLS connection through vigil; returns (connection, the master that answered)."""
    import http.client
    import ssl
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection(host, port, timeout=5, context=ctx)
    conn.request("GET", "/version")
    r = conn.getresponse()
    r.read()
    return conn, r.getheader("X-Served-By")


def _two_masters_and_a_session(tmp_path, cleanup):
    """vigil before two ONLINE simulated masters, and a keep-alive session through it."""
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2)]
    for s in sims:
        cleanup(s)
    vigil = Vigil(tmp_path, pool_config(FAST_HTTPS, [(s.name, s.port) for s in sims]))
    cleanup(vigil)
    for s in sims:
        vigil.wait_member(s.name, "ONLINE")
    conn, served_by = _held_tls_connection(*vigil.listener("api"))
    return vigil, sims, conn, served_by


def test_sessions_of_a_member_that_stops_answering_are_closed(tmp_path, cleanup):
    import signal
    vigil, sims, conn, served_by = _two_masters_and_a_session(tmp_path, cleanup)
    frozen = next(s for s in sims if s.name == served_by)
    frozen.proc.send_signal(signal.SIGSTOP)  # no FIN, no RST: like a host that lost power
    try:
        vigil.wait_member(served_by, "ERROR")
        # vigil closed the session: the next request on it fails at once instead of hanging.
        def closed():
            try:
                conn.request("GET", "/version")
                conn.getresponse().read()
                return False
            except Exception:  # reset, broken pipe or RemoteDisconnected: closed either way
                return True
        wait_for(closed, 10, what="the frozen member's session to be closed")
        wait_for(lambda: "its sessions closed: 1 sessions closed" in vigil.log_text(), 5,
                 what="the line that counts the sessions closed")
    finally:
        frozen.proc.send_signal(signal.SIGCONT)
        conn.close()


def test_graceful_shutdown_drains_new_connections_but_keeps_sessions(tmp_path, cleanup):
    import urllib.request
    vigil, sims, conn, served_by = _two_masters_and_a_session(tmp_path, cleanup)
    host, port = vigil.listener("api")
    draining = next(s for s in sims if s.name == served_by)
    # The simulator's control endpoint: /readyz now answers 500 with [-]shutdown failed.
    import ssl
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=ctx))
    opener.open(urllib.request.Request(f"https://127.0.0.1:{draining.port}/sim/readyz?fail=shutdown",
                                       method="POST"), timeout=5).read()
    member = vigil.wait_member(served_by, "DRAINING")
    assert "shutdown" in member["check"]["reason"]
    # It stays DRAINING, past the unhealthy threshold, as long as it answers.
    member = wait_for(lambda: (m := vigil.members()[served_by])["consecutive_failures"] >= 4 and m, 10,
                      what="four failed checks")
    assert member["operating_status"] == "DRAINING", member
    # New connections avoid it...
    for _ in range(10):
        _, _, _ = https_get(host, port, "/version")
    assert vigil.members()[served_by]["in_rotation"] is False
    # ...while the established session still works.
    conn.request("GET", "/version")
    r = conn.getresponse()
    r.read()
    assert r.status == 200 and r.getheader("X-Served-By") == served_by
    conn.close()
