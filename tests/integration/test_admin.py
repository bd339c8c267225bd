"""The admin endpoint and the client commands against a running vigil."""
import json

from testing.harness.vigil_process import EchoServer, Vigil, pool_config

MONITOR = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"


def start(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("master-01", backend.port)]))
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")
    return vigil


def test_token_is_required_except_for_healthz(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    assert vigil.get("/healthz", token=None)[0] == 200
    for path in ("/v1/status", "/v2/lbaas/loadbalancers", "/v2.0/lbaas/loadbalancers", "/metrics"):
        code, body = vigil.get(path, token=None)
        assert code == 401, path
        assert "faultstring" in json.loads(body)
        assert vigil.get(path, token="wrong")[0] == 401, path
        assert vigil.get(path)[0] == 200, path
    code, _ = vigil.get("/v1/status", token=None, headers={"Authorization": "Bearer integration-test-token"})
    assert code == 200


def test_octavia_reads(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    code, body = vigil.get("/v2/lbaas/loadbalancers")
    lbs = json.loads(body)["loadbalancers"]
    assert len(lbs) == 1 and lbs[0]["name"] == "vigil"
    lb_id = lbs[0]["id"]
    code, body = vigil.get(f"/v2.0/lbaas/loadbalancers/{lb_id}/status")
    tree = json.loads(body)["statuses"]["loadbalancer"]
    member = tree["listeners"][0]["pools"][0]["members"][0]
    assert member["name"] == "master-01" and member["operating_status"] == "ONLINE"
    pool_id = tree["listeners"][0]["pools"][0]["id"]
    code, body = vigil.get(f"/v2/lbaas/pools/{pool_id}/members")
    members = json.loads(body)["members"]
    assert members[0]["protocol_port"] > 0 and members[0]["operating_status"] == "ONLINE"
    assert vigil.get("/v2/lbaas/loadbalancers/00000000-0000-0000-0000-000000000000")[0] == 404


def test_ids_are_stable_across_restarts(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    first = vigil.status()["pools"][0]["members"][0]["id"]
    vigil.stop()
    again = Vigil(tmp_path, vigil.config.read_text())
    cleanup(again)
    assert again.status()["pools"][0]["members"][0]["id"] == first


def test_members_and_status_commands(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    table = vigil.cli("members")
    assert table.returncode == 0, table.stderr
    assert "master-01" in table.stdout and "ONLINE" in table.stdout
    as_json = vigil.cli("members", "--json")
    assert as_json.returncode == 0, as_json.stderr
    members = json.loads(as_json.stdout)
    assert members[0]["name"] == "master-01"
    assert members[0]["operating_status"] == "ONLINE"
    assert "protocol_port" in members[0]
    tree = vigil.cli("status")
    assert tree.returncode == 0 and "masters" in tree.stdout
    missing = vigil.cli("members", "nosuchpool")
    assert missing.returncode == 1


def test_client_reports_an_unreachable_daemon(tmp_path):
    import subprocess
    from testing.harness.paths import VIGIL
    r = subprocess.run([str(VIGIL), "members", "--admin", "http://127.0.0.1:1"], capture_output=True,
                       text=True, timeout=20, env={"VIGIL_TOKEN": "x", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2
    assert "cannot reach vigil" in r.stderr


def test_sigterm_stops_cleanly(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    assert vigil.stop() == 0


def test_reload_applies_a_new_file_and_refuses_a_broken_one(tmp_path, cleanup):
    import signal
    import socket
    from testing.harness.vigil_process import echo_once
    from testing.harness.wait import wait_for
    vigil = start(tmp_path, cleanup)
    host, port = vigil.listener("api")
    held = socket.create_connection((host, port), timeout=5)
    held.sendall(b"before")
    assert held.recv(100) == b"before"
    first_id = vigil.members()["master-01"]["id"]

    second = EchoServer()
    cleanup(second)
    text = vigil.config.read_text()
    member = [l for l in text.splitlines() if "name: master-01" in l][0]
    vigil.config.write_text(text + member.replace("master-01", "master-02").replace(
        member.split("port: ")[1].rstrip("}"), str(second.port)) + "\n")
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "master-02" in vigil.members(), 10, what="master-02 after the reload")
    vigil.wait_member("master-02", "ONLINE")
    # The member that did not change kept its id, health and session.
    assert vigil.members()["master-01"]["id"] == first_id
    assert vigil.members()["master-01"]["operating_status"] == "ONLINE"
    held.sendall(b"after")
    assert held.recv(100) == b"after"

    # A broken file is refused; everything keeps running.
    vigil.config.write_text("listeners: [\n")
    import urllib.request
    req = urllib.request.Request(f"http://{vigil.admin}/v1/reload", method="POST",
                                 headers={"X-Auth-Token": "integration-test-token"})
    import urllib.error
    try:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=10)
        raise AssertionError("a broken file was accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 409
    assert set(vigil.members()) == {"master-01", "master-02"}
    assert echo_once(host, port, b"still serving") == b"still serving"

    # Removing a member: it is gone, the other's session is untouched.
    vigil.config.write_text(text)
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: set(vigil.members()) == {"master-01"}, 10, what="master-02 removed")
    held.sendall(b"still")
    assert held.recv(100) == b"still"
    held.close()
