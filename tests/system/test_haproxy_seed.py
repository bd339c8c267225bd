"""The OpenShift article's haproxy.cfg (with `option httpchk GET /readyz`), run by vigil as it is.

Only addresses are rewritten to loopback ones inside the namespace: the masters' and infra nodes'
host names become 127.0.0.1N / 127.0.0.2N, and `bind *:PORT` becomes `bind 127.0.0.1:PORT` (a
wildcard bind would collide with the simulated nodes on the same ports in this one namespace).
"""
import json
import re
import signal
import urllib.request
from pathlib import Path

from testing.harness.netns import TOKEN, http_get
from testing.harness.paths import APISIM, VIGIL
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for

SEED = Path(__file__).resolve().parents[2] / "src/config/haproxy/testdata/openshift-article-readyz.cfg"

# (name, address, port, TLS?) of every simulated node the seed's backends name.
NODES = [(f"master-0{i}", f"127.0.0.1{i}", port, tls)
         for i in (1, 2, 3) for port, tls in ((6443, True), (22623, False))]
NODES += [(f"infra-0{i}", f"127.0.0.2{i}", port, tls)
          for i in (1, 2, 3) for port, tls in ((80, False), (443, True))]


def rewritten_seed():
    text = SEED.read_text()
    text = re.sub(r"(master|infra)-0(\d)\.test2\.example\.local",
                  lambda m: f"127.0.0.{1 if m.group(1) == 'master' else 2}{m.group(2)}", text)
    return text.replace("bind *:", "bind 127.0.0.1:")


def status(admin):
    req = urllib.request.Request(f"http://{admin}/v1/status", headers={"X-Auth-Token": TOKEN})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=2) as r:
        return json.loads(r.read())


def members(admin):
    return {(p["name"], m["name"]): m for p in status(admin)["pools"] for m in p["members"]}


def test_openshift_article_config_runs_verbatim(netns, tmp_path):
    sims = {}
    for name, address, port, tls in NODES:
        ready = tmp_path / f"{name}-{port}.ready"
        args = [APISIM, "--name", name, "--listen", f"{address}:{port}", "--ready-file", ready]
        if not tls:
            args.append("--plain")
        proc = netns.spawn(args, tmp_path / f"{name}-{port}.log")
        read_ready_file(ready, proc)
        sims[(name, port)] = proc

    config = tmp_path / "haproxy.cfg"
    config.write_text(rewritten_seed())
    (tmp_path / "token").write_text(TOKEN + "\n")
    ready = tmp_path / "vigil.ready"
    check = netns.run([VIGIL, "check", "-c", config], check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "breaks OpenShift's rule" in check.stdout  # inter 10s fall 3: 43 s worst case
    vigil = netns.spawn([VIGIL, "serve", "-c", config, "--token-file", tmp_path / "token",
                         "--ready-file", ready], tmp_path / "vigil.log")
    info = json.loads(read_ready_file(ready, vigil))
    admin = info["admin"]
    assert len(info["listeners"]) == 4

    def all_online():
        ms = members(admin)
        return len(ms) == 12 and all(m["operating_status"] == "ONLINE" for m in ms.values()) and ms
    netns.call(wait_for, all_online, 20, 0.1, "all twelve members ONLINE", timeout=30)

    # The API through vigil, TLS passed through; ingress HTTP likewise.
    code, headers, body = netns.call(http_get, "127.0.0.1", 6443, "/api/v1/nodes/master-01")
    assert code == 200 and headers["x-served-by"].startswith("master-"), (code, body)
    code, headers, _ = netns.call(http_get, "127.0.0.1", 80, "/version", 2.0, False)
    assert code == 200 and headers["x-served-by"].startswith("infra-")

    # An infra node's HTTPS router dies: `option ssl-hello-chk` became a real TLS check.
    sims[("infra-02", 443)].send_signal(signal.SIGKILL)
    down = netns.call(
        wait_for,
        lambda: (m := members(admin)[("https-443", "infra-02")])["operating_status"] == "ERROR" and m,
        20, 0.1, "infra-02 ERROR in https-443", timeout=30)
    assert down["check"]["result"] == "refused", down["check"]
    vigil.send_signal(signal.SIGTERM)
    assert vigil.wait(timeout=10) == 0
