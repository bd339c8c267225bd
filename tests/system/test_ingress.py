"""The ingress example (deploy/examples/ingress.yaml, shown in docs/ingress.md) in front of three
"routers": HAProxy with `accept-proxy` on 80 and 443, logging the client address the PROXY v2
header told it, and a health frontend on 1936 answering /healthz/ready.

Only addresses are rewritten: the routers' 192.0.2.2N become 127.0.0.2N, vigil binds 127.0.0.1,
and the client connects from 127.0.0.99, addresses of the namespace's own loopback. A router's
health port answering 503 takes it out of both pools; 200 again brings it back.
"""
import json
import re
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from testing.harness.netns import TOKEN
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy/examples/ingress.yaml"
HAPROXY = Path("/usr/sbin/haproxy")
CLIENT = "127.0.0.99"
ROUTERS = {f"router-{i}": f"127.0.0.2{i}" for i in (1, 2, 3)}

# What a router serves: both ports with accept-proxy, each logging the client it was told of.
# 443 is TCP passthrough (as a router's passthrough route) to a local HTTP answer.
TRAFFIC = """global
  log stdout format raw local0
defaults
  log global
  timeout connect 1s
  timeout client 10s
  timeout server 10s
frontend http
  mode http
  bind {ip}:80 accept-proxy
  log-format "seen http %ci:%cp"
  http-request return status 200 content-type text/plain string "{name}"
frontend https
  mode tcp
  bind {ip}:443 accept-proxy
  log-format "seen https %ci:%cp"
  default_backend local
backend local
  mode tcp
  server answer {ip}:8443
frontend answer
  mode http
  bind {ip}:8443
  http-request return status 200 content-type text/plain string "{name}"
"""

# The router's stats port: /healthz/ready with the status the test chooses.
HEALTH = """defaults
  mode http
  timeout connect 1s
  timeout client 10s
  timeout server 10s
frontend health
  bind {ip}:1936
  http-request return status {code} content-type text/plain string "ready {code}"
"""


def rewritten_example(token_file):
    text = EXAMPLE.read_text()
    text = re.sub(r"192\.0\.2\.2(\d)", r"127.0.0.2\1", text)
    text = text.replace('bind: ":', 'bind: "127.0.0.1:')
    text = text.replace("listen: 127.0.0.1:8404", "listen: 127.0.0.1:0")
    return text.replace("/etc/vigil/token", str(token_file))


def test_docs_show_the_example_the_test_runs():
    docs = (ROOT / "docs/ingress.md").read_text()
    assert "```yaml\n" + EXAMPLE.read_text() + "```" in docs


def test_vigil_check_accepts_the_example(tmp_path):
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    config = tmp_path / "ingress.yaml"
    config.write_text(EXAMPLE.read_text().replace("/etc/vigil/token", str(token)))
    r = subprocess.run([VIGIL, "check", "-c", config], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK: 2 listeners, 2 pools, 6 members" in r.stdout, r.stdout
    assert "warning" not in r.stdout + r.stderr, r.stdout + r.stderr


def members(admin):
    req = urllib.request.Request(f"http://{admin}/v1/status", headers={"X-Auth-Token": TOKEN})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=2) as r:
        status = json.loads(r.read())
    return {(p["name"], m["name"]): m for p in status["pools"] for m in p["members"]}


def get_from_client(port):
    """One HTTP request to vigil from CLIENT: (the client's own address, the router's name)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.bind((CLIENT, 0))
        s.connect(("127.0.0.1", port))
        me = s.getsockname()
        s.sendall(b"GET / HTTP/1.0\r\nHost: ingress\r\n\r\n")
        answer = b""
        while data := s.recv(4096):
            answer += data
    assert answer.startswith(b"HTTP/1.1 200"), answer
    return f"{me[0]}:{me[1]}", answer.rsplit(b"\r\n\r\n", 1)[1].decode()


def accepts(ip, port):
    try:
        with socket.create_connection((ip, port), timeout=1):
            return True
    except OSError:
        return False


def start_health(netns, tmp_path, name, code):
    cfg = tmp_path / f"{name}-health-{code}.cfg"
    cfg.write_text(HEALTH.format(ip=ROUTERS[name], code=code))
    return netns.spawn([HAPROXY, "-db", "-f", cfg], tmp_path / f"{name}-health.log")


def test_ingress_routers_see_the_client_and_their_health_port_decides(netns, tmp_path):
    if not HAPROXY.exists():
        pytest.skip("haproxy is not installed (scripts/setup.sh installs it)")
    health = {}
    for name, ip in ROUTERS.items():
        cfg = tmp_path / f"{name}.cfg"
        cfg.write_text(TRAFFIC.format(ip=ip, name=name))
        netns.spawn([HAPROXY, "-db", "-f", cfg], tmp_path / f"{name}.log")
        health[name] = start_health(netns, tmp_path, name, 200)

    # Listening before vigil's first checks, so that a DOWN in its log is the test's doing.
    for ip in ROUTERS.values():
        for port in (80, 443, 1936):
            netns.call(wait_for, lambda: accepts(ip, port), 10, 0.05, f"{ip}:{port} listening",
                       timeout=15)
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    config = tmp_path / "ingress.yaml"
    config.write_text(rewritten_example(token))
    ready = tmp_path / "vigil.ready"
    vigil = netns.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready],
                        tmp_path / "vigil.log")
    admin = json.loads(read_ready_file(ready, vigil))["admin"]

    def states():
        return {k: m["operating_status"] for k, m in members(admin).items()}

    def all_online():
        s = states()
        return len(s) == 6 and all(v == "ONLINE" for v in s.values()) and s
    netns.call(wait_for, all_online, 20, 0.1, "all six members ONLINE", timeout=30)

    # Round robin over three routers: six requests per port reach each of them.
    for port, kind in ((80, "http"), (443, "https")):
        seen_by = {}
        for _ in range(6):
            client, router = netns.call(get_from_client, port)
            seen_by.setdefault(router, []).append(client)
        assert set(seen_by) == set(ROUTERS), seen_by
        for router, clients in seen_by.items():
            log = tmp_path / f"{router}.log"
            for client in clients:
                netns.call(wait_for, lambda: f"seen {kind} {client}" in log.read_text(), 5,
                           0.05, f"{router} logging {kind} from {client}", timeout=10)

    # router-2's health port answers 503: out of both pools, the others stay.
    health["router-2"].send_signal(signal.SIGKILL)
    health["router-2"].wait(timeout=5)
    health["router-2"] = start_health(netns, tmp_path, "router-2", 503)

    def router_2_out():
        ms = members(admin)
        pair = [ms[(pool, "router-2")] for pool in ("ingress-http", "ingress-https")]
        return all(m["operating_status"] == "ERROR" for m in pair) and pair
    down = netns.call(wait_for, router_2_out, 15, 0.1, "router-2 ERROR in both pools", timeout=20)
    for m in down:
        assert m["check"]["result"] == "bad_status", m["check"]
    others = {k: v for k, v in netns.call(states).items() if k[1] != "router-2"}
    assert set(others.values()) == {"ONLINE"}, others
    for port in (80, 443):
        routers = {netns.call(get_from_client, port)[1] for _ in range(6)}
        assert routers == {"router-1", "router-3"}, routers

    # 200 again: back in both pools.
    health["router-2"].send_signal(signal.SIGKILL)
    health["router-2"].wait(timeout=5)
    health["router-2"] = start_health(netns, tmp_path, "router-2", 200)
    netns.call(wait_for, all_online, 15, 0.1, "router-2 back ONLINE", timeout=20)
    log = (tmp_path / "vigil.log").read_text()
    assert "DOWN: connection refused" not in log, log
    for port in (80, 443):
        assert re.search(rf"member router-2 127.0.0.22:{port} DOWN: HTTP 503.*"
                         rf"member router-2 127.0.0.22:{port} UP: HTTP 200", log, re.S), log
    vigil.send_signal(signal.SIGTERM)
    assert vigil.wait(timeout=10) == 0
