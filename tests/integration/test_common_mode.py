"""Common mode: every master's /readyz fails alike (an etcd blip). vigil fails open to the masters
that still answer, says it is the cluster's problem, and never routes to one that refuses."""
import urllib.request

from testing.harness.vigil_process import ApiSim, Vigil, https_get, pool_config
from testing.harness.wait import wait_for

MONITOR = """    health_monitor:
      type: HTTPS
      path: /readyz
      interval: 300ms
      fast_interval: 100ms
      timeout: 1s
      healthy_threshold: 2
      unhealthy_threshold: 2"""


def fail_etcd(sim, fail=True):
    import ssl
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                         urllib.request.HTTPSHandler(context=ctx))
    url = f"https://127.0.0.1:{sim.port}/sim/readyz?fail={'etcd' if fail else ''}"
    with opener.open(urllib.request.Request(url, method="POST"), timeout=5) as r:
        assert r.status == 200


def test_an_etcd_blip_everywhere_fails_open_but_never_to_a_dead_master(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2, 3)]
    for s in sims:
        cleanup(s)
    vigil = Vigil(tmp_path, pool_config(MONITOR, [(s.name, s.port) for s in sims]))
    cleanup(vigil)
    for s in sims:
        vigil.wait_member(s.name, "ONLINE")

    for s in sims:
        fail_etcd(s)
    for s in sims:
        vigil.wait_member(s.name, "ERROR")
    wait_for(lambda: "every member fails its check alike" in vigil.log_text(), 5,
             what="the common-mode log line")
    line = next(ln for ln in vigil.log_text().splitlines() if "fails its check alike" in ln)
    assert "[-]etcd failed" in line and "failing open to the 3 that take connections" in line
    host, port = vigil.listener("api")
    served = {https_get(host, port, "/version")[1]["X-Served-By"] for _ in range(30)}
    assert served == {"master-01", "master-02", "master-03"}

    sims[1].kill()  # crashed during the blip: refuses connections
    wait_for(lambda: vigil.members()["master-02"]["check"]["result"] == "refused", 10,
             what="master-02's check refused")
    for _ in range(30):
        status, headers, _ = https_get(host, port, "/version")
        assert status == 200 and headers["X-Served-By"] in ("master-01", "master-03")
    assert not vigil.members()["master-02"]["in_rotation"]

    for s in (sims[0], sims[2]):
        fail_etcd(s, False)
    vigil.wait_member("master-01", "ONLINE")
    wait_for(lambda: "no longer failing open" in vigil.log_text(), 5, what="fail-open ending")
