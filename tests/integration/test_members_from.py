"""A pool that follows the Kubernetes API's list of masters (members_from.kubernetes): vigil lists
and watches the default/kubernetes EndpointSlices of a simulated API server (vigil-apisim) over
TLS that it verifies, with a kubeconfig. The file's member is the bootstrap set; a master added
and one removed at run time change the pool while the members that stay keep their health; a list
answered 410 Gone is tried again after a backoff, a compacted history re-lists; the API down for
60 s fails no request through vigil, status, /metrics and the log say the members are not
confirmed meanwhile, and after a minute the file's members are back beside the last known list.

The masters are three simulators on one port at 127.0.0.11-13 (all of 127.0.0.0/8 is loopback),
as an EndpointSlice lists one port for all its addresses; the API the slices come from is a
fourth at 127.0.0.10, so that it can go down while the masters serve.
"""
import socket
import threading
import time

import pytest

from testing.harness.pki import make_ca, make_cert
from testing.harness.vigil_process import ApiSim, Vigil, https_get, TOKEN
from testing.harness.wait import wait_for


def free_port_on(hosts):
    """A port the kernel picks on the first host that is also free on the others."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind((hosts[0], 0))
            port = s.getsockname()[1]
            try:
                for h in hosts[1:]:
                    with socket.socket() as t:
                        t.bind((h, port))
                return port
            except OSError:
                continue
    raise AssertionError("no port free on all of " + ", ".join(hosts))


def endpoints(port, *last_octets):
    return ",".join(f"127.0.0.{o}:{port}" for o in last_octets)


def sim_post(api, path):
    import ssl
    import http.client
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = http.client.HTTPSConnection(api.host, api.port, timeout=5, context=ctx)
    try:
        conn.request("POST", path)
        r = conn.getresponse()
        body = r.read().decode()
        assert r.status == 200, (path, r.status, body)
        return body
    finally:
        conn.close()


@pytest.fixture
def cluster(tmp_path, cleanup):
    ca = make_ca(tmp_path, "cluster-ca")
    cert, key = make_cert(tmp_path, ca, "apiserver",
                          "IP:127.0.0.10,IP:127.0.0.11,IP:127.0.0.12,IP:127.0.0.13,DNS:kubernetes")
    hosts = ["127.0.0.11", "127.0.0.12", "127.0.0.13"]
    port = free_port_on(hosts)
    masters = []
    for i, host in enumerate(hosts, start=1):
        masters.append(ApiSim(tmp_path, f"master-0{i}", port=port, host=host,
                              args=("--cert", cert, "--key", key)))
        cleanup(masters[-1])
    api_args = ("--cert", cert, "--key", key, "--endpoints", endpoints(port, 11, 12))
    api = ApiSim(tmp_path, "api", host="127.0.0.10", args=api_args)
    cleanup(api)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(f"""apiVersion: v1
kind: Config
current-context: vigil
contexts: [{{name: vigil, context: {{cluster: k, user: vigil}}}}]
clusters: [{{name: k, cluster: {{server: "https://127.0.0.10:{api.port}",
  certificate-authority: {ca}, tls-server-name: kubernetes}}}}]
users: [{{name: vigil, user: {{token: any}}}}]
""")
    vigil = Vigil(tmp_path, f"""
admin: {{listen: "127.0.0.1:0", token_file: "@TOKEN_FILE@"}}
listeners: [{{name: api, bind: "127.0.0.1:0", pool: masters}}]
pools:
  - name: masters
    health_monitor: {{type: HTTPS, path: /readyz, interval: 1s, fast_interval: 200ms}}
    members_from:
      kubernetes: {{kubeconfig: {kubeconfig}}}
    members:
      - {{name: master-01, address: 127.0.0.11, port: {port}}}
""")
    cleanup(vigil)
    return vigil, api, masters, port, api_args


def pool_of(vigil):
    return next(p for p in vigil.status()["pools"] if p["name"] == "masters")


def wait_members(vigil, names, timeout=20):
    want = sorted(names)
    return wait_for(lambda: (p := pool_of(vigil)) and sorted(m["name"] for m in p["members"]) == want
                    and p, timeout, interval=0.1, what=f"members {want}")


def test_members_follow_the_apis_endpointslices(cluster):
    vigil, api, masters, port, _ = cluster
    # The API's two masters replace the bootstrap list; master-01 keeps its name.
    pool = wait_members(vigil, ["master-01", f"127.0.0.12:{port}"])
    assert pool["members_from"]["state"] == "following", pool["members_from"]
    assert pool["members_from"]["server"].startswith("https://127.0.0.10:"), pool["members_from"]
    vigil.wait_member("master-01", "ONLINE")
    vigil.wait_member(f"127.0.0.12:{port}", "ONLINE")
    since = vigil.members()["master-01"]["state_since"]

    # A master added at run time is checked and gets traffic; the others keep their health.
    sim_post(api, f"/sim/endpoints?set={endpoints(port, 11, 12, 13)}")
    wait_members(vigil, ["master-01", f"127.0.0.12:{port}", f"127.0.0.13:{port}"])
    vigil.wait_member(f"127.0.0.13:{port}", "ONLINE")
    assert vigil.members()["master-01"]["state_since"] == since
    host, listen = vigil.listener("api")
    served = {https_get(host, listen, "/readyz")[1]["X-Served-By"] for _ in range(9)}
    assert served == {"master-01", "master-02", "master-03"}, served

    # One removed: gone from the pool, the others untouched.
    sim_post(api, f"/sim/endpoints?set={endpoints(port, 11, 13)}")
    wait_members(vigil, ["master-01", f"127.0.0.13:{port}"])
    assert vigil.members()["master-01"]["state_since"] == since

    # The API answering 410 Gone to a list: a list has no version to expire, so this is a
    # failure, tried again after a backoff (not at once, which would be a loop of requests);
    # meanwhile the members stay.
    before = pool_of(vigil)["members_from"]
    sim_post(api, "/sim/endpoints/refuse?code=410")

    def refused_list():
        source = pool_of(vigil)["members_from"]
        error = source.get("error", "")
        return source if error.startswith("listing the EndpointSlices") and "410" in error else None
    source = wait_for(refused_list, 20, what="the list's 410 as the source's error")
    assert source["expiries"] == before["expiries"], source
    assert len(pool_of(vigil)["members"]) == 2
    sim_post(api, "/sim/endpoints/refuse?code=0")
    # The history compacted and the watch broken: vigil lists again and follows.
    before = pool_of(vigil)["members_from"]
    sim_post(api, "/sim/endpoints/compact")
    sim_post(api, f"/sim/endpoints?set={endpoints(port, 11, 12, 13)}")
    sim_post(api, "/sim/endpoints/break")
    pool = wait_members(vigil, ["master-01", f"127.0.0.12:{port}", f"127.0.0.13:{port}"])
    wait_for(lambda: pool_of(vigil)["members_from"]["lists"] > before["lists"], 20,
             what="a list after the broken watch")

    # An answer with no ready endpoint keeps the last known members.
    sim_post(api, f"/sim/endpoints?set={endpoints(port, 11)}!notready")
    wait_for(lambda: "no ready endpoint listed" in vigil.log_text(), 20,
             what="the log line about an empty answer")
    assert len(pool_of(vigil)["members"]) == 3


def test_the_api_down_for_a_minute_fails_no_request(cluster, tmp_path, cleanup):
    vigil, api, masters, port, api_args = cluster
    wait_members(vigil, ["master-01", f"127.0.0.12:{port}"])
    for name in ("master-01", f"127.0.0.12:{port}"):
        vigil.wait_member(name, "ONLINE")
    host, listen = vigil.listener("api")
    failures, served = [], [0]
    stop = threading.Event()

    def client():
        while not stop.is_set():
            try:
                status, _, _ = https_get(host, listen, "/readyz", timeout=5)
                if status == 200:
                    served[0] += 1
                else:
                    failures.append(status)
            except OSError as e:
                failures.append(repr(e))
            stop.wait(0.05)

    t = threading.Thread(target=client, daemon=True)
    t.start()
    api.kill()
    went_down = time.monotonic()
    # vigil says the members are the last known ones, unconfirmed, in status and /metrics.
    pool = wait_for(lambda: (p := pool_of(vigil))["members_from"]["state"] == "stale" and p, 20,
                    what="the source stale")
    assert len(pool["members"]) == 2
    assert "error" in pool["members_from"], pool["members_from"]
    while time.monotonic() - went_down < 60:
        assert len(pool_of(vigil)["members"]) == 2
        stop.wait(1)
    code, metrics = vigil.get("/metrics")
    up = [line for line in metrics.splitlines()
          if line.startswith("vigil_pool_members_source_up{") and 'pool="masters"' in line]
    assert len(up) == 1 and up[0].endswith(" 0"), up
    status = vigil.cli("status")
    assert "NOT CONFIRMED" in status.stdout, status.stdout
    assert "the last known 2 members stay" in vigil.log_text()
    # A minute unconfirmed: the file's members are back beside the list (master-01, the only
    # bootstrap member, is also in it: still two).
    wait_for(lambda: "members are back beside the last known 2" in vigil.log_text(), 15,
             what="the bootstrap members back after a minute")
    assert len(pool_of(vigil)["members"]) == 2

    # The API back (at the same address): vigil lists it again and follows its list.
    back = ApiSim(tmp_path, "api-back", port=api.port, host="127.0.0.10",
                  args=(*api_args[:4], "--endpoints", endpoints(port, 11, 12, 13)))
    cleanup(back)
    wait_members(vigil, ["master-01", f"127.0.0.12:{port}", f"127.0.0.13:{port}"], timeout=45)
    assert pool_of(vigil)["members_from"]["state"] == "following"
    stop.set()
    t.join(timeout=10)
    assert failures == [], failures[:5]
    assert served[0] > 100, served[0]
