"""Health checks end to end: members go ERROR with a reason, come back, and get no traffic while down."""
import socket

from vigil_harness import ApiSim, EchoServer, Vigil, echo_once, https_get, wait_for


def pool_config(monitor, members):
    lines = "\n".join(f"      - {{name: {n}, address: 127.0.0.1, port: {p}}}" for n, p in members)
    return f"""
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
{monitor}
    members:
{lines}
"""


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
    # A port with nothing listening: its first check fails, so it must never be picked.
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    monitor = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"
    vigil = Vigil(tmp_path, pool_config(monitor, [("good", good.port), ("dead", closed_port)]))
    cleanup(vigil)
    vigil.wait_member("dead", "ERROR")
    for _ in range(10):
        assert echo_once(*vigil.listener("api"), b"ping") == b"ping"
    assert vigil.members()["dead"]["total_connections"] == 0
