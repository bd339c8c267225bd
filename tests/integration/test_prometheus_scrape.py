"""A real Prometheus server (Debian's `prometheus`) scrapes vigil as an operator would set it up:
with the read-only token, the shipped alert rules loaded. Every family vigil serves is stored,
every shipped rule evaluates without error, and a refused reload fires VigilReloadFailed (the one
rule without a `for:` delay), which clears once a reload succeeds.
"""
import json
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from testing.harness.process import stop
from testing.harness.octavia_api import raw
from testing.harness.paths import ROOT
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="prometheus is missing (Debian: prometheus)")

READ_TOKEN = "prometheus-read-only-token"
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  read_token_file: {read_token_file}
listeners:
  - {{name: echo, bind: "127.0.0.1:0", pool: echoes}}
pools:
  - name: echoes
    health_monitor: {{type: TCP, interval: 200ms, timeout: 500ms}}
    members:
      - {{name: e1, address: 127.0.0.1, port: {port}}}
"""

SCRAPE_CONFIG = """
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {rules}
scrape_configs:
  - job_name: vigil
    authorization:
      type: Bearer
      credentials_file: {read_token_file}
    static_configs:
      - targets: ["{target}"]
"""


class Prometheus:
    """One Prometheus server on a port the kernel picks, with its storage in a temporary folder."""

    def __init__(self, tmp_path, config_text):
        config = tmp_path / "prometheus.yml"
        config.write_text(config_text)
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             "--web.listen-address=127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self._address = threading.Event()
        self.address = None
        threading.Thread(target=self._read_log, daemon=True).start()
        if not self._address.wait(30):
            self.stop()
            raise AssertionError("prometheus did not say where it listens:\n" + "\n".join(self.lines))
        wait_for(self._ready, timeout=30, interval=0.2, what="prometheus ready")

    def _ready(self):
        try:
            with _opener.open(f"http://{self.address}/-/ready", timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):  # 503 until its storage is open
            return False

    def _read_log(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip())
            m = re.search(r'msg="Listening on" address=(127\.0\.0\.1:\d+)', line)
            if m and not m.group(1).endswith(":0"):
                self.address = m.group(1)
                self._address.set()

    def api(self, path, **params):
        query = ("?" + urllib.parse.urlencode(params)) if params else ""
        with _opener.open(f"http://{self.address}/api/v1/{path}{query}", timeout=5) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return body["data"]

    def stop(self):
        stop(self.proc, timeout=15)


@pytest.fixture
def scraped(tmp_path, cleanup):
    read_token = tmp_path / "read-token"
    read_token.write_text(READ_TOKEN + "\n")
    read_token.chmod(0o600)
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, CONFIG.format(port=echo.port, read_token_file=read_token))
    cleanup(vigil)
    vigil.wait_member("e1", "ONLINE")
    prometheus = Prometheus(tmp_path, SCRAPE_CONFIG.format(
        rules=ROOT / "deploy/prometheus/vigil-rules.yml", read_token_file=read_token,
        target=vigil.admin))
    cleanup(prometheus)

    def up():
        result = prometheus.api("query", query='up{job="vigil"}')["result"]
        return result and result[0]["value"][1] == "1"
    wait_for(up, timeout=30, interval=0.5, what="Prometheus scraping vigil with the read-only token")
    return vigil, prometheus


def families_with_samples(vigil):
    code, body = vigil.get("/metrics")
    assert code == 200, body
    families = set(re.findall(r"^# TYPE (\S+) ", body, re.M))
    names = {line.split("{")[0].split(" ")[0] for line in body.splitlines()
             if line and not line.startswith("#")}
    return {f for f in families if any(n == f or n.startswith(f + "_") for n in names)}


def test_every_family_vigil_serves_is_stored(scraped):
    vigil, prometheus = scraped
    served = families_with_samples(vigil)
    assert len(served) > 20, served

    def missing():
        stored = set(prometheus.api("label/__name__/values"))
        return {f for f in served if not any(n == f or n.startswith(f + "_") for n in stored)}
    wait_for(lambda: not missing(), timeout=15, interval=0.5,
             what="every family in Prometheus' storage")


def test_the_shipped_rules_load_and_evaluate(scraped):
    _, prometheus = scraped
    shipped = set(re.findall(r"^\s*- alert: (\S+)$",
                             (ROOT / "deploy/prometheus/vigil-rules.yml").read_text(), re.M))
    assert shipped

    def evaluated():
        rules = [r for g in prometheus.api("rules")["groups"] for r in g["rules"]]
        return ({r["name"] for r in rules} == shipped
                and all(r["health"] == "ok" and not r["lastEvaluation"].startswith("0001")
                        for r in rules) and rules)
    rules = wait_for(evaluated, timeout=15, interval=0.5, what="every shipped rule evaluated")
    assert not [r for r in rules if r.get("lastError")], rules


def test_a_refused_reload_fires_and_a_good_one_clears_the_alert(scraped):
    vigil, prometheus = scraped
    good = vigil.config.read_text()

    def reload_failed_alerts():
        return [a for a in prometheus.api("alerts")["alerts"]
                if a["labels"]["alertname"] == "VigilReloadFailed"]
    assert reload_failed_alerts() == []
    vigil.config.write_text(good + "\nnot: [valid\n")
    code, _ = raw(vigil, "POST", "/v1/reload")
    assert code == 409
    wait_for(lambda: any(a["state"] == "firing" for a in reload_failed_alerts()), timeout=20,
             interval=0.5, what="VigilReloadFailed firing")
    vigil.config.write_text(good)
    code, _ = raw(vigil, "POST", "/v1/reload")
    assert code == 200
    wait_for(lambda: reload_failed_alerts() == [], timeout=20, interval=0.5,
             what="VigilReloadFailed cleared")
